/**
 * Parity with two trec_eval releases, byte for byte: every file in shared/data/trec_eval-versions/<release>/
 * (outputs of the C trec_eval 10.0 and 9.0.8 on DL19, TREC-COVID and the self-test inputs; its README says
 * how they were made) must equal fliplab's output for the same options — through the core (`evaluate` +
 * `formatTrecEval`) and through the CLI (`fliplab eval [--trec-eval 9.0.8]`, in process).
 *
 * Plus outputs we produced ourselves (test/fixtures/trec-eval/, see its README): both releases on the
 * self-test's truncated run, where judged queries are missing from the run — the one case where `-c -q`
 * prints differently in the two releases; measures outside all_trec; and `-J` (judged documents only) on
 * every input, including the self-test's qrels.rel_level, whose negative grades are "in pool but unjudged".
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { parseQrels, parseRun } from '../../src/core/io/trec.ts';
import { evaluate, formatTrecEval, parseMeasures, type EvaluateOptions, type TrecEvalVersion } from '../../src/core/metrics/index.ts';
import { fileSource } from '../../src/node/files.ts';
import { SHARED_DATA } from '../shared-data.ts';

const VERSIONS_DIR = join(SHARED_DATA, 'trec_eval-versions');
const OWN_DIR = join(import.meta.dirname, '../fixtures/trec-eval');

const INPUTS: Record<string, { qrels: string; run: string }> = {
  dl19: {
    qrels: join(SHARED_DATA, 'trec-dl19-passage/qrels.dl19-passage.txt'),
    run: join(SHARED_DATA, 'trec-dl19-passage/run.msmarco-v1-passage.bm25-default.dl19.txt'),
  },
  covid: { qrels: join(SHARED_DATA, 'trec-covid-bm25/qrels.test.txt'), run: join(SHARED_DATA, 'trec-covid-bm25/run.bm25-flat.txt') },
  selftest: { qrels: join(SHARED_DATA, 'trec_eval-selftest/qrels.test'), run: join(SHARED_DATA, 'trec_eval-selftest/results.test') },
  trunc: { qrels: join(SHARED_DATA, 'trec_eval-selftest/qrels.test'), run: join(SHARED_DATA, 'trec_eval-selftest/results.trunc') },
  rellevel: { qrels: join(SHARED_DATA, 'trec_eval-selftest/qrels.rel_level'), run: join(SHARED_DATA, 'trec_eval-selftest/results.test') },
  // ours, a dozen lines: a -1 grade, a tie between a judged and an unjudged document, a query whose every
  // retrieved document is unjudged (so -J leaves it an empty ranking), a run query without judgments
  holes: { qrels: join(OWN_DIR, 'inputs/holes.qrels'), run: join(OWN_DIR, 'inputs/holes.run') },
};

/** The file name's option part → trec_eval flags (as the README of trec_eval-versions lists them). */
const OPTIONS: Record<string, { flags: string[]; measures: string[]; perQuery: boolean; opts: EvaluateOptions }> = {
  default: { flags: [], measures: ['official'], perQuery: false, opts: {} },
  q_all: { flags: ['-q', '-m', 'all_trec'], measures: ['all_trec'], perQuery: true, opts: {} },
  c_q_all: { flags: ['-c', '-q', '-m', 'all_trec'], measures: ['all_trec'], perQuery: true, opts: { complete: true } },
  l2_q_all: { flags: ['-l', '2', '-q', '-m', 'all_trec'], measures: ['all_trec'], perQuery: true, opts: { relevanceLevel: 2 } },
  M100_q_all: { flags: ['-M', '100', '-q', '-m', 'all_trec'], measures: ['all_trec'], perQuery: true, opts: { maxRetrieved: 100 } },
  // measures outside all_trec (our own reference outputs, test/fixtures/trec-eval)
  dcg_q: { flags: ['-q', '-m', 'dcg', '-m', 'ideal_dcg', '-m', 'yaap'], measures: ['dcg', 'ideal_dcg', 'yaap'], perQuery: true, opts: {} },
  dcgpairs_l2_q: {
    flags: ['-q', '-l', '2', '-m', 'dcg.1=1,2=3,3=7'],
    measures: ['dcg.1=1,2=3,3=7'],
    perQuery: true,
    opts: { relevanceLevel: 2 },
  },
  yaap_q: { flags: ['-q', '-m', 'yaap'], measures: ['yaap'], perQuery: true, opts: {} },
  // -J, judged documents only (our own reference outputs)
  J: { flags: ['-J'], measures: ['official'], perQuery: false, opts: { judgedOnly: true } },
  J_q_all: { flags: ['-J', '-q', '-m', 'all_trec'], measures: ['all_trec'], perQuery: true, opts: { judgedOnly: true } },
  J_c_q_all: {
    flags: ['-J', '-c', '-q', '-m', 'all_trec'],
    measures: ['all_trec'],
    perQuery: true,
    opts: { judgedOnly: true, complete: true },
  },
  J_l2_q_all: {
    flags: ['-J', '-l', '2', '-q', '-m', 'all_trec'],
    measures: ['all_trec'],
    perQuery: true,
    opts: { judgedOnly: true, relevanceLevel: 2 },
  },
  J_M100_q_all: {
    flags: ['-J', '-M', '100', '-q', '-m', 'all_trec'],
    measures: ['all_trec'],
    perQuery: true,
    opts: { judgedOnly: true, maxRetrieved: 100 },
  },
};
/** The option sets every release has a reference for, on every input. */
const CORE_OPTIONS = ['default', 'q_all', 'c_q_all', 'l2_q_all', 'M100_q_all'];
/** The -J option sets every release has a reference for on DL19 (J_c_q_all only where -c changes anything: trunc). */
const JUDGED_OPTIONS = ['J', 'J_q_all', 'J_l2_q_all', 'J_M100_q_all'];

