import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { parseRun } from '../../src/core/io/trec.ts';
import { selectEvaluationQueries } from '../../src/core/io/validate.ts';
import { buildBm25Index, searchBm25 } from '../../src/core/retrieve/bm25.ts';
import { buildLexicalIndex } from '../../src/core/retrieve/lexical.ts';
import { runQl } from '../../src/core/retrieve/ql.ts';
import { runRm3 } from '../../src/core/retrieve/rm3.ts';
import { loadBeirFolder } from '../../src/node/files.ts';

import { SHARED_DATA } from '../shared-data.ts';
import { demoHeadline } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = join(import.meta.dirname, '../..');
const TINY = join(ROOT, 'examples/tiny-beir');
const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const DL19_QRELS = join(DL19, 'qrels.dl19-passage.txt');
const DL19_RUN = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const tmp = tempDir('cli');

describe('fliplab bm25', () => {
  it('ranks every judged query of a BEIR folder and writes a TREC run', async () => {
    const out = join(tmp, 'tiny.bm25.txt');
    const r = await cli('bm25', TINY, '--depth', '5', '--out', out);
    expect(r.code).toBe(0);
    const run = (await parseRun(readFileSync(out, 'utf8'), out)).value;
    expect(run.name).toBe('bm25');
    expect([...run.byQuery.keys()]).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8']);
    for (const list of run.byQuery.values()) expect(list.docs.length).toBeLessThanOrEqual(5);
    // "what causes tides": only d4 mentions tides.
    expect(run.byQuery.get('q3' as never)!.docs[0]).toBe('d4');
    expect(r.stderr).toMatch(/8 queries × top 5 over 12 documents \(k1 = 1\.5, b = 0\.75\)/);
  });

  it('rejects a depth outside 1..1000 and a missing folder with exit 2', async () => {
    const depth = await cli('bm25', TINY, '--depth', '0');
    expect(depth.code).toBe(2);
    expect(depth.stderr).toMatch(/--depth expects an integer in \[1, 1000\], got "0"/);
    const missing = await cli('bm25', join(tmp, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `fliplab: ${join(tmp, 'nope')}: not found (expected a BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv)\n`,
    );
  });

  it('eval, flips, significance and compare report a missing file the same way (bm25’s missing folder: above)', async () => {
    const gone = join(tmp, 'gone.run');
    const expected = `fliplab: ${gone}: not found (expected a file)\n`;
    for (const argv of [
      ['eval', DL19_QRELS, gone],
      ['eval', gone, DL19_RUN],
      ['flips', DL19_QRELS, '--reference', gone, '--candidate', DL19_RUN],
      ['significance', DL19_QRELS, '--reference', DL19_RUN, '--candidate', gone],
      ['compare', '--reference', DL19_RUN, '--candidate', gone],
    ]) {
      const r = await cli(...argv);
      expect([r.code, r.stderr], argv.join(' ')).toEqual([2, expected]);
    }
  });
});

describe('fliplab eval', () => {
  it('prints trec_eval text identical to trec_eval -q on DL19 for the measures asked', async () => {
    const r = await cli('eval', DL19_QRELS, DL19_RUN, '-q', '-m', 'map', '-m', 'ndcg_cut.10,100', '-m', 'recip_rank');
    expect(r.code).toBe(0);
    const want = readFileSync(join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.trec_eval-q.txt'), 'utf8')
      .split('\n')
      .filter((l) => /^(map|ndcg_cut_10|ndcg_cut_100|recip_rank)\s/.test(l));
    const got = r.stdout.split('\n').filter((l) => /^(map|ndcg_cut_10|ndcg_cut_100|recip_rank)\s/.test(l));
    expect(got.length).toBe(want.length);
    expect(new Set(got)).toEqual(new Set(want));
  });

  it('honours -l: the -l2 output matches trec_eval -q -l 2', async () => {
    const r = await cli('eval', DL19_QRELS, DL19_RUN, '-q', '-l2', '-m', 'map', '-m', 'P.10');
    const want = readFileSync(join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.trec_eval-q-l2.txt'), 'utf8')
      .split('\n')
      .filter((l) => /^(map|P_10)\s/.test(l));
    expect(new Set(r.stdout.split('\n').filter((l) => /^(map|P_10)\s/.test(l)))).toEqual(new Set(want));
  });

  it('prints JSON on request', async () => {
    const r = await cli('eval', DL19_QRELS, DL19_RUN, '-m', 'nDCG@10', '--json');
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });

  it('exits 2 for an unknown measure, naming it', async () => {
    const r = await cli('eval', DL19_QRELS, DL19_RUN, '-m', 'bogus_measure');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bogus_measure/);
  });

  it('exits 2 for a malformed run, naming file and line', async () => {
    const bad = join(tmp, 'bad.run');
    writeFileSync(bad, '19335 Q0 1 1 3.0 t\n19335 Q0 2 2 high t\n');
    const r = await cli('eval', DL19_QRELS, bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:2: expected a finite number as score in column 5, got "high"`);
  });
});

describe('fliplab eval: releases, comments, stdin, bad qrels', () => {
  it('--trec-eval 9.0.8 refuses measures 9.0.8 lacks, and an unknown release is a usage error', async () => {
    const r = await cli('eval', '--trec-eval', '9.0.8', '-m', 'rbp', DL19_QRELS, DL19_RUN);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"rbp" is not in trec_eval 9\.0\.8/);
    const v = await cli('eval', '--trec-eval', '8.1', DL19_QRELS, DL19_RUN);
    expect([v.code, v.stderr]).toEqual([2, expect.stringContaining('--trec-eval expects 10.0 or 9.0.8, got "8.1"')]);
    expect((await cli('eval', '-m', 'rbp', DL19_QRELS, DL19_RUN)).code).toBe(0);
  });

  it('reads # comment lines in runs and qrels as trec_eval 10.0 does, and repeated judgments warn once', async () => {
    const qrels = join(tmp, 'commented.qrels');
    const run = join(tmp, 'commented.run');
    writeFileSync(qrels, '# judged by hand\nq1 0 d1 1\nq1 0 d1 1\nq1 0 d2 0\n');
    writeFileSync(run, '# produced by a test\nq1 Q0 d2 1 2 t\n#another\nq1 Q0 d1 2 1 t\n');
    const r = await cli('eval', '-m', 'map', '-m', 'num_ret', qrels, run);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('num_ret               \tall\t2\nmap                   \tall\t0.5000\n');
    expect(r.stderr).toContain(`warning: ${qrels}: 1 repeated judgment line(s) with the same grade were counted once`);
  });

  it('a run none of whose queries is judged is bad input (exit 2), not an internal error', async () => {
    const other = join(tmp, 'other-collection.run');
    writeFileSync(other, 'zz1 Q0 d1 1 1 t\n');
    const r = await cli('eval', DL19_QRELS, other);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/other-collection\.run: no query of this run is judged in .*qrels\.dl19-passage\.txt/);
  });

  it('usage errors from the argument parser read like the others', async () => {
    const r = await cli('eval', DL19_QRELS);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^fliplab: missing required argument 'run'/);
  });

  it('a judgment repeated with another grade is an error with both lines, as before the byte path', async () => {
    const qrels = join(tmp, 'conflict.qrels');
    writeFileSync(qrels, '19335 0 1 1\n19335 0 1 2\n');
    const r = await cli('eval', qrels, DL19_RUN);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${qrels}:2: query "19335" judges document "1" twice with different grades (1 on line 1, 2 here)`);
  });

  it('reads the run from standard input (-), like trec_eval 10.0', async () => {
    const expected = await promisify(execFile)(process.execPath, [
      join(ROOT, 'bin/fliplab.mjs'),
      'eval',
      '-m',
      'ndcg_cut.10',
      DL19_QRELS,
      DL19_RUN,
    ]);
    const piped = await new Promise<string>((resolve, reject) => {
      const child = execFile(process.execPath, [join(ROOT, 'bin/fliplab.mjs'), 'eval', '-m', 'ndcg_cut.10', DL19_QRELS, '-'], (e, out) =>
        e ? reject(e) : resolve(out),
      );
      child.stdin!.end(readFileSync(DL19_RUN));
    });
    expect(piped).toBe(expected.stdout);
    expect(piped).toMatch(/^ndcg_cut_10 {11}\tall\t0\.5058\n$/);
  });
});

describe('depth honesty: eval, flips and compare warn about depths beyond the runs', () => {
  const shallow = join(tmp, 'top50.run');
  const shallow2 = join(tmp, 'top50-b.run');
  beforeAll(async () => {
    const run = (await parseRun(readFileSync(DL19_RUN, 'utf8'), DL19_RUN)).value;
    const lines = (tag: string, swap: boolean): string =>
      [...run.byQuery]
        .flatMap(([q, l]) => {
          const docs = l.docs.slice(0, 50);
          if (swap) [docs[0], docs[1]] = [docs[1]!, docs[0]!];
          return docs.map((d, i) => `${q} Q0 ${d} ${i + 1} ${50 - i} ${tag}`);
        })
        .join('\n') + '\n';
    writeFileSync(shallow, lines('a', false));
    writeFileSync(shallow2, lines('b', true));
  });

  it('compare --depths 10,100 on 50-deep runs: a warning per run on stderr and in the JSON', async () => {
    const r = await cli('compare', '--reference', shallow, '--candidate', shallow2, '--depths', '10,100', '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${shallow}: depth 100 exceeds the depth of run "top50.run" (at most 50 documents per query)`);
    const json = JSON.parse(r.stdout) as { warnings: { run: string; requested: number; runDepth: number }[] };
    expect(json.warnings.map((w) => [w.run, w.requested, w.runDepth])).toEqual([
      ['top50.run', 100, 50],
      ['top50-b.run', 100, 50],
    ]);
    const fine = await cli('compare', '--reference', shallow, '--candidate', shallow2, '--depths', '10,50', '--json');
    expect([fine.stderr, (JSON.parse(fine.stdout) as { warnings: unknown[] }).warnings]).toEqual(['', []]);
  });

  it('compare --name names the runs (reference first) in the JSON, as flips --name does', async () => {
    const r = await cli('compare', '--reference', shallow, '--candidate', shallow2, '--name', 'ref', '--name', 'cand', '--json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { runs: { name: string; role: string }[] };
    expect(json.runs.map((x) => [x.name, x.role])).toEqual([
      ['ref', 'reference'],
      ['cand', 'candidate'],
    ]);
    const bad = await cli('compare', '--reference', shallow, '--candidate', shallow2, '--name', 'only-one');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--name was given 1 time\(s\) for 2 runs/);
  });

  it('flips warns the same way', async () => {
    const r = await cli('flips', DL19_QRELS, '--reference', shallow, '--candidate', shallow2, '--depths', '10,100', '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/depth 100 exceeds the depth of run "top50-b\.run"/);
    expect((JSON.parse(r.stdout) as { warnings: unknown[] }).warnings).toHaveLength(2);
  });

  it('a depth some queries do not reach is named with their count', async () => {
    const uneven = join(tmp, 'uneven.run');
    writeFileSync(uneven, 'q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\nq2 Q0 d1 1 1 t\n');
    const r = await cli('compare', '--reference', uneven, '--candidate', uneven, '--depths', '1,3', '--json');
    expect(r.stderr).toContain('depth 3: 1 of 2 queries of run "uneven.run" rank fewer than 3 documents');
    expect((JSON.parse(r.stdout) as { warnings: { shortQueries: number; queries: number }[] }).warnings[0]).toMatchObject({
      shortQueries: 1,
      queries: 2,
    });
  });

  it('eval warns for a cutoff asked for by value, not for the defaults of a measure set', async () => {
    const r = await cli('eval', '-m', 'P.10,100', '-m', 'nDCG@200', DL19_QRELS, shallow);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('cutoff P_100 exceeds the depth of run "a" (at most 50 documents per query)');
    expect(r.stderr).toContain('cutoff ndcg_cut_200 exceeds');
    expect(r.stderr).not.toContain('P_10 ');
    const official = await cli('eval', DL19_QRELS, shallow);
    expect(official.stderr).toBe('');
    const json = await cli('eval', '-m', 'P.100', '--json', DL19_QRELS, shallow);
    expect((JSON.parse(json.stdout) as { warnings: { requested: number }[] }).warnings.map((w) => w.requested)).toEqual([100]);
  });
});

// A candidate that reverses each DL19 query's top 20: some queries keep support at k = 10, others lose it.
const candidatePath = join(tmp, 'reversed.run');

describe('fliplab flips', () => {
  beforeAll(async () => {
    const run = (await parseRun(readFileSync(DL19_RUN, 'utf8'), DL19_RUN)).value;
    const lines: string[] = [];
    for (const [q, list] of run.byQuery) {
      const docs = [...list.docs.slice(0, 20)].reverse().concat(list.docs.slice(20));
      docs.forEach((d, i) => lines.push(`${q} Q0 ${d} ${i + 1} ${docs.length - i} reversed`));
    }
    writeFileSync(candidatePath, `${lines.join('\n')}\n`);
  });

  it('emits the JSON contract', async () => {
    const r = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ queries: 43, label: 'any' });
    expect(report.depths.map((d: { k: number }) => d.k)).toEqual([1, 5, 10, 20, 50]);
    const block = report.depths[2];
    expect(Object.keys(block)).toEqual(['k', 'reference', 'candidates']);
    expect(Object.keys(block.reference)).toEqual(['name', 'supported', 'unjudged_at_k']);
    expect(Object.keys(block.candidates[0])).toEqual([
      'name',
      'supported',
      'preserved',
      'broken',
      'fixed',
      'unchanged',
      'fix_rate',
      'negative_flip_rate',
      'compatibility',
      'net_gain',
      'unjudged_at_k',
      'broken_with_unjudged',
      'fixed_with_unjudged',
      'negative_flip_rate_low',
      'nfr_all',
      'btc',
      'bec',
    ]);
    expect(Object.keys(block.candidates[0].net_gain)).toEqual(['value', 'lo', 'hi']);
    expect(Object.keys(report.hybrids[0])).toEqual(
      expect.arrayContaining(['k', 'candidate', 'method', 'budget', 'broken', 'fixed', 'net_gain']),
    );
    expect(report.paired).toEqual([]);
    expect(report.strata.length).toBeGreaterThan(0);
    // At k = 20 the reversal keeps the same 20 documents: nothing can break.
    expect(report.depths[3].candidates[0].broken).toBe(0);
  });

  it('pairs every two candidates with McNemar and Holm', async () => {
    const r = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--candidate', DL19_RUN, '--json');
    const report = JSON.parse(r.stdout);
    expect(report.paired).toHaveLength(5);
    expect(Object.keys(report.paired[0])).toEqual(['k', 'a', 'b', 'only_a', 'only_b', 'p', 'p_holm']);
    expect(report.paired[0]).toMatchObject({ a: 'reversed.run', b: 'run.msmarco-v1-passage.bm25-default.dl19.txt#2', only_b: 0 });
  });

  it('gates on the negative-flip rate: exit 1 above the threshold, 0 at or below', async () => {
    const strict = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--max-nfr', '0', '--at', '1');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/gate: "reversed\.run" negative-flip rate at k = 1 is \d+\.\d\d% > 0\.00%/);
    const loose = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--max-nfr', '100%', '--at', '1');
    expect(loose.code).toBe(0);
    const same = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', DL19_RUN, '--max-nfr', '0');
    expect(same.code).toBe(0);
  });

  it('exits 2 for bad flags and bad files', async () => {
    expect((await cli('flips', DL19_QRELS, '--reference', DL19_RUN)).code).toBe(2);
    expect((await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--label', 'some')).code).toBe(2);
    expect((await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--max-nfr', '2')).code).toBe(2);
    const dup = join(tmp, 'dup.run');
    writeFileSync(dup, '19335 Q0 1 1 3 t\n19335 Q0 1 2 2 t\n');
    const r = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', dup);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${dup}:2: document "1" appears twice for query "19335" (first on line 1)`);
  });

  it('--name names the runs as the lab does (reference first), so both export the same names', async () => {
    const named = await cli(
      'flips',
      DL19_QRELS,
      '--reference',
      DL19_RUN,
      '--candidate',
      candidatePath,
      '--name',
      'bm25',
      '--name',
      'bge-large',
      '--json',
    );
    expect(named.code).toBe(0);
    const report = JSON.parse(named.stdout) as { runs: { name: string; role: string }[] };
    expect(report.runs.map((r) => [r.name, r.role])).toEqual([
      ['bm25', 'reference'],
      ['bge-large', 'candidate'],
    ]);
    const plain = JSON.parse(
      (await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--json')).stdout,
    ) as typeof report;
    expect(plain.runs.map((r) => r.name)).toEqual([DL19_RUN.split('/').pop(), candidatePath.split('/').pop()]);

    const tooFew = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--name', 'bm25');
    expect(tooFew.code).toBe(2);
    expect(tooFew.stderr).toMatch(/--name was given 1 time\(s\) for 2 runs/);
    const same = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath, '--name', 'x', '--name', 'x');
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/--name "x" names two runs/);
  });

  it('prints readable tables by default', async () => {
    const r = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', candidatePath);
    expect(r.stdout).toMatch(/k = 10: reference supports \d+ of 43/);
    expect(r.stdout).toMatch(/negative-flip rate/);
  });
});

describe('fliplab bm25 --rm3 and fliplab ql', () => {
  it('write the same runs as the core functions, named as the lab names them', async () => {
    const col = await loadBeirFolder(TINY, 'test');
    const selected = selectEvaluationQueries(col.qrels, col.queries);
    const bm25 = buildBm25Index(col.corpus);
    const lex = buildLexicalIndex(col.corpus);
    const cases = [
      {
        argv: ['bm25', TINY, '--rm3', '--fb-docs', '3'],
        want: runRm3(lex, col.corpus, col.queries, selected, 1000, (t, n) => searchBm25(bm25, t, n), { fbDocs: 3 }),
        name: 'bm25-rm3-fb_docs=3-fb_terms=10-w=0.5',
        settings: /\(k1 = 1\.5, b = 0\.75, fb_docs = 3, fb_terms = 10, original query weight = 0\.5\)/,
      },
      { argv: ['ql', TINY], want: runQl(lex, col.corpus, col.queries, selected, 1000), name: 'ql', settings: /\(Dirichlet μ = 1000\)/ },
      {
        argv: ['ql', TINY, '--mu', '250'],
        want: runQl(lex, col.corpus, col.queries, selected, 1000, 250),
        name: 'ql-mu=250',
        settings: /μ = 250/,
      },
    ];
    for (const c of cases) {
      const out = join(tmp, `${c.name}.txt`);
      const r = await cli(...c.argv, '--out', out);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(c.settings);
      const run = (await parseRun(readFileSync(out, 'utf8'), out)).value;
      expect(run.name).toBe(c.name);
      expect(c.want.name).toBe(c.name);
      expect([...run.byQuery.keys()]).toEqual([...c.want.byQuery.keys()]);
      for (const [qid, list] of c.want.byQuery) expect(run.byQuery.get(qid)!.docs, `${c.name} ${qid}`).toEqual(list.docs);
    }
  });

  it('reject bad feedback settings and μ with exit 2', async () => {
    expect((await cli('ql', TINY, '--mu', '0')).stderr).toMatch(/--mu expects a number > 0, got "0"/);
    expect((await cli('bm25', TINY, '--rm3', '--fb-docs', '0')).code).toBe(2);
    expect((await cli('bm25', TINY, '--rm3', '--original-query-weight', '2')).stderr).toMatch(
      /--original-query-weight expects a number in \[0, 1\]/,
    );
  });
});

describe('fliplab demo and BM25 run names', () => {
  it('bm25 tags a run with the name the lab gives the same settings', async () => {
    const out = join(tmp, 'tiny.k1.txt');
    expect((await cli('bm25', TINY, '--k1', '1.2', '--out', out)).code).toBe(0);
    expect((await parseRun(readFileSync(out, 'utf8'), out)).value.name).toBe('bm25-k1=1.2-b=0.75');
    const tagged = join(tmp, 'tiny.tag.txt');
    expect((await cli('bm25', TINY, '--k1', '1.2', '--tag', 'mine', '--out', tagged)).code).toBe(0);
    expect((await parseRun(readFileSync(tagged, 'utf8'), tagged)).value.name).toBe('mine');
  });

  it("demo opens the lab's #demo on the classroom collection: broken and fixed queries, on one screen", async () => {
    const r = await cli('demo');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^fliplab demo on examples\/demo-beir \(the lab's #demo\): 88 passages, 32 judged queries\n/);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(45);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    // The headline (its sentences wrapped at 100 columns), then the tables and the flipped queries.
    const headline = demoHeadline(r.stdout);
    const counts = headline.map((s) => {
      const m =
        /^Replacing bm25 by (\S+) at k = 3 fixes (\d+) and breaks (\d+) of 32 queries \(net [+-]?\d+\); nDCG@10 0\.\d{3} → 0\.\d{3}\.$/.exec(
          s,
        );
      expect(m, s).not.toBeNull();
      return { name: m![1]!, fixed: Number(m![2]), broken: Number(m![3]) };
    });
    expect(counts.map((c) => c.name)).toEqual(['bm25-rm3', 'ql']);
    expect(counts.reduce((n, c) => n + c.broken, 0)).toBeGreaterThan(0);
    expect(counts.reduce((n, c) => n + c.fixed, 0)).toBeGreaterThan(0);
    for (const section of ['Broken / fixed at each depth k', 'Transitions at k = 3: bm25 supports', "Is nDCG@10's change real?"])
      expect(r.stdout).toContain(section);
    expect(r.stdout).toMatch(/\nbm25-rm3 +32 +[+-]0\.\d{4} \[/);
    // Each broken and fixed query is listed with its text, as many as the headline counts.
    const listed = r.stdout.split('Which queries flip at k = 3\n')[1]!.split('\n\n')[0]!.split('\n');
    const byState = { broken: new Map<string, number>(), fixed: new Map<string, number>() };
    let name = '';
    let state: 'broken' | 'fixed' = 'broken';
    for (const line of listed) {
      const m = /^ {2}(\S*) +(broken|fixed)? *(q\d+) +(\S.*)$/.exec(line);
      expect(m, line).not.toBeNull();
      name = m![1] || name;
      state = (m![2] as typeof state | undefined) ?? state;
      byState[state].set(name, (byState[state].get(name) ?? 0) + 1);
    }
    for (const c of counts) {
      expect(byState.broken.get(c.name) ?? 0, `${c.name} broken`).toBe(c.broken);
      expect(byState.fixed.get(c.name) ?? 0, `${c.name} fixed`).toBe(c.fixed);
    }
  });

  it('demo on another BEIR folder uses the lab’s k = 10 and depths; -k and --depths choose others', async () => {
    const scifact = join(SHARED_DATA, 'scifact');
    const r = await cli('demo', scifact);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`fliplab demo on ${scifact}: 5,183 passages, 300 judged queries`);
    expect(r.stdout).toMatch(/\nReplacing bm25 by bm25-rm3 at k = 10 fixes \d+ and breaks \d+ of 300 queries/);
    expect(r.stdout).toMatch(/\ncandidate +k = 1 +k = 5 +k = 10 +k = 20 +k = 50\n/);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(45);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    const small = await cli('demo', '-k', '2', '--depths', '1,5');
    expect(small.stdout).toMatch(/\nReplacing bm25 by ql at k = 2 /);
    expect(small.stdout).toMatch(/\ncandidate +k = 1 +k = 2 +k = 5\n/);
  });

  it('demo --bm25-variants keeps the paper’s within-BM25 check', async () => {
    const r = await cli('demo', TINY, '--bm25-variants');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`fliplab demo --bm25-variants on ${TINY}: 12 passages, 8 judged queries`);
    for (const name of ['bm25', 'bm25-k1=1.2-b=0.75', 'bm25-k1=1.5-b=0.65']) expect(r.stdout).toContain(`== ${name}\n`);
  });
});

describe('the installed bin', () => {
  it('--version prints the version in package.json', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli('--version');
    expect([r.code, r.stdout.trim()]).toEqual([0, pkg.version]);
  });

  const run = promisify(execFile);
  it('eval, bm25, flips and compare never load onnxruntime, transformers.js or sharp; search does', async () => {
    // a module resolve hook (node:module register) records every specifier the real bin imports, and a
    // patched Module._load every one it requires (the bundle is CommonJS: its packages come through require)
    const log = join(tmp, 'imports.log');
    writeFileSync(
      join(tmp, 'require-hook.cjs'),
      "const Module = require('node:module');\nconst { appendFileSync } = require('node:fs');\nconst load = Module._load;\n" +
        'Module._load = function (request, ...rest) {\n' +
        '  appendFileSync(process.env.FLIPLAB_IMPORT_LOG, request + "\\n");\n' +
        '  return load.call(this, request, ...rest);\n};\n',
    );
    writeFileSync(
      join(tmp, 'hooks.mjs'),
      "import { appendFileSync } from 'node:fs';\n" +
        'export async function resolve(specifier, context, next) {\n' +
        '  appendFileSync(process.env.FLIPLAB_IMPORT_LOG, specifier + "\\n");\n' +
        '  return next(specifier, context);\n}\n',
    );
    writeFileSync(join(tmp, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    const heavy = (argv: string[]): Promise<string[]> => {
      writeFileSync(log, '');
      return run(
        process.execPath,
        ['--require', join(tmp, 'require-hook.cjs'), '--import', join(tmp, 'register.mjs'), join(ROOT, 'bin/fliplab.mjs'), ...argv],
        {
          env: { ...process.env, FLIPLAB_IMPORT_LOG: log, HOME: tmp, XDG_CACHE_HOME: tmp },
        },
      )
        .catch(() => undefined)
        .then(() =>
          readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => /onnxruntime|transformers|sharp/.test(l)),
        );
    };
    expect(await heavy(['eval', DL19_QRELS, DL19_RUN])).toEqual([]);
    expect(await heavy(['bm25', TINY])).toEqual([]);
    expect(await heavy(['flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', DL19_RUN])).toEqual([]);
    expect(await heavy(['compare', DL19_RUN, DL19_RUN])).toEqual([]);
    // the probe can see them: a search that loads a model resolves transformers.js
    expect(await heavy(['search', TINY, '--model', 'bge-large', '--host', 'http://127.0.0.1:9/'])).not.toEqual([]);
  });

  it('demo without a folder finds the bundled example from the compiled CLI, and a closed pipe ends it quietly', async () => {
    const demo = await run(process.execPath, [join(ROOT, 'bin/fliplab.mjs'), 'demo']);
    expect(demo.stdout).toMatch(/^fliplab demo on examples\/demo-beir \(the lab's #demo\): 88 passages, 32 judged queries/);
    // `| head -1`: the reader goes away after one line; no EPIPE stack trace, exit 0
    const piped = await run('/bin/sh', [
      '-c',
      `"${process.execPath}" "${join(ROOT, 'bin/fliplab.mjs')}" eval -q -m all_trec "${DL19_QRELS}" "${DL19_RUN}" | head -1`,
    ]);
    expect(piped.stdout).toMatch(/^num_ret/);
    expect(piped.stderr).toBe('');
  });

  it('runs through node like npx would, with real exit statuses', async () => {
    const help = await run(process.execPath, [join(ROOT, 'bin/fliplab.mjs'), '--help']);
    expect(help.stdout).toMatch(/Usage: fliplab/);
    const gate = await run(process.execPath, [
      join(ROOT, 'bin/fliplab.mjs'),
      'flips',
      DL19_QRELS,
      '--reference',
      DL19_RUN,
      '--candidate',
      candidatePath,
      '--max-nfr',
      '0',
      '--at',
      '1',
    ]).catch((e: { code: number }) => e);
    expect((gate as { code: number }).code).toBe(1);
  });
});
