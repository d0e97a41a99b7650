/** Plain-text tables of a significance report for terminals (the `fliplab significance` default output). */
import { countOf } from '../count.ts';
import { textTable } from '../text-table.ts';
import type { SignificanceReport, SignificanceRow } from './significance.ts';
import type { TukeyResult } from './tukey.ts';

/** Header and rows of one table (terminal output and written reports share them). */
export interface SignificanceTable {
  readonly measure: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

const CORRECTION_NAMES = { holm: 'Holm', bonferroni: 'Bonferroni', bh: 'Benjamini–Hochberg', none: 'no correction' } as const;

const fixed = (x: number, digits = 4): string => (x >= 0 ? '+' : '') + x.toFixed(digits);
/** A p value: four decimals, or scientific below 0.0001; "n/a" where it is undefined. */
export const formatP = (p: number | null): string => (p === null ? 'n/a' : p === 0 ? '0' : p < 1e-4 ? p.toExponential(2) : p.toFixed(4));
/**
 * Whether a resampled p, (hits + 1)/(N + 1) from N draws, is at its floor 1/(N + 1): no draw reached the
 * observed value, and the test cannot resolve a smaller p.
 */
export const atResolutionLimit = (p: number, draws: number): boolean => Math.abs(p * (draws + 1) - 1) < 1e-9;

/**
 * A resampled p (or its adjusted value) from N draws: "≤ x" when the raw p is at its floor 1/(N + 1) — the true p
 * may be smaller, the draws cannot tell — else as formatP. `raw` is the unadjusted p (the value itself by default).
 */
export const formatResampledP = (p: number, draws: number, raw = p): string =>
  atResolutionLimit(raw, draws) ? `≤ ${formatP(p)}` : formatP(p);
const orNa = (x: number | null, digits: number): string => (x === null ? 'n/a' : x.toFixed(digits));
/** "-0.000" (a tiny negative rounded) as "0.000". */
const noNegativeZero = (text: string): string => (/^-0\.?0*$/.test(text) ? text.slice(1) : text);
/** A whole number of queries; "n/a" when undefined, "> 10⁹" past the search's end. */
const queryCount = (n: number | null): string => (n === null ? 'n/a' : Number.isFinite(n) ? String(n) : '> 10⁹');

/** The family in words: "Holm over 4 tests (2 candidates × 2 measures); 10,000 sign flips, 10,000 resamples, seed 42". */
export function familyLine(report: SignificanceReport): string {
  const f = report.family;
  const candidates = new Set(f.members.map((m) => m.candidate)).size;
  const measures = new Set(f.members.map((m) => m.measure)).size;
  return (
    `${CORRECTION_NAMES[f.correction]} over ${countOf(f.members.length, 'test')} ` +
    `(${countOf(candidates, 'candidate')} × ${countOf(measures, 'measure')}); ` +
    `${countOf(f.permutations, 'sign flip')}, ${countOf(f.bootstrap, 'bootstrap resample')}, seed ${f.seed}`
  );
}

/** One table per measure: a row per candidate. */
export function significanceTables(report: SignificanceReport): SignificanceTable[] {
  const measures = [...new Set(report.rows.map((r) => r.measure))];
  const alphas = Object.keys(report.rows[0]?.risk ?? {});
  return measures.map((measure) => ({
    measure,
    header: [
      'candidate',
      'n',
      'reference mean',
      'candidate mean',
      'Δ [95% CI]',
      't',
      'p (t)',
      'p adj.',
      'p (rand.)',
      'p adj.',
      'd_z',
      'W/T/L',
      ...alphas.map((a) => `TRisk α=${a}`),
    ],
    rows: report.rows
      .filter((r) => r.measure === measure)
      .map((r: SignificanceRow) => [
        r.candidate,
        String(r.n),
        r.mean_reference.toFixed(4),
        r.mean_candidate.toFixed(4),
        `${fixed(r.mean_diff)} [${fixed(r.ci95[0])}, ${fixed(r.ci95[1])}]`,
        orNa(r.t, 2),
        formatP(r.p_t),
        formatP(r.p_t_adjusted),
        formatResampledP(r.p_randomization, report.family.permutations),
        formatResampledP(r.p_randomization_adjusted, report.family.permutations, r.p_randomization),
        orNa(r.d_z, 2),
        `${r.wins}/${r.ties}/${r.losses}`,
        ...alphas.map((a) => orNa(r.risk[a]!.trisk, 2)),
      ]),
  }));
}

/**
 * One table per measure of the rank tests and the t-test's power: Wilcoxon and sign p (raw and adjusted), the
 * power at the observed |Δ|, the minimum detectable effect at the asked power, and the queries each Δ needs.
 */
export function powerTables(report: SignificanceReport): SignificanceTable[] {
  const measures = [...new Set(report.rows.map((r) => r.measure))];
  const { level, deltas } = report.family.power;
  const percent = Math.round(level * 100);
  return measures.map((measure) => ({
    measure,
    header: [
      'candidate',
      'p (Wilcoxon)',
      'p adj.',
      'p (sign)',
      'p adj.',
      'power at |Δ|',
      `MDE (${percent}%)`,
      ...deltas.map((d) => `n for Δ=${d}`),
    ],
    rows: report.rows
      .filter((r) => r.measure === measure)
      .map((r: SignificanceRow) => [
        r.candidate,
        formatP(r.p_wilcoxon),
        formatP(r.p_wilcoxon_adjusted),
        formatP(r.p_sign),
        formatP(r.p_sign_adjusted),
        orNa(r.power_observed, 3),
        orNa(r.mde, 4),
        ...deltas.map((d) => queryCount(r.n_needed[d] ?? null)),
      ]),
  }));
}

/** One table per measure: each run's ZRisk and GeoRisk at each α (runs in input order, the reference first). */
export function geoRiskTables(report: SignificanceReport): SignificanceTable[] {
  return Object.entries(report.georisk ?? {}).map(([measure, g]) => {
    const alphas = Object.keys(g.alpha);
    const names = g.alpha[alphas[0]!]?.map((r) => r.name) ?? [];
    return {
      measure,
      header: ['run', ...alphas.flatMap((a) => [`ZRisk α=${a}`, `GeoRisk α=${a}`])],
      rows: names.map((name, i) => [
        name,
        ...alphas.flatMap((a) => [noNegativeZero(g.alpha[a]![i]!.zrisk.toFixed(3)), g.alpha[a]![i]!.georisk.toFixed(4)]),
      ]),
    };
  });
}

/** The name of the i-th Tukey HSD group: "a", "b", … ("a" again after "z"). */
const groupLetter = (i: number): string => String.fromCharCode(97 + (i % 26));

/**
 * Each system's Tukey HSD groups as letters, the way the text report names the groups: "ab" is in the first
 * two groups. Systems that share a letter cannot be told apart; a system in no group has no entry.
 */
export function tukeyLetters(groups: readonly (readonly string[])[]): Record<string, string> {
  const out: Record<string, string> = {};
  groups.forEach((g, i) => {
    for (const name of g) out[name] = (out[name] ?? '') + groupLetter(i);
  });
  return out;
}

function tukeyText(measure: string, t: TukeyResult & { readonly n: number }, draws: number): string {
  const rows = t.pairs.map((p) => [`${p.a} − ${p.b}`, fixed(p.diff), formatResampledP(p.p, draws)]);
  const groups = t.groups.map((g, i) => `  ${groupLetter(i)}: ${g.join(', ')}`).join('\n');
  return (
    `Tukey HSD (randomized), ${measure}, ${countOf(t.n, 'query')} every system answers\n` +
    `${textTable(['pair', 'Δ mean', 'p'], rows)}\n` +
    `groups the test cannot tell apart at α = ${t.alpha}:\n${groups}\n`
  );
}

/** The rows' notes (why a statistic is undefined), one line each: "bm25-rm3, ndcg_cut_10: …". */
export function significanceNotes(report: SignificanceReport): string[] {
  return report.rows.filter((r) => r.note !== null).map((r) => `${r.candidate}, ${r.measure}: ${r.note}`);
}

/**
 * The whole report as text: the family, each measure's tests and then its rank tests and power, the rows'
 * notes, the Tukey and GeoRisk tables when computed.
 */
export function formatSignificance(report: SignificanceReport): string {
  const power = powerTables(report);
  const tables = significanceTables(report).map(
    (t, i) => `${t.measure}\n${textTable(t.header, t.rows)}\n${textTable(power[i]!.header, power[i]!.rows)}\n`,
  );
  const notes = significanceNotes(report);
  const tukey = Object.entries(report.tukey ?? {}).map(([m, t]) => tukeyText(m, t, report.family.permutations));
  const geo = geoRiskTables(report).map((t) => {
    const g = report.georisk![t.measure]!;
    const dropped = g.queries_dropped > 0 ? `; ${countOf(g.queries_dropped, 'query')} every run scores 0 on left out` : '';
    return `GeoRisk, ${t.measure}, over ${countOf(g.queries_kept, 'query')}${dropped}\n${textTable(t.header, t.rows)}\n`;
  });
  const { level, alpha } = report.family.power;
  return (
    `Paired tests of each candidate against ${report.reference}, over the queries both are evaluated on.\n` +
    `Family: ${familyLine(report)}.\n` +
    'TRisk beyond ±2 reads as a significant gain (+) or loss (−) with losses weighted by 1 + α.\n' +
    `Power: of the paired t-test at α = ${alpha} (two-sided) with each row's sd; MDE: the smallest Δ found with ` +
    `${Math.round(level * 100)}% power at these n queries; n for Δ: queries needed to find Δ with that power.\n\n` +
    [...tables, ...(notes.length > 0 ? [`${notes.join('\n')}\n`] : []), ...tukey, ...geo].join('\n')
  );
}
