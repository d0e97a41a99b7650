import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { compareRuns } from '../../src/core/agreement/index.ts';
import { analyzeFlips } from '../../src/core/flips/index.ts';
import { parseQrels, parseRun } from '../../src/core/io/trec.ts';
import { flipReportJson } from '../../src/report/json.ts';
import { importedRecipe } from '../../src/report/recipe.ts';
import { trecEvalText } from '../../src/report/metrics.ts';
import { perQueryCsv } from '../../src/report/per-query.ts';

import { SCIFACT_DIR, SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const DL19_QRELS = join(DL19, 'qrels.dl19-passage.txt');
const DL19_RUN = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');
const SCIFACT = SCIFACT_DIR;

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const tmp = tempDir('exports');
const read = async (path: string, name?: string) => (await parseRun(readFileSync(path, 'utf8'), path, name)).value;
// A candidate that reverses each DL19 query's top 20 and drops the first query.
const reversed = join(tmp, 'reversed.run');

beforeAll(async () => {
  const run = await read(DL19_RUN);
  const lines: string[] = [];
  let first = true;
  for (const [q, list] of run.byQuery) {
    if (first) {
      first = false;
      continue;
    }
    const docs = [...list.docs.slice(0, 20)].reverse().concat(list.docs.slice(20));
    docs.forEach((d, i) => lines.push(`${q} Q0 ${d} ${i + 1} ${docs.length - i} reversed`));
  }
  writeFileSync(reversed, `${lines.join('\n')}\n`);
});

describe('exports equal the CLI output', () => {
  it('flipReportJson(analyzeFlips(...)) is byte for byte `flips --json` (with and without --per-query)', async () => {
    const qrels = (await parseQrels(readFileSync(DL19_QRELS, 'utf8'), DL19_QRELS)).value;
    const ref = await read(DL19_RUN, 'run.msmarco-v1-passage.bm25-default.dl19.txt');
    const cand = await read(reversed, 'reversed.run');
    for (const perQuery of [false, true]) {
      const r = await cli(
        'flips',
        DL19_QRELS,
        '--reference',
        DL19_RUN,
        '--candidate',
        reversed,
        '--json',
        ...(perQuery ? ['--per-query'] : []),
      );
      expect(r.code).toBe(0);
      // Runs from files carry their recipe: the file, its lines and queries.
      const recipes = {
        [ref.name]: importedRecipe(
          DL19_RUN,
          [...ref.byQuery.values()].reduce((s, l) => s + l.docs.length, 0),
          ref.byQuery.size,
        ),
        [cand.name]: importedRecipe(
          reversed,
          [...cand.byQuery.values()].reduce((s, l) => s + l.docs.length, 0),
          cand.byQuery.size,
        ),
      };
      expect(r.stdout).toBe(flipReportJson(analyzeFlips(qrels, ref, [cand], { perQuery }), [], recipes));
      const parsed = JSON.parse(r.stdout) as { recipes: Record<string, Record<string, string>> };
      expect(parsed.recipes[ref.name]).toEqual({ retriever: 'imported TREC run', file: DL19_RUN, lines: '43,000', queries: '43' });
    }
  });

  it('trecEvalText is byte for byte `fliplab eval` (default measures, -q -m ..., -l 2 -c)', async () => {
    const qrels = (await parseQrels(readFileSync(DL19_QRELS, 'utf8'), DL19_QRELS)).value;
    const run = (await parseRun(readFileSync(DL19_RUN, 'utf8'), DL19_RUN)).value;
    const cases: [string[], Parameters<typeof trecEvalText>[2]][] = [
      [[], {}],
      [['-q', '-m', 'ndcg_cut.10', '-m', 'RR@10', '-m', 'map'], { perQuery: true, measures: ['ndcg_cut.10', 'RR@10', 'map'] }],
      [['-l', '2', '-c', '-m', 'P.5,10', '-M', '100'], { relevanceLevel: 2, complete: true, measures: ['P.5,10'], maxRetrieved: 100 }],
    ];
    for (const [flags, opts] of cases) {
      const r = await cli('eval', DL19_QRELS, DL19_RUN, ...flags);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\tall\t\d/);
      expect(trecEvalText(qrels, run, opts), flags.join(' ')).toBe(r.stdout);
    }
  });
});

