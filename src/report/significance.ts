/**
 * Significance from trec_eval's evaluations: each run's per-query values of the chosen measures as the
 * paired tests take them (core/stats/significance.ts), and the report as JSON (the `fliplab significance
 * --json` contract: `reference`, `family`, `rows[]`, and `tukey` when asked for).
 */
import type { EvalResult } from '../core/metrics/evaluate.ts';
import type { SignificanceReport, SystemValues } from '../core/stats/significance.ts';

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
