/**
 * Decompression bombs and endless lines offered to the lab's readers: a zip whose member inflates a
 * thousandfold is refused on its declared sizes before anything is inflated; a gzip of zeros or of one valid
 * line repeated is refused as it inflates; a line past 1 MiB is refused at its line. Each refusal is an
 * InputError naming the file.
 */
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../../../src/core/io/errors.ts';
import { INFLATE_FREE_BYTES, readLines } from '../../../src/core/io/lines.ts';
import { parseRun } from '../../../src/core/io/trec.ts';
import { maybeGunzip } from '../../../src/lab/data/bytes.ts';
import { expandArchives } from '../../../src/lab/data/files.ts';
import { loadCollection } from '../../../src/worker/load.ts';

const MB = 1 << 20;
const zeros = (n: number) => new Uint8Array(n);
const enc = (s: string) => new TextEncoder().encode(s);

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(isInputError(e), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a refusal, got none');
}

describe('zip bombs', () => {
  it('a member that declares a thousandfold inflation is refused before it is inflated', async () => {
    // 64 MiB of zeros: about 64 KB deflated (a real 1 GiB bomb is the same, only slower to build here)
    const zip = zipSync({ 'corpus.jsonl': [zeros(64 * MB), { level: 9 }], 'queries.jsonl': enc('{"_id":"q","text":"x"}\n') });
    expect(zip.length).toBeLessThan(MB);
    const message = await refusal(Promise.resolve().then(() => expandArchives([{ path: 'bomb.zip', bytes: zip }])));
    expect(message).toMatch(/^bomb\.zip\/corpus\.jsonl: refused as a decompression bomb: it inflates past 64 MiB from 0\.\d+ MiB/);
    // and through the whole loader, as the lab's worker calls it
    expect(await refusal(loadCollection([{ path: 'bomb.zip', bytes: zip }]))).toMatch(/decompression bomb/);
  });

  it('ordinary compressed text is not refused, whatever its size', () => {
    const lines = Array.from(
      { length: 300_000 },
      (_, i) => `${i % 500} Q0 doc${(i * 7919) % 100_003} ${i} ${(1 / (i + 1)).toFixed(6)} run`,
    );
    const text = enc(lines.join('\n'));
    expect(text.length).toBeGreaterThan(INFLATE_FREE_BYTES / 2);
    const [entry] = expandArchives([{ path: 'runs.zip', bytes: zipSync({ 'a.run': [text, { level: 9 }] }) }]);
    expect(entry!.bytes.length).toBe(text.length);
  });
});

describe('gzip bombs and endless lines', () => {
  it('zeros: refused at line 1 by the line limit, long before the end', async () => {
    const bomb = gzipSync(zeros(256 * MB), { level: 9 });
    let lines = 0;
    const message = await refusal(readLines(bomb, () => lines++, 'bomb.run.gz'));
    expect(message).toMatch(/^bomb\.run\.gz:1: expected a line break within 1 MiB, found none/);
    expect(lines).toBe(0);
  });

  it('one valid line repeated: refused by the ratio, while reading lines and when gunzipped whole', async () => {
    const line = enc('1 Q0 d 1 1 t\n');
    const many = new Uint8Array(line.length * 4_000_000); // 52 MB of the same line
    for (let i = 0; i < 4_000_000; i++) many.set(line, i * line.length);
    const bomb = gzipSync(many, { level: 9 });
    expect(bomb.length * 100).toBeLessThan(many.length);
    expect(await refusal(readLines(bomb, () => undefined, 'same.run.gz'))).toMatch(/^same\.run\.gz: refused as a decompression bomb/);
    expect(await refusal(maybeGunzip(bomb, 'same.run.gz'))).toMatch(/^same\.run\.gz: refused as a decompression bomb/);
  });

  it('a plain line past 1 MiB is refused at its line number', async () => {
    const text = `q1 Q0 d1 1 1 t\nq1 Q0 ${'x'.repeat(2 * MB)} 2 1 t\n`;
    expect(await refusal(parseRun(enc(text), 'long.run'))).toMatch(/^long\.run:2: expected a line break within 1 MiB/);
  });
});