describe('fliplab flips --csv / --report', () => {
  it('writes the per-query CSV and keeps stdout unchanged', async () => {
    const csvPath = join(tmp, 'per-query.csv');
    const plain = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', reversed, '--json');
    const r = await cli(
      'flips',
      DL19_QRELS,
      '--reference',
      DL19_RUN,
      '--candidate',
      reversed,
      '--json',
      '--csv',
      csvPath,
      '--depths',
      '1,10',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).per_query).toBeUndefined();
    expect(plain.stdout).not.toBe(r.stdout); // different depths, same shape
    const csv = readFileSync(csvPath, 'utf8');
    const qrels = (await parseQrels(readFileSync(DL19_QRELS, 'utf8'), DL19_QRELS)).value;
    const report = analyzeFlips(
      qrels,
      await read(DL19_RUN, 'run.msmarco-v1-passage.bm25-default.dl19.txt'),
      [await read(reversed, 'reversed.run')],
      {
        depths: [1, 10],
        perQuery: true,
      },
    );
    expect(csv).toBe(perQueryCsv(report));
    const rows = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual([
      'qid',
      'reference',
      'candidate',
      'reference_rank',
      'candidate_rank',
      'state@1',
      'state@10',
      'reference_unjudged@1',
      'reference_unjudged@10',
      'candidate_unjudged@1',
      'candidate_unjudged@10',
    ]);
    expect(rows.length - 1).toBe(43);
    expect(rows.filter((x) => x[6] === 'broken').length).toBe(report.depths[1]!.candidates[0]!.broken);
  });

  it("writes Markdown and HTML reports whose numbers are the JSON report's", async () => {
    const md = join(tmp, 'report.md');
    const html = join(tmp, 'report.html');
    const args = [
      'flips',
      DL19_QRELS,
      '--reference',
      DL19_RUN,
      '--candidate',
      reversed,
      '--collection',
      'DL19 <passage>',
      '--date',
      '2025-02-03',
    ];
    const json = JSON.parse((await cli(...args, '--json')).stdout);
    expect((await cli(...args, '--report', md)).code).toBe(0);
    const r = await cli(...args, '--report', html);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`wrote HTML report to ${html}`);
    const mdText = readFileSync(md, 'utf8');
    const htmlText = readFileSync(html, 'utf8');
    expect(mdText).toContain('- Date: 2025-02-03');
    expect(mdText).toContain('- Collection: DL19 &lt;passage&gt;');
    expect(htmlText).toContain('<dd>DL19 &lt;passage&gt;</dd>');
    const lines = mdText.split('\n');
    for (const d of json.depths) {
      const c = d.candidates[0];
      const caption = lines.indexOf(`**k = ${d.k}: reference supports ${d.reference.supported} of 43**`);
      expect(caption, `k=${d.k}`).toBeGreaterThan(0);
      const row = lines[caption + 4]!; // caption, blank, header, rule, row
      expect(row.split(' | ').slice(0, 6)).toEqual([
        '| reversed.run',
        ...[c.supported, c.preserved, c.broken, c.fixed, c.unchanged].map(String),
      ]);
    }
    // The measures table holds the values `fliplab eval` prints for each run.
    const ev = await cli('eval', DL19_QRELS, DL19_RUN, '-m', 'ndcg_cut.10');
    const ndcg = ev.stdout.split('\t').at(-1)!.trim();
    expect(mdText).toMatch(
      new RegExp(`\\| run\\.msmarco-v1-passage\\.bm25-default\\.dl19\\.txt \\| [0-9.]+ \\| ${ndcg.replace('.', '\\.')} \\|`),
    );
  });

  it('the report names the trec_eval release its measures follow: 10.0 by default, 9.0.8 with --trec-eval 9.0.8', async () => {
    const args = ['flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', reversed];
    const md = join(tmp, 'release.md');
    expect((await cli(...args, '--report', md)).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toContain('trec\\_eval 10.0 values');
    expect((await cli(...args, '--report', md, '--trec-eval', '9.0.8')).code).toBe(0);
    const old = readFileSync(md, 'utf8');
    expect(old).toContain('trec\\_eval 9.0.8 values');
    expect(old).not.toContain('trec\\_eval 10.0');
    const bad = await cli(...args, '--report', md, '--trec-eval', '8');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--trec-eval expects 10.0 or 9.0.8, got "8"')]);
  });

  it('refuses a --report name that is neither .md nor .html, before doing any work', async () => {
    const r = await cli('flips', DL19_QRELS, '--reference', DL19_RUN, '--candidate', reversed, '--report', join(tmp, 'r.pdf'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--report expects a file name ending in \.md or \.html/);
    expect(r.stdout).toBe('');
    const unwritable = await cli(
      'flips',
      DL19_QRELS,
      '--reference',
      DL19_RUN,
      '--candidate',
      reversed,
      '--csv',
      join(tmp, 'no/such/dir.csv'),
    );
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/cannot write .*no\/such\/dir\.csv/);
  });
});

