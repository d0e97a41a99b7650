/**
 * trec_eval measures of a run, the way `fliplab eval` computes and prints them (same measure parsing,
 * same evaluate options, same formatter), so an exported evaluation is byte for byte the CLI's text; and
 * the measures row the lab and the reports show next to the flip numbers.
 */
import {
  DEFAULT_TREC_EVAL_VERSION,
  evaluate,
  findMeasure,
  formatTrecEval,
  outputNames,
  parseMeasures,
  type EvalResult,
  type TrecEvalVersion,
} from '../core/metrics/index.ts';
import type { Qrels, Run } from '../core/types.ts';

/** trec_eval measure values of one run (keys are trec_eval names: "recip_rank_cut.10", "ndcg_cut.10", ...). */
export interface MetricsRow {
  readonly run: string;
  readonly partial: boolean;
  readonly values: Readonly<Record<string, number>>;
  /** The trec_eval release whose semantics computed `values` (what a report says the numbers follow). */
  readonly trecEval: TrecEvalVersion;
}

/** The measures shown next to the flip numbers, in display order, with their labels. */
export const LAB_MEASURES: readonly { readonly key: string; readonly label: string }[] = [
  { key: 'recip_rank_cut.10', label: 'MRR@10' },
  { key: 'ndcg_cut.10', label: 'nDCG@10' },
  { key: 'ncg_cut.100', label: 'NCG@100' },
  { key: 'recall.10', label: 'R@10' },
  { key: 'recall.100', label: 'R@100' },
  { key: 'map', label: 'MAP' },
];

export interface TrecEvalOptions {
  /** trec_eval `-m` specs or aliases (`ndcg_cut.10`, `nDCG@10`, `official`); empty or absent → official. */
  readonly measures?: readonly string[];
  /** `-q`: per-query lines before the summary. */
  readonly perQuery?: boolean;
  /** `-c`: average over every qrels query. */
  readonly complete?: boolean;
  /** `-l`: minimum relevant grade (default 1). */
  readonly relevanceLevel?: number;
  /** `-M`: documents evaluated per query. */
  readonly maxRetrieved?: number;
  /** `-J`: evaluate judged documents only (unjudged ones leave each ranking after the `-M` cut). */
  readonly judgedOnly?: boolean;
  /** The trec_eval release to reproduce (default 10.0). */
  readonly version?: TrecEvalVersion;
}

/** Evaluate with `fliplab eval`'s defaults. Throws the measure parser's Error for an unknown measure. */
export function evaluateRun(qrels: Qrels, run: Run, opts: TrecEvalOptions = {}): EvalResult {
  const measures = parseMeasures(opts.measures !== undefined && opts.measures.length > 0 ? opts.measures : ['official'], opts.version);
  return evaluate(qrels, run, measures, {
    relevanceLevel: opts.relevanceLevel ?? 1,
    complete: opts.complete === true,
    ...(opts.version === undefined ? {} : { version: opts.version }),
    ...(opts.maxRetrieved === undefined ? {} : { maxRetrieved: opts.maxRetrieved }),
    ...(opts.judgedOnly === true ? { judgedOnly: true } : {}),
  });
}

/** trec_eval text of an evaluation; the runid line carries the run's name. */
export function trecEvalResultText(result: EvalResult, runName: string, perQuery = false): string {
  return formatTrecEval(result, { perQuery, runid: runName });
}

/** `fliplab eval <qrels> <run> [-q] [-c] [-J] [-l n] [-M n] [-m ...]` output for a parsed run. */
export function trecEvalText(qrels: Qrels, run: Run, opts: TrecEvalOptions = {}): string {
  return trecEvalResultText(evaluateRun(qrels, run, opts), run.name, opts.perQuery === true);
}

/** trec_eval's printed name of one measure spec: "recip_rank_cut.10" → "recip_rank_cut_10", "map" → "map". */
export function trecEvalName(key: string): string {
  const specs = parseMeasures([key]);
  const spec = specs[0];
  const def = spec && findMeasure(spec.measure);
  const names = def ? outputNames(def, spec.params) : [];
  if (specs.length !== 1 || names.length !== 1) throw new RangeError(`expected one measure with one value, got "${key}"`);
  return names[0]!;
}

/**
 * The lab's measures of one run (keys as given, e.g. "ndcg_cut.10"), averaged like `fliplab eval`
 * without -c: over the judged queries the run answers.
 */
export function labMetricsRow(
  qrels: Qrels,
  run: Run,
  opts: {
    relevanceLevel?: number;
    partial?: boolean;
    measures?: readonly { readonly key: string }[];
    /** The trec_eval release to follow (default 10.0, as `fliplab eval`); the row records it. */
    version?: TrecEvalVersion;
    /** trec_eval -J: judged documents only. */
    judgedOnly?: boolean;
  } = {},
): MetricsRow {
  const keys = (opts.measures ?? LAB_MEASURES).map((m) => m.key);
  const version = opts.version ?? DEFAULT_TREC_EVAL_VERSION;
  const result = evaluateRun(qrels, run, {
    measures: keys,
    version,
    ...(opts.relevanceLevel === undefined ? {} : { relevanceLevel: opts.relevanceLevel }),
    ...(opts.judgedOnly === true ? { judgedOnly: true } : {}),
  });
  const values: Record<string, number> = {};
  for (const key of keys) {
    const v = result.aggregate[trecEvalName(key)];
    if (v !== undefined) values[key] = v;
  }
  return { run: run.name, partial: opts.partial === true, values, trecEval: version };
}

/**
 * A measure's label in the lab's tables ("nDCG@10"), from its key ("ndcg_cut.10") or trec_eval's printed name
 * ("ndcg_cut_10"); the name itself for a measure the list does not have.
 */
export function measureLabel(
  measure: string,
  measures: readonly { readonly key: string; readonly label: string }[] = LAB_MEASURES,
): string {
  return measures.find((m) => m.key === measure || trecEvalName(m.key) === measure)?.label ?? measure;
}
