/**
 * The two trec_eval releases fliplab reproduces byte for byte (usnistgov/trec_eval):
 *
 * - `10.0` (CHANGELOG 2026-06-18), the default: recall fractions become document counts by rounding
 *   (`lround(x·R)`) in iprec_at_recall and 11pt_avg; all_trec adds unj, rbp and rbp_resid; dcg and
 *   ideal_dcg exist; under `-c -q` a judged query without results is printed, evaluated on a one-document
 *   placeholder ranking with num_ret, utility, relstring, unj and rbp_resid cleared.
 * - `9.0.8` (2020), what pytrec_eval, ir_measures and most published tables use: `(long)(x·R + 0.9)`
 *   there, the shorter all_trec, no rbp/unj/dcg/ideal_dcg, and judged queries without results are
 *   never printed.
 *
 * Both: results are ordered by score descending then docno descending, and a judged query missing from
 * the run is skipped without `-c` (10.0 exits 4 there; fliplab keeps 9.0.8's behaviour, see DESIGN.md).
 */

export const TREC_EVAL_VERSIONS = ['10.0', '9.0.8'] as const;
export type TrecEvalVersion = (typeof TREC_EVAL_VERSIONS)[number];
export const DEFAULT_TREC_EVAL_VERSION: TrecEvalVersion = '10.0';

/** `--trec-eval 9.0.8` → '9.0.8'; accepts "9", "9.0", "10" too. Undefined for anything else. */
export function parseTrecEvalVersion(text: string): TrecEvalVersion | undefined {
  const t = text.trim().replace(/^v/i, '');
  if (t === '10' || t === '10.0') return '10.0';
  if (t === '9' || t === '9.0' || t === '9.0.8') return '9.0.8';
  return undefined;
}

/**
 * Recall fraction → number of relevant documents, as each release converts it (iprec_at_recall,
 * 11pt_avg). 10.0: C lround (nearest, halves away from zero). 9.0.8: `(long)(x·R + 0.9)`, truncation.
 */
export function recallCutoff(fraction: number, numRel: number, version: TrecEvalVersion): number {
  const x = fraction * numRel;
  if (version === '9.0.8') return Math.trunc(x + 0.9);
  return x < 0 ? -Math.round(-x) : Math.round(x);
}
