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
/** A p from N draws: 0 means below 1/N, and says so. */
const resampled = (p: number, draws: number): string => (p === 0 ? `< ${formatP(1 / draws)}` : formatP(p));
const orNa = (x: number | null, digits: number): string => (x === null ? 'n/a' : x.toFixed(digits));

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
        resampled(r.p_randomization, report.family.permutations),
        resampled(r.p_randomization_adjusted, report.family.permutations),
        orNa(r.d_z, 2),
        `${r.wins}/${r.ties}/${r.losses}`,
        ...alphas.map((a) => orNa(r.risk[a]!.trisk, 2)),
      ]),
  }));
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
  const rows = t.pairs.map((p) => [`${p.a} − ${p.b}`, fixed(p.diff), resampled(p.p, draws)]);
  const groups = t.groups.map((g, i) => `  ${groupLetter(i)}: ${g.join(', ')}`).join('\n');
  return (
    `Tukey HSD (randomized), ${measure}, ${countOf(t.n, 'query')} every system answers\n` +
    `${textTable(['pair', 'Δ mean', 'p'], rows)}\n` +
    `groups the test cannot tell apart at α = ${t.alpha}:\n${groups}\n`
  );
}

/** The whole report as text: the family, each measure's table, the Tukey tables when computed. */
export function formatSignificance(report: SignificanceReport): string {
  const tables = significanceTables(report).map((t) => `${t.measure}\n${textTable(t.header, t.rows)}\n`);
  const tukey = Object.entries(report.tukey ?? {}).map(([m, t]) => tukeyText(m, t, report.family.permutations));
  return (
    `Paired tests of each candidate against ${report.reference}, over the queries both are evaluated on.\n` +
    `Family: ${familyLine(report)}.\n` +
    'TRisk beyond ±2 reads as a significant gain (+) or loss (−) with losses weighted by 1 + α.\n\n' +
    [...tables, ...tukey].join('\n')
  );
}
