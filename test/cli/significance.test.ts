/**
 * `fliplab significance` against a literal computation of its definitions, written here (not taken from the
 * core), on TREC DL 2019's BM25 run against runs derived from it. Per-query values come from `fliplab eval
 * -q --json` (trec_eval's, byte for byte: test/parity); with d_i = candidate_i − reference_i over the
 * queries both are evaluated on:
 *   t = mean(d) / (sd(d)/√n), sd with n − 1;   p_t from the closed-form series of Student's t for integer ν
 *   (Abramowitz & Stegun 26.7.3–4), not the incomplete beta;   d_z = mean(d)/sd(d);
 *   URisk_α = mean(d'), d'_i = d_i if d_i ≥ 0 else (1 + α)d_i;   TRisk_α = URisk_α / (sd(d')/√n);
 *   Holm and Benjamini–Hochberg from their textbook definitions over the family (every candidate × measure);
 *   Wilcoxon signed-rank from its ranks and the subset sums of 1..n′ (exact) or its tie-corrected normal
 *   approximation, with Φ integrated here by Simpson's rule; the sign test from binomial coefficients;
 *   the power, MDE and queries needed from R's power.t.test (quoted below with the calls that produced them);
 *   ZRisk and GeoRisk from Dinçer, Macdonald & Ounis's formulas.
 * On 14 queries, the randomization p equals exact enumeration of all 2^14 sign assignments within its Monte
 * Carlo interval; a candidate better on every query gets p = 1/(N + 1), shown as "≤" in every output.
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

/** Φ(x) for x ≤ 0: ½ − ∫₀^|x| φ, by Simpson's rule on 20,000 intervals (error far below 1e-12 for |x| < 8). */
function phiLiteral(x: number): number {
  const b = Math.abs(x);
  const steps = 20_000;
  const h = b / steps;
  const f = (t: number) => Math.exp((-t * t) / 2) / Math.sqrt(2 * Math.PI);
  let sum = f(0) + f(b);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return 0.5 - (sum * h) / 3;
}

/** Wilcoxon signed-rank, two-sided, zeros dropped, no continuity correction, exact or normal as defined. */
function wilcoxonLiteral(d: readonly number[]): { p: number | null; exact: boolean } {
  const x = d.filter((v) => v !== 0);
  const n = x.length;
  if (n === 0) return { p: null, exact: false };
  const abs = x.map(Math.abs);
  const rank = (v: number) => 1 + abs.filter((a) => a < v).length + (abs.filter((a) => a === v).length - 1) / 2;
  const rPlus = x.reduce((s, v) => s + (v > 0 ? rank(Math.abs(v)) : 0), 0);
  const groups = [...new Set(abs)].map((v) => abs.filter((a) => a === v).length);
  const ties = groups.some((t) => t > 1);
  if (!ties && n <= 50) {
    // How many of the 2^n sign patterns give each sum of ranks: the subset sums of 1..n.
    let counts = [1];
    for (let k = 1; k <= n; k++) {
      const next = new Array<number>(counts.length + k).fill(0);
      counts.forEach((c, s) => {
        next[s]! += c;
        next[s + k]! += c;
      });
      counts = next;
    }
    const total = 2 ** n;
    const le = counts.slice(0, rPlus + 1).reduce((a, b) => a + b, 0) / total;
    const ge = counts.slice(rPlus).reduce((a, b) => a + b, 0) / total;
    return { p: Math.min(1, 2 * Math.min(le, ge)), exact: true };
  }
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - groups.reduce((s, t) => s + t ** 3 - t, 0) / 48);
  const z = (rPlus - (n * (n + 1)) / 4) / sigma;
  return { p: Math.min(1, 2 * phiLiteral(-Math.abs(z))), exact: false };
}

/** The exact two-sided sign test: 2·P(X ≤ min(w, l)), X ~ Binomial(w + l, ½), capped at 1. */
function signLiteral(wins: number, losses: number): number | null {
  const n = wins + losses;
  if (n === 0) return null;
  let c = 1;
  let below = 0;
  for (let i = 0; i <= Math.min(wins, losses); i++) {
    below += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * below) / 2 ** n);
}

