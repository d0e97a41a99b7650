/**
 * Retrieval evaluation with trec_eval 9.0.8 semantics: measure parsing, one-pass evaluation, trec_eval
 * text output. One measure per file; see registry.ts for the names and print order.
 *
 *   const specs = parseMeasures(['ndcg_cut.10', 'map', 'RR@10']);
 *   const result = evaluate(qrels, run, specs, { relevanceLevel: 2 });
 *   process.stdout.write(formatTrecEval(result, { perQuery: true }));
 */
export { evaluate, type EvalResult, type EvaluateOptions, type OutputColumn } from './evaluate.ts';
export { formatTrecEval, toPlainObject, type EvalResultJson, type FormatOptions } from './format.ts';
export { parseMeasures, outputNames, type MeasureSpec } from './parse.ts';
export { MEASURES, NICKNAMES, NOT_IMPLEMENTED_ALL_TREC, NOT_IMPLEMENTED_OTHER, findMeasure } from './registry.ts';
export { compareUtf8, trecEvalOrder } from './ranking.ts';
export type { MeasureDef, QueryContext } from './measure.ts';
