/**
 * `fliplab eval` with layered judgments (`--qrels base --qrels added`, a later file wins per query and
 * passage) and with `-J`: layering must give exactly what evaluating the merged qrels gives — the merged file
 * is written out by hand here — through the byte path on one and on two threads; conflicts are warnings
 * naming both files; a bad added file is bad input (file:line, exit 2); bad argument combinations are usage
 * errors. trec_eval's own `-J` outputs are checked in test/parity/trec-eval-versions.test.ts.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = join(import.meta.dirname, '../..');
const DL19_QRELS = join(SHARED_DATA, 'trec-dl19-passage/qrels.dl19-passage.txt');
const DL19_RUN = join(SHARED_DATA, 'trec-dl19-passage/run.msmarco-v1-passage.bm25-default.dl19.txt');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const tmp = tempDir('eval-qrels');
const file = (name: string, text: string): string => {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
};

// q1's b is regraded (0 → 2), q1's x and all of q3 are added; q2 is untouched.
const BASE = file('base.qrels', 'q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 d 1\nq2 0 e 0\n');
const ADDED = file('added.qrels', 'q1 0 b 2\nq1 0 x 1\nq3 0 f 1\n');
const ADDED_JSONL = file(
  'added.jsonl',
  '{"qid":"q1","docid":"b","grade":2,"assessor":"ana","time":"2026-12-01T10:00:00Z"}\n' +
    '{"qid":"q1","docid":"x","grade":1}\n' +
    '{"qid":"q3","docid":"f","grade":1}\n',
);
const MERGED = file('merged.qrels', 'q1 0 a 1\nq1 0 b 2\nq1 0 c 2\nq1 0 x 1\nq2 0 d 1\nq2 0 e 0\nq3 0 f 1\n');
const RUN = file(
  'small.run',
  'q1 Q0 x 1 5 r\nq1 Q0 b 2 4 r\nq1 Q0 y 3 3 r\nq1 Q0 a 4 2 r\nq2 Q0 d 1 3 r\nq2 Q0 z 2 2 r\nq3 Q0 f 1 1 r\nq3 Q0 g 2 0.5 r\n',
);

describe('fliplab eval --qrels: layered judgments', () => {
  const optionSets = [['-q', '-m', 'all_trec'], ['-q', '-c', '-m', 'all_trec'], ['-J', '-q', '-m', 'all_trec'], ['-J']];

  it.each(optionSets.map((o) => [o.join(' '), o]))('equals evaluating the merged qrels (%s)', async (_, flags) => {
    const merged = await cli('eval', ...flags, MERGED, RUN);
    expect(merged.code, merged.stderr).toBe(0);
    const layered = await cli('eval', ...flags, '--qrels', BASE, '--qrels', ADDED, RUN);
    expect(layered.code, layered.stderr).toBe(0);
    expect(layered.stdout).toBe(merged.stdout);
    // the positional qrels come first, then each --qrels
    expect((await cli('eval', ...flags, BASE, RUN, '--qrels', ADDED)).stdout).toBe(merged.stdout);
    expect((await cli('eval', ...flags, '--qrels', BASE, '--qrels', ADDED_JSONL, RUN)).stdout).toBe(merged.stdout);
  });

  it('the order matters: the later file wins', async () => {
    const forward = await cli('eval', '-q', '-m', 'num_rel_ret', '--qrels', BASE, '--qrels', ADDED, RUN);
    const backward = await cli('eval', '-q', '-m', 'num_rel_ret', '--qrels', ADDED, '--qrels', BASE, RUN);
    expect(forward.stdout).toContain('num_rel_ret           \tq1\t3\n'); // x 1, b 2, a 1
    expect(backward.stdout).toContain('num_rel_ret           \tq1\t2\n'); // b back to 0
  });

  it('a judgment the files grade differently is a warning naming both files, with the grade used', async () => {
    const r = await cli('eval', '--qrels', BASE, '--qrels', ADDED, RUN);
    expect(r.stderr).toBe(
      `warning: ${ADDED}: 1 judgment graded differently by the qrels files; the later file wins:\n` +
        `  query q1, passage b: 0 (${BASE}), then 2 (${ADDED})\n`,
    );
    const same = await cli('eval', '--qrels', MERGED, '--qrels', ADDED, RUN);
    expect(same.stderr).toBe('');
  });

  it('a bad added file is bad input: file:line: reason, exit 2', async () => {
    const badJson = file('bad.jsonl', '{"qid":"q1","docid":"b","grade":2}\n{"qid":"q1","docid":"x","grade":"high"}\n');
    const r = await cli('eval', '--qrels', BASE, '--qrels', badJson, RUN);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fliplab: ${badJson}:2: expected "grade" to be an integer, got "\\"high\\""\n`);
    const badTrec = file('bad.qrels', 'q1 0 b 2\nq1 0 x\n');
    const t = await cli('eval', BASE, RUN, '--qrels', badTrec);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(new RegExp(`^fliplab: ${badTrec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: `));
  });

  it('a malformed run with layered qrels still gets the text parser’s file:line message', async () => {
    const bad = file('bad.run', 'q1 Q0 a 1 3.0 r\nq1 Q0 b 2 high r\n');
    const r = await cli('eval', '--qrels', BASE, '--qrels', ADDED, bad);
    expect([r.code, r.stderr]).toEqual([2, `fliplab: ${bad}:2: expected a finite number as score in column 5, got "high"\n`]);
  });

  it('bad argument combinations are usage errors (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['eval'], /^fliplab: missing required argument 'run'/],
      [['eval', BASE], /^fliplab: missing required argument 'run'/],
      [['eval', '--qrels', BASE], /^fliplab: missing required argument 'run'/],
      [['eval', '--qrels', '-', RUN], /^fliplab: qrels cannot come from standard input/],
      [['eval', '-', RUN], /^fliplab: qrels cannot come from standard input/],
      [['eval', BASE, RUN, RUN], /^fliplab: too many arguments/],
      [['eval', '--judged-only=yes', BASE, RUN], /^fliplab: /],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(...argv);
      expect([r.code, r.stderr], argv.join(' ')).toEqual([2, expect.stringMatching(message)]);
    }
  });
});

describe('fliplab eval -J and --qrels on DL19', () => {
  it('--json records judgedOnly in the options', async () => {
    const on = JSON.parse((await cli('eval', '-J', '--json', '-m', 'map', DL19_QRELS, DL19_RUN)).stdout);
    const off = JSON.parse((await cli('eval', '--json', '-m', 'map', DL19_QRELS, DL19_RUN)).stdout);
    expect(on.options).toEqual({ relevanceLevel: 1, complete: false, maxRetrieved: null, judgedOnly: true, version: '10.0' });
    expect(off.options.judgedOnly).toBe(false);
    expect(on.all.map).toBeGreaterThan(off.all.map); // unjudged documents no longer count as non-relevant
  });

  it('layered on a real collection, one and two threads give the merged file’s bytes', async () => {
    // judge the first three unjudged passages of query 19335's ranking relevant, and regrade its first judgment
    const base = readFileSync(DL19_QRELS, 'utf8');
    const judged = new Set(
      base.split('\n').map((l) =>
        l
          .split(' ')
          .filter((_, i) => i === 0 || i === 2)
          .join(' '),
      ),
    );
    const unjudged = readFileSync(DL19_RUN, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('19335 '))
      .map((l) => l.split(' ')[2]!)
      .filter((d) => !judged.has(`19335 ${d}`))
      .slice(0, 3);
    expect(unjudged).toHaveLength(3);
    const first = base.split('\n').find((l) => l.startsWith('19335 '))!;
    const [q, , d, g] = first.split(' ');
    const regraded = `${q} 0 ${d} ${g === '3' ? 0 : 3}`;
    const added = file('dl19-added.qrels', [regraded, ...unjudged.map((u) => `19335 0 ${u} 2`)].join('\n') + '\n');
    const merged = file(
      'dl19-merged.qrels',
      base.replace(`${first}\n`, `${regraded}\n`) + unjudged.map((u) => `19335 0 ${u} 2\n`).join(''),
    );

    const flags = ['-J', '-q', '-m', 'all_trec'];
    const expected = await cli('eval', ...flags, merged, DL19_RUN);
    expect(expected.code, expected.stderr).toBe(0);
    expect((await cli('eval', ...flags, DL19_QRELS, DL19_RUN, '--qrels', added)).stdout).toBe(expected.stdout);
    const bin = join(ROOT, 'bin/fliplab.mjs');
    const threaded = await promisify(execFile)(
      process.execPath,
      [bin, 'eval', ...flags, '--qrels', DL19_QRELS, '--qrels', added, DL19_RUN],
      {
        env: { ...process.env, FLIPLAB_THREADS: '2' },
        maxBuffer: 1 << 26,
      },
    );
    expect(threaded.stdout).toBe(expected.stdout);
    expect(threaded.stderr).toContain(`warning: ${added}: 1 judgment graded differently`);
  });
});
