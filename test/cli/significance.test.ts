/**
 * `fliplab significance` against a literal computation of its definitions, written here (not taken from the
 * core), on TREC DL 2019's BM25 run against runs derived from it. Per-query values come from `fliplab eval
 * -q --json` (trec_eval's, byte for byte: test/parity); with d_i = candidate_i − reference_i over the
 * queries both are evaluated on:
 *   t = mean(d) / (sd(d)/√n), sd with n − 1;   p_t from the closed-form series of Student's t for integer ν
 *   (Abramowitz & Stegun 26.7.3–4), not the incomplete beta;   d_z = mean(d)/sd(d);
 *   URisk_α = mean(d'), d'_i = d_i if d_i ≥ 0 else (1 + α)d_i;   TRisk_α = URisk_α / (sd(d')/√n);
 *   Holm and Benjamini–Hochberg from their textbook definitions over the family (every candidate × measure).
 * On 14 queries, the randomization p equals exact enumeration of all 2^14 sign assignments within its Monte
 * Carlo interval.
 */
import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('significance');
const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const QRELS = join(DL19, 'qrels.dl19-passage.txt');
const REF = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');

/** Runs derived from BM25 by fixed rules: the top 20 rotated, the top 10 reversed on odd queries, three dropped. */
function derivedRuns(): string[] {
  const lists = new Map<string, string[]>();
  for (const line of readFileSync(REF, 'utf8').trim().split('\n')) {
    const [q, , d] = line.split(/\s+/);
    if (!lists.has(q!)) lists.set(q!, []);
    lists.get(q!)!.push(d!);
  }
  const rules: Record<string, (q: string, d: string[], i: number) => string[]> = {
    rotated: (_q, d, i) => [...d.slice(i % 7, 20), ...d.slice(0, i % 7), ...d.slice(20)],
    reversed: (_q, d, i) => (i % 2 === 1 ? [...d.slice(0, 10).reverse(), ...d.slice(10)] : d),
    dropped: (_q, d, i) => (i % 3 === 0 ? d.slice(3) : d),
  };
  return Object.entries(rules).map(([name, rule]) => {
    const lines: string[] = [];
    [...lists].forEach(([q, docs], i) => rule(q, docs, i).forEach((d, r) => lines.push(`${q} Q0 ${d} ${r + 1} ${1000 - r} ${name}`)));
    const path = join(tmp, `${name}.run`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  });
}

/** Per-query values of `measure` by `fliplab eval -q --json`. */
async function perQuery(qrels: string, run: string, measure: string, extra: string[] = []): Promise<Map<string, number>> {
  const out = await cli('eval', qrels, run, '-q', '-m', measure, '--json', ...extra);
  expect(out.code, out.stderr).toBe(0);
  const json = JSON.parse(out.stdout) as { queries: { qid: string; values: Record<string, number> }[] };
  const name = measure === 'ndcg_cut.10' ? 'ndcg_cut_10' : measure;
  return new Map(json.queries.filter((q) => q.qid !== 'all').map((q) => [q.qid, q.values[name]!]));
}

/** Two-sided p of Student's t for integer ν, from A&S 26.7.3 (odd ν) and 26.7.4 (even ν). */
function tTail(t: number, nu: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(nu));
  const c2 = Math.cos(theta) ** 2;
  let a: number;
  if (nu % 2 === 0) {
    let term = 1;
    let sum = 1;
    for (let k = 2; k <= nu - 2; k += 2) {
      term *= ((k - 1) / k) * c2;
      sum += term;
    }
    a = Math.sin(theta) * sum;
  } else {
    let sum = 0;
    if (nu > 1) {
      let term = 1;
      sum = 1;
      for (let k = 3; k <= nu - 2; k += 2) {
        term *= ((k - 1) / k) * c2;
        sum += term;
      }
    }
    a = (2 / Math.PI) * (theta + Math.sin(theta) * Math.cos(theta) * sum);
  }
  return 1 - a;
}

