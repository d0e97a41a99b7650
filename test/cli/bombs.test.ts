/**
 * Files built to exhaust a reader: a gzip bomb (1 GiB of zeros in about 1 MB, no line break) and a plain
 * file whose first line is 64 MB. Every command that reads them refuses them at line 1, in bounded memory,
 * without reading the rest. The real CLI process is measured (its peak resident memory), since what is
 * tested is what the process holds, not what one function returns.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/harness.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';
import { gzipBomb } from '../support/bombs.ts';

const dir = tempDir('bombs');
const bomb = join(dir, 'bomb.run.gz');
const qrelsBomb = join(dir, 'bomb.qrels.gz');
const longLine = join(dir, 'long.run');
const MB = 1 << 20;
const DL19_QRELS = join(SHARED_DATA, 'trec-dl19-passage', 'qrels.dl19-passage.txt');

/** The compiled CLI in a child process; its peak RSS (bytes) is printed by a preloaded exit hook. */
function fliplab(...argv: string[]): { code: number | null; stderr: string; peakMB: number } {
  const hook = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\npeak-rss '+process.resourceUsage().maxRSS))`;
  const r = spawnSync(process.execPath, ['--import', hook, join(ROOT, 'bin/fliplab.mjs'), ...argv], { encoding: 'utf8', timeout: 60_000 });
  const peak = /peak-rss (\d+)/.exec(r.stderr);
  return { code: r.status, stderr: r.stderr, peakMB: peak ? Number(peak[1]) / 1024 : NaN };
}

beforeAll(async () => {
  await gzipBomb(bomb, 1024);
  await gzipBomb(qrelsBomb, 256);
  writeFileSync(longLine, `1 Q0 ${'x'.repeat(64 * MB)} 1 1.0 t\n2 Q0 d 1 1.0 t\n`);
}, 60_000);

describe('decompression bombs and endless lines', () => {
  it('eval refuses a 1 GiB gzip bomb as a run at line 1, under 300 MB', () => {
    const r = fliplab('eval', DL19_QRELS, bomb);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bomb\.run\.gz:1: expected a line break within 1 MiB, found none/);
    expect(r.peakMB).toBeLessThan(300);
  });

  it('eval refuses a 64 MB line at line 1, and a gzip bomb as qrels', () => {
    const long = fliplab('eval', DL19_QRELS, longLine);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/long\.run:1: expected a line break within 1 MiB/);
    const q = fliplab('eval', qrelsBomb, longLine);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/bomb\.qrels\.gz:1: expected a line break within 1 MiB/);
    expect(q.peakMB).toBeLessThan(300);
  });

  it('flips, compare and fuse refuse the same bomb the same way', () => {
    for (const argv of [
      ['flips', DL19_QRELS, '--reference', bomb, '--candidate', bomb],
      ['compare', '--reference', bomb, '--candidate', bomb],
      ['fuse', '--reference', bomb, '--candidate', bomb, '--method', 'rrf'],
    ]) {
      const r = fliplab(...argv);
      expect(r.code, argv[0]).toBe(2);
      expect(r.stderr, argv[0]).toMatch(/bomb\.run\.gz:1: expected a line break within 1 MiB/);
      expect(r.peakMB, argv[0]).toBeLessThan(300);
    }
  });
});
