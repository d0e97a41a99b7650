/**
 * Retrieval evaluation with trec_eval semantics (10.0 by default, 9.0.8 on request): measure parsing,
 * one-pass evaluation, trec_eval text output. One measure per file; see registry.ts for the names and print order.
 *
 *   const specs = parseMeasures(['ndcg_cut.10', 'map', 'RR@10']);
 *   const result = evaluate(qrels, run, specs, { relevanceLevel: 2 });
 *   process.stdout.write(formatTrecEval(result, { perQuery: true }));
 */
export {
  evaluate,
  EvalPlan,
  makeResult,
  toPlainObject,
  type EvalResult,
  type EvalResultJson,
  type EvaluateOptions,
  type OutputColumn,
} from './evaluate.ts';
export { formatTrecEval, type FormatOptions } from './format.ts';
export { parseMeasures, outputNames, type MeasureSpec } from './parse.ts';
export { MEASURES, NOT_IMPLEMENTED_ALL_TREC, NOT_IMPLEMENTED_OTHER, findMeasure, inRelease, nicknames } from './registry.ts';
export { DEFAULT_TREC_EVAL_VERSION, TREC_EVAL_VERSIONS, parseTrecEvalVersion, type TrecEvalVersion } from './version.ts';
export { compareUtf8, trecEvalOrder } from './ranking.ts';
export type { MeasureDef, QueryContext } from './measure.ts';