const mean = (x: readonly number[]) => x.reduce((s, v) => s + v, 0) / x.length;
const sd = (x: readonly number[]) => {
  const m = mean(x);
  return Math.sqrt(x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1));
};

function holmLiteral(p: readonly number[]): number[] {
  const sorted = [...p].map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const out = new Array<number>(p.length);
  sorted.forEach(({ i }, rank) => {
    out[i] = Math.min(1, Math.max(...sorted.slice(0, rank + 1).map((s, j) => (p.length - j) * s.v)));
  });
  return out;
}

function bhLiteral(p: readonly number[]): number[] {
  const sorted = [...p].map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const out = new Array<number>(p.length);
  sorted.forEach(({ i }, rank) => {
    out[i] = Math.min(1, ...sorted.slice(rank).map((s, j) => (p.length * s.v) / (rank + j + 1)));
  });
  return out;
}

interface Row {
  candidate: string;
  measure: string;
  n: number;
  mean_reference: number;
  mean_candidate: number;
  mean_diff: number;
  t: number;
  p_t: number;
  p_randomization: number;
  p_randomization_ci95: [number, number];
  ci95: [number, number];
  d_z: number;
  wins: number;
  losses: number;
  ties: number;
  risk: Record<string, { urisk: number; trisk: number }>;
  p_t_adjusted: number;
  p_randomization_adjusted: number;
}