interface Case {
  readonly version: TrecEvalVersion;
  readonly input: string;
  readonly option: string;
  readonly expected: string;
}

function casesIn(dir: string, version: TrecEvalVersion): Case[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .map((f) => {
      const [input, option] = f.slice(0, -'.txt'.length).split('.');
      if (!INPUTS[input!] || !OPTIONS[option!]) throw new Error(`${dir}/${f}: no input/option mapping for this file name`);
      return { version, input: input!, option: option!, expected: join(dir, f) };
    });
}

const CASES: Case[] = [
  ...casesIn(join(VERSIONS_DIR, '10.0'), '10.0'),
  ...casesIn(join(VERSIONS_DIR, '9.0.8'), '9.0.8'),
  ...casesIn(join(OWN_DIR, '10.0'), '10.0'),
  ...casesIn(join(OWN_DIR, '9.0.8'), '9.0.8'),
];

async function viaCore(c: Case): Promise<string> {
  const { qrels, run } = INPUTS[c.input]!;
  const o = OPTIONS[c.option]!;
  const [q, r] = await Promise.all([parseQrels(fileSource(qrels), qrels), parseRun(fileSource(run), run)]);
  const result = evaluate(q.value, r.value, parseMeasures(o.measures, c.version), { ...o.opts, version: c.version });
  return formatTrecEval(result, { perQuery: o.perQuery });
}

async function viaCli(c: Case): Promise<{ code: number; stdout: string; stderr: string }> {
  const { qrels, run } = INPUTS[c.input]!;
  let stdout = '';
  let stderr = '';
  const version = c.version === '10.0' ? [] : ['--trec-eval', c.version];
  const code = await main(['eval', ...version, ...OPTIONS[c.option]!.flags, qrels, run], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
  });
  return { code, stdout, stderr };
}

describe('trec_eval 10.0 and 9.0.8 reference outputs, byte for byte', () => {
  it('covers both releases, every input and every option set', () => {
    for (const version of ['10.0', '9.0.8'] as const) {
      const mine = CASES.filter((c) => c.version === version);
      expect(new Set(mine.map((c) => c.input))).toEqual(new Set(['dl19', 'covid', 'selftest', 'trunc', 'rellevel', 'holes']));
      for (const o of [...CORE_OPTIONS, ...JUDGED_OPTIONS])
        expect(new Set(mine.filter((c) => c.input === 'dl19').map((c) => c.option))).toContain(o);
      expect(mine.some((c) => c.option === 'yaap_q')).toBe(true);
      expect(mine.some((c) => c.input === 'trunc' && c.option === 'J_c_q_all')).toBe(true);
      expect(mine.some((c) => c.input === 'rellevel' && c.option === 'J_q_all')).toBe(true);
    }
    expect(CASES.filter((c) => c.option === 'dcg_q' || c.option === 'dcgpairs_l2_q').map((c) => c.version)).toEqual(
      expect.arrayContaining(['10.0']),
    );
    expect(CASES.length).toBeGreaterThanOrEqual(80);
  });

  it.each(CASES.map((c) => [`${c.version} ${c.input}.${c.option}`, c] as const))('core: %s', async (_, c) => {
    expect(await viaCore(c)).toBe(readFileSync(c.expected, 'utf8'));
  });

  it.each(CASES.map((c) => [`${c.version} ${c.input}.${c.option}`, c] as const))('fliplab eval: %s', async (_, c) => {
    const got = await viaCli(c);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe(readFileSync(c.expected, 'utf8'));
  });

  // The real bin with the byte path on two threads (the run cut at a query boundary, a worker thread for
  // the second part): the same bytes. (Automatic threading needs ≥ 4 cores and a big run; forced here.)
  const threaded = CASES.filter(
    (c) => ['dl19', 'covid', 'trunc'].includes(c.input) && ['q_all', 'c_q_all', 'J_q_all', 'J_c_q_all'].includes(c.option),
  );
  it.each(threaded.map((c) => [`${c.version} ${c.input}.${c.option}`, c] as const))('bin, two threads: %s', async (_, c) => {
    const { qrels, run } = INPUTS[c.input]!;
    const version = c.version === '10.0' ? [] : ['--trec-eval', c.version];
    const bin = join(import.meta.dirname, '../../bin/fliplab.mjs');
    const out = await promisify(execFile)(process.execPath, [bin, 'eval', ...version, ...OPTIONS[c.option]!.flags, qrels, run], {
      env: { ...process.env, FLIPLAB_THREADS: '2' },
      maxBuffer: 1 << 26,
    });
    expect(out.stdout).toBe(readFileSync(c.expected, 'utf8'));
  });

  it('the releases really differ where their changelog says (so passing both is not passing one twice)', () => {
    const read = (v: string, f: string): string => readFileSync(join(VERSIONS_DIR, v, f), 'utf8');
    const line = (text: string, name: string): string | undefined =>
      text.split('\n').find((l) => l.startsWith(`${name.padEnd(22)}\tall\t`));
    expect(line(read('10.0', 'dl19.q_all.txt'), 'iprec_at_recall_0.10')).toMatch(/\t0\.7023$/);
    expect(line(read('9.0.8', 'dl19.q_all.txt'), 'iprec_at_recall_0.10')).toMatch(/\t0\.6696$/);
    expect(line(read('10.0', 'dl19.q_all.txt'), 'rbp')).toBeDefined();
    expect(line(read('9.0.8', 'dl19.q_all.txt'), 'rbp')).toBeUndefined();
  });
});