/**
 * R 4.2.2, for each row (n = 43 queries, sd the sample sd of its differences, delta = |mean_diff|):
 *   power.t.test(n = 43, delta = delta, sd = sd, type = "paired", tol = 1e-13)$power
 *   power.t.test(n = 43, sd = sd, power = 0.8, type = "paired", tol = 1e-13)$delta
 *   ceiling(power.t.test(delta = 0.02, sd = sd, power = 0.8, type = "paired", tol = 1e-13)$n), and delta = 0.05
 * e.g. power.t.test(n=43, delta=0.085671918520755730, sd=0.36746385076421745, type="paired", tol=1e-13)$power.
 */
const FROM_R: Record<string, { sd: number; power: number; mde: number; n: Record<string, number> }> = {
  'rotated recip_rank': { sd: 0.36746385076421745, power: 0.32059463911919661, mde: 0.16070013934361607, n: { '0.02': 2652, '0.05': 426 } },
  'rotated ndcg_cut_10': { sd: 0.13942048942883131, power: 0.90353490019174398, mde: 0.060971690227413423, n: { '0.02': 384, '0.05': 63 } },
  'reversed recip_rank': {
    sd: 0.40928230847813052,
    power: 0.54200241470685651,
    mde: 0.17898828379043669,
    n: { '0.02': 3289, '0.05': 528 },
  },
  'reversed ndcg_cut_10': {
    sd: 0.08274787413382563,
    power: 0.69447039810897915,
    mde: 0.036187491302991211,
    n: { '0.02': 137, '0.05': 24 },
  },
  'dropped recip_rank': {
    sd: 0.31179077311830011,
    power: 0.066922613517713447,
    mde: 0.13635306053088275,
    n: { '0.02': 1910, '0.05': 308 },
  },
  'dropped ndcg_cut_10': { sd: 0.13723622853651757, power: 0.44131615596923068, mde: 0.060016464212588751, n: { '0.02': 372, '0.05': 62 } },
};

