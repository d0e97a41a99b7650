/**
 * The answer-flip report (Table 9 of the paper) as the CLI prints it and the lab exports it: JSON with stable
 * snake_case keys (documented in the README), and a text table. One writer, so `fliplab answers flips --json`
 * and the lab's download are the same bytes for the same inputs.
 */
import type { AnswerFlipReport, CountEstimate } from '../core/answers/flips.ts';
import type { AnswerMatch } from '../core/answers/normalize.ts';
import { countOf, formatCount } from '../core/count.ts';

const rate = (e: CountEstimate) => ({ count: e.count, of: e.of, rate: e.rate.value, ci_low: e.rate.lo, ci_high: e.rate.hi });

export function answerFlipJson(report: AnswerFlipReport, warnings: readonly string[] = []): string {
  const out = {
    k: report.k,
    seed: report.seed,
    prng: report.prng,
    reference: report.reference,
    queries: report.queries,
    reference_supported: report.referenceSupported,
    candidates: report.candidates.map((c) => ({
      name: c.name,
      flips: c.flips,
      control: c.control,
      control_short: c.controlShort,
      regressions_among_flips: rate(c.regressionsAmongFlips),
      regressions_in_control: rate(c.regressionsInControl),
      flips_incorrect_from_reference: rate(c.flipsIncorrectFromReference),
      became_incorrect: rate(c.becameIncorrect),
      share_of_reference_supported: rate(c.shareOfReferenceSupported),
      flip_queries: c.flipQueries,
      control_queries: c.controlQueries,
      missing_gold: c.missingGold,
      missing_predictions: c.missingPredictions,
    })),
    warnings,
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** `count/of (rate%, low–high)`, the 95% Wilson interval in percent. */
export const answerRate = (e: CountEstimate): string => {
  if (e.rate.value === null) return `${e.count}/${e.of} (n/a)`;
  const p = (x: number | null) => (x === null ? '–' : (100 * x).toFixed(1));
  return `${e.count}/${e.of} (${p(e.rate.value)}%, ${p(e.rate.lo)}–${p(e.rate.hi)})`;
};

/** Table 9 as text: one block per candidate, each rate with its 95% Wilson interval. */
export function formatAnswerFlips(report: AnswerFlipReport): string {
  const lines = [
    `Answer check at k = ${report.k}: reference ${report.reference}, supporting ${formatCount(report.referenceSupported)} of ` +
      `${countOf(report.queries, 'query')}; control samples by ${report.prng}(seed ${report.seed})`,
  ];
  const row = (label: string, value: string) => `  ${label.padEnd(51)}${value}`;
  const some = (ids: readonly string[]) => `${ids.length} (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`;
  for (const c of report.candidates) {
    const short = c.controlShort ? `  (only ${countOf(c.controlQueries.length, 'query')} supported by both: all taken)` : '';
    lines.push(
      '',
      c.name,
      row('flip set (negative flips answered on both sides)', String(c.flips)),
      row('answer regressions among flips', answerRate(c.regressionsAmongFlips)),
      row('answer regressions in the control sample', answerRate(c.regressionsInControl) + short),
      row(`flips already wrong from ${report.reference}'s passages`, answerRate(c.flipsIncorrectFromReference)),
      row(`flips right from ${report.reference}, wrong after`, answerRate(c.becameIncorrect)),
      row(`regressions / all ${report.reference}-supported queries`, answerRate(c.shareOfReferenceSupported)),
    );
    if (c.missingGold.length > 0) lines.push(`  left out, no gold answer: ${some(c.missingGold)}`);
    if (c.missingPredictions.length > 0) lines.push(`  left out, no prediction on one side: ${some(c.missingPredictions)}`);
  }
  return `${lines.join('\n')}\n`;
}

export interface ScoredAnswer extends AnswerMatch {
  readonly queryId: string;
}

/** `fliplab answers score --json`: per query, then the totals (the contract's keys). */
export function answerScoreJson(scored: readonly ScoredAnswer[], unknownQueries: readonly string[]): string {
  const out = {
    queries: scored.map((s) => ({
      query_id: s.queryId,
      correct: s.correct,
      normalized_prediction: s.normalizedPrediction,
      matched_answer: s.matchedAnswer,
    })),
    correct: scored.filter((s) => s.correct).length,
    total: scored.length,
    unknown_queries: unknownQueries,
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
