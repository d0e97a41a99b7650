/** Plain-text tables of a FlipReport for terminals (the `fliplab flips` default output). */
import type { Estimate } from '../stats/index.ts';
import type { DepthBlock, FlipReport } from './analyze.ts';
import { textTable } from '../text-table.ts';

const table = ({ header, rows }: TableRows): string => textTable(header, rows);

/**
 * What a cell prints where a rate's denominator is zero: "n/a" with the reason, never "undefined", "NaN" or a
 * blank (a reader of a text report has no tooltip to ask).
 */
export const NOT_APPLICABLE = {
  /** Fix rate: its denominator is the queries the reference fails. */
  noFailure: 'n/a (no query the reference fails)',
  /** Negative-flip rate, compatibility: their denominator is the queries the reference supports. */
  noSuccess: 'n/a (no query the reference supports)',
  /** Net gain: no query at all. */
  noQuery: 'n/a (no queries)',
  /** A stratum of the reference's supporting rank that holds no query. */
  emptyStratum: 'n/a (no query at these ranks)',
} as const;

const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** A rate with its interval: "12.3% [10.1, 14.9]", or `na` when the denominator is zero. */
export const pct = (e: Estimate, na: string = NOT_APPLICABLE.noSuccess): string =>
  finite(e.value) && finite(e.lo) && finite(e.hi)
    ? `${(100 * e.value).toFixed(1)}% [${(100 * e.lo).toFixed(1)}, ${(100 * e.hi).toFixed(1)}]`
    : na;
/** A count with its sign: "+3", "0", "-2". */
export const signed = (x: number): string => (x > 0 ? `+${x}` : `${x}`);
/** Net gain with its interval: "+184 [160.2, 207.8]", or "n/a" when there is no query. */
export const gain = (e: Estimate): string =>
  finite(e.value) && finite(e.lo) && finite(e.hi) ? `${signed(e.value)} [${e.lo.toFixed(1)}, ${e.hi.toFixed(1)}]` : NOT_APPLICABLE.noQuery;
/** p-values: four decimals, or scientific below 0.0001. */
export const pval = (p: number): string => (!Number.isFinite(p) ? NOT_APPLICABLE.noQuery : p < 0.0001 ? p.toExponential(2) : p.toFixed(4));

/** Mean list length of a hybrid, one decimal. */
export const meanSize = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : NOT_APPLICABLE.noQuery);

/** Header and rows of one report table: the terminal output and the Markdown/HTML reports share them. */
export interface TableRows {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export function transitionRows(d: DepthBlock): TableRows {
  // With a model layer (core/judging): how many of each candidate's flips are flips only on the model's labels.
  const model = d.candidates.some((c) => c.broken_on_model_labels !== undefined);
  const base = transitionTable(d);
  if (!model) return base;
  return {
    header: [...base.header, 'broken on model labels', 'fixed on model labels'],
    rows: base.rows.map((row, i) => {
      const c = d.candidates[i]!;
      return [...row, `${c.broken_on_model_labels ?? 0}`, `${c.fixed_on_model_labels ?? 0}`];
    }),
  };
}

function transitionTable(d: DepthBlock): TableRows {
  return {
    header: [
      'candidate',
      'supported',
      'preserved',
      'broken',
      'fixed',
      'unchanged',
      'fix rate',
      'negative-flip rate',
      'compatibility',
      'net gain',
      'broken with unjudged',
      'negative-flip rate, judged',
    ],
    rows: d.candidates.map((c) => [
      c.name,
      `${c.supported}`,
      `${c.preserved}`,
      `${c.broken}`,
      `${c.fixed}`,
      `${c.unchanged}`,
      pct(c.fix_rate, NOT_APPLICABLE.noFailure),
      pct(c.negative_flip_rate),
      pct(c.compatibility),
      gain(c.net_gain),
      `${c.broken_with_unjudged}`,
      c.negative_flip_rate_low === null ? NOT_APPLICABLE.noSuccess : `${(100 * c.negative_flip_rate_low).toFixed(1)}%`,
    ]),
  };
}

export function hybridRows(r: FlipReport): TableRows {
  return {
    header: ['candidate', 'method', 'k', 'budget', 'mean size', 'broken', 'fixed', 'net gain', 'negative-flip rate'],
    rows: r.hybrids.map((h) => [
      h.candidate,
      h.method,
      `${h.k}`,
      `${h.budget}`,
      meanSize(h.mean_size),
      `${h.broken}`,
      `${h.fixed}`,
      signed(h.net_gain),
      pct(h.negative_flip_rate),
    ]),
  };
}

export function pairedRows(r: FlipReport): TableRows {
  return {
    header: ['k', 'A', 'B', 'only A', 'only B', 'p', 'p (Holm)'],
    rows: r.paired.map((p) => [`${p.k}`, p.a, p.b, `${p.only_a}`, `${p.only_b}`, pval(p.p), pval(p.p_holm)]),
  };
}

export function strataRows(r: FlipReport): TableRows {
  return {
    header: ['candidate', 'k', 'ranks', 'reference supported', 'broken', 'negative-flip rate'],
    rows: r.strata.map((s) => [
      s.candidate,
      `${s.k}`,
      s.ranks,
      `${s.reference_supported}`,
      `${s.broken}`,
      pct(s.negative_flip_rate, NOT_APPLICABLE.emptyStratum),
    ]),
  };
}

export function formatFlipReport(r: FlipReport): string {
  const out: string[] = [];
  const ref = r.runs.find((x) => x.role === 'reference')!;
  out.push(
    `RAGFlip transitions against reference "${ref.name}": ${r.queries} queries with a positive judgment (grade ≥ ` +
      `${r.relevance_level}), label "${r.label}"` +
      (r.judged_only ? ', judged passages only (unjudged removed before the cut, as trec_eval -J)' : '') +
      (r.cohort_at === null ? '' : `; one cohort at every depth: the queries the reference supports at k = ${r.cohort_at}`),
  );
  for (const run of r.runs) {
    if (run.missing_queries > 0)
      out.push(`note: run "${run.name}" has no ranking for ${run.missing_queries} of these queries (counted as unsupported)`);
  }
  for (const d of r.depths) {
    out.push('', `k = ${d.k}: reference supports ${d.reference.supported} of ${r.queries}`);
    out.push(table(transitionRows(d)));
  }
  out.push('', 'Fixed-budget hybrids (broken / fixed / net gain against the reference; union budget is up to 2k)');
  out.push(table(hybridRows(r)));
  if (r.paired.length > 0) {
    out.push('', 'Paired negative flips on reference-supported queries (exact McNemar; Holm across depths)');
    out.push(table(pairedRows(r)));
  }
  out.push('', "Negative flips by the reference's first supporting rank");
  out.push(table(strataRows(r)));
  return `${out.join('\n')}\n`;
}