/** A number as formatP prints it, escaped for a RegExp. */
const formatRe = (p: number): string => (p < 1e-4 ? p.toExponential(2) : p.toFixed(4)).replace('.', '\\.');

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
  p_wilcoxon: number | null;
  p_sign: number | null;
  p_wilcoxon_adjusted: number | null;
  p_sign_adjusted: number | null;
  power_observed: number | null;
  mde: number | null;
  n_needed: Record<string, number | null>;
  note: string | null;
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
    const pW: number[] = [];
    const pS: number[] = [];
    const methods = new Set<string>();
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
          'p_wilcoxon',
          'p_sign',
          'p_wilcoxon_adjusted',
          'p_sign_adjusted',
          'power_observed',
          'mde',
          'n_needed',
          'note',
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
      const wilcoxon = wilcoxonLiteral(d);
      methods.add(wilcoxon.exact ? 'exact' : 'approximate');
      expect(Math.abs(row.p_wilcoxon! - wilcoxon.p!)).toBeLessThan(1e-9);
      expect(Math.abs(row.p_sign! - signLiteral(row.wins, row.losses)!)).toBeLessThan(1e-12);
      const r = FROM_R[`${row.candidate.replace(/\.run$/, '')} ${row.measure}`]!;
      // the quoted R call is this row's: its sd is the differences' sd
      expect(Math.abs(sd(d) - r.sd)).toBeLessThan(1e-15);
      expect(Math.abs(row.power_observed! - r.power)).toBeLessThan(1e-6);
      expect(Math.abs(row.mde! - r.mde)).toBeLessThan(1e-6);
      expect(row.n_needed).toEqual(r.n);
      expect(row.note).toBeNull();
      pT.push(row.p_t);
      pW.push(row.p_wilcoxon!);
      pS.push(row.p_sign!);
    }
    const adjust = correction === 'holm' ? holmLiteral : bhLiteral;
    const [aT, aW, aS] = [adjust(pT), adjust(pW), adjust(pS)];
    report.rows.forEach((row, i) => {
      expect(Math.abs(row.p_t_adjusted - aT[i]!)).toBeLessThan(1e-9);
      expect(Math.abs(row.p_wilcoxon_adjusted! - aW[i]!)).toBeLessThan(1e-9);
      expect(Math.abs(row.p_sign_adjusted! - aS[i]!)).toBeLessThan(1e-12);
    });
    // DL19's differences hold both cases: untied (the exact null distribution) and tied (the normal approximation)
    expect([...methods].sort()).toEqual(['approximate', 'exact']);
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
    const below = (p: number | null) => (p !== null && p < 0.05 ? 1 : 0);
    const marked = rows.reduce(
      (n, r) => n + below(r.p_t_adjusted) + below(r.p_randomization_adjusted) + below(r.p_wilcoxon_adjusted) + below(r.p_sign_adjusted),
      0,
    );
    expect(marked).toBeGreaterThan(0);
    expect(md.match(/ † \|/g)?.length ?? 0).toBe(marked);
    expect(readFileSync(latex, 'utf8')).toMatch(/\\caption\{nDCG@10: candidates against/);
  });

  it('GeoRisk over the track equals its definition, leaving out the queries every run scores 0 on', async () => {
    const out = await cli(
      'significance',
      QRELS,
      '--reference',
      REF,
      ...runs.flatMap((r) => ['--candidate', r]),
      '-l',
      '2',
      '-m',
      'recip_rank',
      '-m',
      'ndcg_cut.10',
      '--georisk',
      '--json',
    );
    expect(out.code, out.stderr).toBe(0);
    type Geo = { queries_kept: number; queries_dropped: number; alpha: Record<string, { name: string; zrisk: number; georisk: number }[]> };
    const report = JSON.parse(out.stdout) as { georisk: Record<string, Geo> };
    const dropped: number[] = [];
    for (const measure of ['recip_rank', 'ndcg_cut.10']) {
      const g = report.georisk[measure === 'ndcg_cut.10' ? 'ndcg_cut_10' : measure]!;
      const values = await Promise.all([REF, ...runs].map((r) => perQuery(QRELS, r, measure, ['-l', '2'])));
      const all = [...values[0]!.keys()].filter((q) => values.every((v) => v.has(q)));
      const queries = all.filter((q) => values.some((v) => v.get(q)! !== 0));
      expect([g.queries_kept, g.queries_dropped]).toEqual([queries.length, all.length - queries.length]);
      dropped.push(g.queries_dropped);
      const x = values.map((v) => queries.map((q) => v.get(q)!));
      const S = x.map((row) => row.reduce((a, b) => a + b, 0));
      const T = queries.map((_, q) => x.reduce((a, row) => a + row[q]!, 0));
      const N = S.reduce((a, b) => a + b, 0);
      const c = queries.length;
      for (const alpha of [1, 5]) {
        const rows = g.alpha[String(alpha)]!;
        expect(rows.map((r) => r.name)).toEqual([
          'run.msmarco-v1-passage.bm25-default.dl19.txt',
          'rotated.run',
          'reversed.run',
          'dropped.run',
        ]);
        x.forEach((row, i) => {
          const z = row.map((v, q) => {
            const e = (S[i]! * T[q]!) / N;
            return (v - e) / Math.sqrt(e);
          });
          const zrisk = z.reduce((a, v) => a + (v >= 0 ? v : (1 + alpha) * v), 0);
          // Φ(ZRisk/c) with ZRisk/c within ±8
          const scaled = zrisk / c;
          const phi = scaled <= 0 ? phiLiteral(scaled) : 1 - phiLiteral(-scaled);
          expect(Math.abs(rows[i]!.zrisk - zrisk)).toBeLessThan(1e-9);
          expect(Math.abs(rows[i]!.georisk - Math.sqrt((S[i]! / c) * phi))).toBeLessThan(1e-9);
        });
      }
    }
    expect(Math.max(...dropped)).toBeGreaterThan(0);
  });

  it('a candidate better on every query: p = 1/(N + 1), never 0, and no output shows an adjusted p below its bound', async () => {
    // 30 queries; the reference ranks each one's relevant passage 5th, the candidate 1st.
    const qrels = join(tmp, 'dominant.qrels');
    const reference = join(tmp, 'late.run');
    const candidate = join(tmp, 'early.run');
    const lines = (first: boolean, tag: string) =>
      Array.from({ length: 30 }, (_, q) =>
        Array.from({ length: 5 }, (_, r) => {
          const doc = (first ? r === 0 : r === 4) ? `rel${q}` : `d${q}-${r}`;
          return `${q} Q0 ${doc} ${r + 1} ${10 - r} ${tag}`;
        }),
      ).flat();
    writeFileSync(qrels, Array.from({ length: 30 }, (_, q) => `${q} 0 rel${q} 1`).join('\n') + '\n');
    writeFileSync(reference, lines(false, 'late').join('\n') + '\n');
    writeFileSync(candidate, lines(true, 'early').join('\n') + '\n');
    const permutations = 1000;
    const args = [
      '--reference',
      reference,
      '--candidate',
      candidate,
      '-m',
      'recip_rank',
      '-m',
      'ndcg_cut.10',
      '--permutations',
      String(permutations),
    ];
    const json = await cli('significance', qrels, ...args, '--json');
    expect(json.code, json.stderr).toBe(0);
    const rows = (JSON.parse(json.stdout) as { rows: Row[] }).rows;
    for (const row of rows) {
      expect(row.wins).toBe(30);
      expect(row.p_randomization).toBe(1 / (permutations + 1));
      // Holm over 2 tests: the smaller adjusted p is at least 2/(N + 1)
      expect(row.p_randomization_adjusted).toBeGreaterThanOrEqual(2 / (permutations + 1) - 1e-15);
      expect(Math.abs(row.p_sign! / (2 / 2 ** 30) - 1)).toBeLessThan(1e-12);
    }
    const bound = (2 / (permutations + 1)).toFixed(4);
    const text = await cli('significance', qrels, ...args);
    expect(text.stdout).toMatch(new RegExp(`≤ ${formatRe(1 / (permutations + 1))}\\s+≤ ${bound}`));
    expect(text.stdout).not.toMatch(/< 0\.00/);
    const md = join(tmp, 'dominant.md');
    const html = join(tmp, 'dominant.html');
    const tex = join(tmp, 'dominant.tex');
    for (const [flag, file] of [
      ['--report', md],
      ['--report', html],
      ['--latex', tex],
    ] as const) {
      const flips = await cli('flips', qrels, '--reference', reference, '--candidate', candidate, '--significance', flag, file);
      expect(flips.code, flips.stderr).toBe(0);
      const written = readFileSync(file, 'utf8');
      // the lab's 10,000 sign flips over its family: at the floor, and said so
      expect(written, file).toMatch(/(≤|\\leq)\s*(1\.00e-4|0\.0001)/);
      expect(written, file).not.toMatch(/(^|[^≤])\s0\.0000\b|< 0\.0001/);
    }
  });

  it('a run identical to the reference: every statistic that needs a difference is null, and says why', async () => {
    const out = await cli('significance', QRELS, '--reference', REF, '--candidate', REF, '--name', 'a', '--name', 'b', '--json');
    expect(out.code, out.stderr).toBe(0);
    for (const row of (JSON.parse(out.stdout) as { rows: Row[] }).rows) {
      expect([row.t, row.d_z, row.risk['1']!.trisk, row.p_wilcoxon, row.p_sign, row.power_observed, row.mde]).toEqual([
        null,
        null,
        null,
        null,
        null,
        null,
        null,
      ]);
      expect(row.n_needed).toEqual({ '0.02': null, '0.05': null });
      expect(row.p_randomization).toBe(1);
      expect(row.note).toMatch(/no query changed/);
    }
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
      [['--candidate', runs[0]!, '--power', '1.5'], /--power expects a number between 0\.05 and 1/],
      [['--candidate', runs[0]!, '--delta', '0.02,x'], /--delta expects comma-separated numbers > 0/],
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