describe('fliplab significance', () => {
  const runs = derivedRuns();

  it.each(['holm', 'bh'] as const)('equals the literal definitions on TREC DL 2019 (%s)', async (correction) => {
    const out = await cli(
      'significance',
      QRELS,
      '--reference',
      REF,
      ...runs.flatMap((r) => ['--candidate', r]),
      '-l',
      '2',
      '--correction',
      correction,
      '--permutations',
      '2000',
      '--bootstrap',
      '2000',
      '--json',
    );
    expect(out.code, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout) as { reference: string; family: Record<string, unknown>; rows: Row[] };
    expect(report.family).toMatchObject({ correction, permutations: 2000, bootstrap: 2000, seed: 42 });
    expect(report.rows).toHaveLength(6);
    const pT: number[] = [];
    for (const row of report.rows) {
      expect(Object.keys(row).sort()).toEqual(
        [
          'candidate',
          'measure',
          'n',
          'mean_reference',
          'mean_candidate',
          'mean_diff',
          't',
          'p_t',
          'p_randomization',
          'p_randomization_ci95',
          'ci95',
          'd_z',
          'wins',
          'losses',
          'ties',
          'risk',
          'p_t_adjusted',
          'p_randomization_adjusted',
        ].sort(),
      );
      const measure = row.measure === 'ndcg_cut_10' ? 'ndcg_cut.10' : row.measure;
      const run = runs.find((r) => r.endsWith(`${row.candidate}`))!;
      const ref = await perQuery(QRELS, REF, measure, ['-l', '2']);
      const cand = await perQuery(QRELS, run, measure, ['-l', '2']);
      const queries = [...ref.keys()].filter((q) => cand.has(q));
      const d = queries.map((q) => cand.get(q)! - ref.get(q)!);
      const n = d.length;
      const t = mean(d) / (sd(d) / Math.sqrt(n));
      expect(row.n).toBe(n);
      expect(Math.abs(row.mean_reference - mean(queries.map((q) => ref.get(q)!)))).toBeLessThan(1e-12);
      expect(Math.abs(row.mean_diff - mean(d))).toBeLessThan(1e-12);
      expect(Math.abs(row.t - t)).toBeLessThan(1e-9);
      expect(Math.abs(row.p_t - tTail(t, n - 1))).toBeLessThan(1e-9);
      expect(Math.abs(row.d_z - mean(d) / sd(d))).toBeLessThan(1e-9);
      expect([row.wins, row.losses, row.ties]).toEqual([
        d.filter((x) => x > 0).length,
        d.filter((x) => x < 0).length,
        d.filter((x) => x === 0).length,
      ]);
      for (const alpha of [1, 5]) {
        const w = d.map((x) => (x >= 0 ? x : (1 + alpha) * x));
        expect(Math.abs(row.risk[String(alpha)]!.urisk - mean(w))).toBeLessThan(1e-9);
        expect(Math.abs(row.risk[String(alpha)]!.trisk - mean(w) / (sd(w) / Math.sqrt(n)))).toBeLessThan(1e-9);
      }
      expect(row.ci95[0]).toBeLessThan(row.mean_diff);
      expect(row.ci95[1]).toBeGreaterThan(row.mean_diff);
      expect(row.p_randomization_ci95[0]).toBeLessThanOrEqual(row.p_randomization);
      pT.push(row.p_t);
    }
    const adjusted = correction === 'holm' ? holmLiteral(pT) : bhLiteral(pT);
    report.rows.forEach((row, i) => expect(Math.abs(row.p_t_adjusted - adjusted[i]!)).toBeLessThan(1e-9));
  });

  it('on 14 queries, the randomization p is exact enumeration within its Monte Carlo interval', async () => {
    const kept = [
      ...new Set(
        readFileSync(QRELS, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(/\s+/)[0]!),
      ),
    ].slice(0, 14);
    const qrels = join(tmp, 'qrels-14.txt');
    writeFileSync(
      qrels,
      readFileSync(QRELS, 'utf8')
        .split('\n')
        .filter((l) => kept.includes(l.split(/\s+/)[0]!))
        .join('\n'),
    );
    const out = await cli('significance', qrels, '--reference', REF, '--candidate', runs[0]!, '-m', 'ndcg_cut.10', '--json');
    expect(out.code, out.stderr).toBe(0);
    const row = (JSON.parse(out.stdout) as { rows: Row[] }).rows[0]!;
    const ref = await perQuery(qrels, REF, 'ndcg_cut.10');
    const cand = await perQuery(qrels, runs[0]!, 'ndcg_cut.10');
    const d = [...ref.keys()].map((q) => cand.get(q)! - ref.get(q)!);
    expect(d).toHaveLength(14);
    const observed = Math.abs(d.reduce((a, b) => a + b, 0));
    const scale = d.reduce((a, b) => a + Math.abs(b), 0);
    let hits = 0;
    for (let mask = 0; mask < 2 ** 14; mask++) {
      const s = d.reduce((acc, x, i) => acc + (mask & (1 << i) ? x : -x), 0);
      if (Math.abs(s) >= observed - 1e-11 * scale) hits++;
    }
    const exact = hits / 2 ** 14;
    expect(row.p_randomization_ci95[0]).toBeLessThanOrEqual(exact);
    expect(row.p_randomization_ci95[1]).toBeGreaterThanOrEqual(exact);
  });

  it('gives the same numbers for the same seed, and other random numbers for another', async () => {
    const args = [
      'significance',
      QRELS,
      '--reference',
      REF,
      '--candidate',
      runs[1]!,
      '-m',
      'recip_rank',
      '--permutations',
      '500',
      '--bootstrap',
      '500',
      '--json',
    ];
    const a = JSON.parse((await cli(...args)).stdout) as { rows: Row[] };
    const b = JSON.parse((await cli(...args)).stdout) as { rows: Row[] };
    const c = JSON.parse((await cli(...args, '--seed', '7')).stdout) as { rows: Row[] };
    expect(a).toEqual(b);
    expect(c.rows[0]!.ci95).not.toEqual(a.rows[0]!.ci95);
    expect(c.rows[0]!.t).toBe(a.rows[0]!.t);
  });

  it('prints one table per measure with the family named, and a Tukey table with its groups', async () => {
    const out = await cli(
      'significance',
      QRELS,
      '--reference',
      REF,
      ...runs.flatMap((r) => ['--candidate', r]),
      '-l',
      '2',
      '--permutations',
      '500',
      '--bootstrap',
      '500',
      '--tukey',
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/Family: Holm over 6 tests \(3 candidates × 2 measures\); 500 sign flips, 500 bootstrap resamples, seed 42/);
    expect(out.stdout).toMatch(/^ndcg_cut_10\ncandidate +n +reference mean +candidate mean +Δ \[95% CI\]/m);
    expect(out.stdout).toMatch(/^rotated\.run +43 +0\.5058 /m);
    expect(out.stdout).toMatch(/Tukey HSD \(randomized\), ndcg_cut_10, 43 queries every system answers/);
    expect(out.stdout).toMatch(/groups the test cannot tell apart at α = 0\.05:\n {2}a: /);
  });

  it("flips --significance carries the lab's tests: the significance command's rows on the lab's measures, and a report section", async () => {
    const markdown = join(tmp, 'report.md');
    const latex = join(tmp, 'tables.tex');
    const flips = await cli(
      'flips',
      QRELS,
      '--reference',
      REF,
      '--candidate',
      runs[0]!,
      '-l',
      '2',
      '--significance',
      '--json',
      '--report',
      markdown,
      '--latex',
      latex,
    );
    expect(flips.code, flips.stderr).toBe(0);
    const carried = (JSON.parse(flips.stdout) as { significance: { rows: Row[]; family: { bootstrap: number } } }).significance;
    const measures = ['recip_rank_cut.10', 'ndcg_cut.10', 'ncg_cut.100', 'recall.10', 'recall.100', 'map'];
    const direct = await cli(
      'significance',
      QRELS,
      '--reference',
      REF,
      '--candidate',
      runs[0]!,
      '-l',
      '2',
      ...measures.flatMap((m) => ['-m', m]),
      '--bootstrap',
      String(carried.family.bootstrap),
      '--json',
    );
    const rows = (JSON.parse(direct.stdout) as { rows: Row[] }).rows;
    const sorted = (r: Row[]) => [...r].sort((a, b) => a.measure.localeCompare(b.measure));
    expect(sorted(carried.rows)).toEqual(sorted(rows));
    const md = readFileSync(markdown, 'utf8');
    expect(md).toMatch(/## Is the difference real\?/);
    expect(md).toMatch(/nDCG@10: candidates against run\.msmarco/);
    // One dagger per adjusted p below 0.05, in both adjusted columns.
    const marked = rows.reduce((n, r) => n + (r.p_t_adjusted < 0.05 ? 1 : 0) + (r.p_randomization_adjusted < 0.05 ? 1 : 0), 0);
    expect(marked).toBeGreaterThan(0);
    expect(md.match(/ † \|/g)?.length ?? 0).toBe(marked);
    expect(readFileSync(latex, 'utf8')).toMatch(/\\caption\{nDCG@10: candidates against/);
  });

  it('refuses bad input with a clear message, before reading any run', async () => {
    const base = ['significance', QRELS, '--reference', REF];
    const cases: [string[], RegExp][] = [
      [[], /at least one --candidate/],
      [['--candidate', runs[0]!, '-m', 'nope'], /nope/],
      [['--candidate', runs[0]!, '-m', 'num_q'], /no per-query values/],
      [['--candidate', runs[0]!, '--correction', 'sidak'], /--correction expects one of holm, bonferroni, bh, none/],
      [['--candidate', runs[0]!, '--risk-alpha', '1,x'], /--risk-alpha expects/],
      [['--candidate', runs[0]!, '--permutations', '0'], /--permutations expects/],
      [['--candidate', '/nonexistent/run'], /nonexistent/],
    ];
    for (const [extra, message] of cases) {
      const out = await cli(...base, ...extra);
      expect(out.code, extra.join(' ')).not.toBe(0);
      expect(out.stderr).toMatch(message);
    }
  });

  it('says which file and line a malformed run breaks at', async () => {
    const bad = join(tmp, 'bad.run');
    writeFileSync(bad, '19335 Q0 1017759 1 10.5 bad\n19335 Q0 1082489 two 9.0 bad\n');
    const out = await cli('significance', QRELS, '--reference', REF, '--candidate', bad);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/bad\.run:2/);
  });
});
