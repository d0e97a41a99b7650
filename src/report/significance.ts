/**
 * Significance from trec_eval's evaluations: each run's per-query values of the chosen measures as the
 * paired tests take them (core/stats/significance.ts), and the report as JSON (the `fliplab significance
 * --json` contract: `reference`, `family`, `rows[]`, and `tukey` when asked for).
 */
import type { EvalResult } from '../core/metrics/evaluate.ts';
import {
  DEFAULT_PERMUTATIONS,
  DEFAULT_RISK_ALPHAS,
  DEFAULT_SEED,
  significance,
  type SignificanceOptions,
  type SignificanceReport,
  type SystemValues,
} from '../core/stats/significance.ts';
import { LAB_MEASURES, trecEvalName } from './metrics.ts';

/** The per-query values of `measures` (trec_eval's printed names) in an evaluation, as one system. */
export function systemValues(name: string, result: EvalResult, measures: readonly string[]): SystemValues {
  const width = result.valueNames.length;
  const byMeasure = new Map<string, Map<string, number>>();
  for (const measure of measures) {
    const column = result.valueNames.indexOf(measure);
    if (column < 0) throw new RangeError(`${measure} has no per-query values in this evaluation`);
    const values = new Map<string, number>();
    result.queries.forEach((qid, q) => {
      if (!result.missing.has(qid)) values.set(qid, result.values[q * width + column]!);
    });
    byMeasure.set(measure, values);
  }
  return { name, byMeasure };
}

export const significanceJson = (report: SignificanceReport): string => `${JSON.stringify(report, null, 2)}\n`;

/**
 * The tests the lab runs beside its measures table, and `fliplab flips --significance` with them: every
 * measure of the table (LAB_MEASURES), 10,000 sign flips as the CLI, but 1,000 bootstrap resamples (the
 * table's intervals must arrive within a second or two of the analysis at 7,000 queries; Efron's floor for
 * percentile intervals), seed 42, Holm over every candidate × measure.
 */
export const LAB_SIGNIFICANCE: SignificanceOptions = {
  permutations: DEFAULT_PERMUTATIONS,
  bootstrap: 1_000,
  seed: DEFAULT_SEED,
  correction: 'holm',
  riskAlphas: DEFAULT_RISK_ALPHAS,
  tukey: false,
};

/** trec_eval's names of the lab's measures ("ndcg_cut_10", ...), in the table's order. */
export const LAB_SIGNIFICANCE_MEASURES: readonly string[] = LAB_MEASURES.map((m) => trecEvalName(m.key));

/** The paired tests of evaluated runs (each with the lab's measures), reference first. */
export function significanceOfResults(
  runs: readonly { readonly name: string; readonly result: EvalResult }[],
  options: SignificanceOptions = LAB_SIGNIFICANCE,
  measures: readonly string[] = LAB_SIGNIFICANCE_MEASURES,
): SignificanceReport {
  const [reference, ...candidates] = runs.map((r) => systemValues(r.name, r.result, measures));
  if (reference === undefined || candidates.length === 0) throw new RangeError('significance needs a reference and a candidate');
  return significance(reference, candidates, measures, options);
}

/**
 * A whole track's tests (the lab's track table): one measure, every run against the reference, 10,000 sign
 * flips and a randomized Tukey HSD with as many trials, 1,000 bootstrap resamples, Holm over the runs, GeoRisk
 * over them all — what `fliplab significance -m <measure> --bootstrap 1000 --tukey --georisk` prints for the
 * same files.
 */
export const TRACK_SIGNIFICANCE: SignificanceOptions = { ...LAB_SIGNIFICANCE, tukey: true, georisk: true };
