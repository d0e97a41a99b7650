/**
 * The shape every measure file fills in, and the per-query context its kernel reads.
 *
 * A measure is a pure kernel over the trec_eval-ordered relevance codes of one query (`rels`, see
 * `context.ts`) plus run-independent facts from the qrels (judged grade histogram, ideal gains). The
 * registry maps trec_eval names to these definitions; `evaluate.ts` runs all requested kernels in one
 * pass per query.
 */
import type { JudgedQuery } from './judged.ts';
import type { TrecEvalVersion } from './version.ts';

/** Relevance code of a retrieved document that is not in the qrels (trec_eval RELVALUE_NONPOOL). */
export const RELVALUE_NONPOOL = -1;
/** Relevance code of a document judged with a negative grade, "in pool but unjudged" (trec_eval RELVALUE_UNJUDGED). */
export const RELVALUE_UNJUDGED = -2;
/** Floor applied before the logarithm in geometric means (trec_eval MIN_GEO_MEAN). */
export const MIN_GEO_MEAN = 0.00001;

/**
 * Everything a kernel may read for one query. Built once per query by `buildContext`; kernels must not
 * keep references to it (its arrays are reused for the next query).
 */
export interface QueryContext {
  /**
   * Relevance codes in trec_eval rank order (score descending, docid descending), first `numRet` valid:
   * the judged grade (≥ 0), RELVALUE_NONPOOL, or RELVALUE_UNJUDGED (judged with a negative grade).
   */
  readonly rels: Int32Array;
  /** Retrieved documents considered: min(list length, maxRetrieved). */
  readonly numRet: number;
  /** Judged documents with grade ≥ relevanceLevel (trec_eval num_rel). */
  readonly numRel: number;
  /** Retrieved documents with judged grade ≥ relevanceLevel. */
  readonly numRelRet: number;
  /** Retrieved documents absent from the qrels. */
  readonly numNonpool: number;
  /** Retrieved documents judged with a negative grade. */
  readonly numUnjudged: number;
  /** The `-l` threshold: minimum grade that counts as relevant for binary measures. */
  readonly relevanceLevel: number;
  /** Run-independent facts about this query's judgments. */
  readonly judged: JudgedQuery;
  /** The trec_eval release being reproduced (iprec_at_recall and 11pt_avg convert recall levels differently). */
  readonly version: TrecEvalVersion;
  /**
   * prefix[i] = relevant documents (grade ≥ relevanceLevel) among the first i ranks, i = 0..numRet; computed
   * once per query and shared by the cutoff measures (P, recall, relative_P, success). Integer counts: the
   * same values a scan per measure gives.
   */
  relevantPrefix(): Int32Array;
  /** `fn(this)`, computed once per query: for values several measures need (bpref for gm_bpref, AP's sum for gm_map). */
  memo<T>(fn: (ctx: QueryContext) => T): T;
}

/** How a measure takes parameters on the trec_eval command line (`-m name.params`). */
export type ParamKind =
  /** No parameters (map, num_ret, …). */
  | 'none'
  /** Integer cutoffs, comma separated, positive, sorted ascending; one value per cutoff (`P.5,10`). */
  | 'long-cutoffs'
  /** Real cutoffs, comma separated, sorted ascending; one value per cutoff (`iprec_at_recall.0.1,0.5`). */
  | 'double-cutoffs'
  /** Real parameters kept in the given order; one value (`utility.1,-1,0,0`, `11pt_avg.0.2,0.5,0.8`). */
  | 'double-params'
  /** `level=gain` pairs; one value (`ndcg.1=3,2=9`). */
  | 'pairs';

/** How per-query values combine into the `all` line. */
export type Aggregation =
  /** Arithmetic mean over the averaged queries (trec_eval te_calc_avg_meas_s / _a_cut). */
  | 'mean'
  /** Sum over evaluated queries (num_ret, num_rel_ret, num_nonrel_judged_ret). */
  | 'sum'
  /** exp(mean of per-query logs); queries missing under -c count as log(MIN_GEO_MEAN) (te_calc_avg_meas_s_gm). */
  | 'geometric'
  /** Sum, except under -c: number of judgments with grade > 0 in every qrels query (m_num_rel.c). */
  | 'num-rel'
  /** Number of averaged queries (m_num_q.c). */
  | 'num-q'
  /** The run tag (m_runid.c). */
  | 'runid'
  /** No summary line (relstring). */
  | 'none';

/** Parsed parameters handed to a kernel. */
export interface MeasureParams {
  /** Sorted cutoffs for 'long-cutoffs' and 'double-cutoffs'; the values in order for 'double-params'. */
  readonly values: Float64Array;
  /** Parsed `level=gain` pairs for 'pairs'. */
  readonly pairs: readonly { readonly level: string; readonly gain: number }[];
}

export interface MeasureDef {
  /** trec_eval root name (`P`, `ndcg_cut`, `map`). */
  readonly name: string;
  readonly params: ParamKind;
  /** Parameter text used when none is given (`5,10,15,20,30,100,200,500,1000`); '' for 'none'. */
  readonly defaultParams: string;
  readonly aggregation: Aggregation;
  /** Printed with `%ld` (counts) rather than `%6.4f`. */
  readonly integer: boolean;
  /** Printed for individual queries with -q (gm_map, gm_bpref, num_q, runid are summary-only). */
  readonly perQuery: boolean;
  /** Short explanation shown in error messages and help. */
  readonly description: string;
  /**
   * Where the measure comes from: 'trec_eval' (every release we reproduce), 'trec_eval-10' (added in
   * 10.0: refused under `--trec-eval 9.0.8`), or 'fliplab' (our extension, available in both modes).
   */
  readonly origin: 'trec_eval' | 'trec_eval-10' | 'fliplab';
  /**
   * Write this query's value(s) into `out[at..]`: one per cutoff for cutoff kinds, else one. Slots start
   * at 0 (trec_eval zeroes every value before calling a measure, and many leave it untouched).
   * For 'geometric' measures write the logarithm that is averaged.
   */
  compute(ctx: QueryContext, params: MeasureParams, out: Float64Array, at: number): void;
  /** Text value for relstring-like measures (printed quoted, per query only). */
  text?(ctx: QueryContext, params: MeasureParams): string;
}