describe('fliplab compare', () => {
  const a = join(tmp, 'scifact.bm25.run');
  const b = join(tmp, 'scifact.bm25-b.run');
  beforeAll(async () => {
    expect((await cli('bm25', SCIFACT, '--depth', '20', '--out', a)).code).toBe(0);
    expect((await cli('bm25', SCIFACT, '--depth', '20', '--b', '0.3', '--out', b)).code).toBe(0);
  });

  it('prints JSON equal to compareRuns on the same files, and a text table', async () => {
    const r = await cli('compare', '--reference', a, '--candidate', b, '--candidate', a, '--depths', '1,5,10', '--json');
    expect(r.code).toBe(0);
    const want = compareRuns(
      await read(a, 'scifact.bm25.run'),
      [await read(b, 'scifact.bm25-b.run'), await read(a, 'scifact.bm25.run#2')],
      [1, 5, 10],
    );
    expect(r.stdout).toBe(`${JSON.stringify({ ...want, warnings: [] }, null, 2)}\n`);
    const report = JSON.parse(r.stdout);
    expect(report.queries).toBe(300);
    // The run against itself agrees perfectly; the b variant less so.
    const k10 = report.depths[2];
    expect(k10.candidates[1].overlap.mean).toBe(1);
    expect(k10.candidates[1].rbo.mean).toBeCloseTo(1 - 0.9 ** 10, 12);
    expect(k10.candidates[0].overlap.mean).toBeLessThan(1);
    expect(k10.candidates[0].overlap.mean).toBeGreaterThan(0.3);
    const text = await cli('compare', '--reference', a, '--candidate', b);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/k = 50: RBO@50 of identical rankings = 0\.995/);
    expect(text.stdout).toMatch(/scifact\.bm25-b\.run\s+\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/);
  });

  it('rejects a malformed run with exit 2 and file:line, and a missing --candidate', async () => {
    const bad = join(tmp, 'bad.run');
    writeFileSync(bad, '1 Q0 d1 1 2.0 t\n1 Q0 d2 x 1.0 t\n');
    const r = await cli('compare', '--reference', a, '--candidate', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:2: expected an integer rank in column 4, got "x"`);
    const none = await cli('compare', '--reference', a);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/compare needs at least one --candidate run/);
    expect((await cli('compare', '--reference', a, '--candidate', b, '--depths', '0')).code).toBe(2);
  });
});
