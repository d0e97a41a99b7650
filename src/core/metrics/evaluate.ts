/**
 * Evaluate a run against qrels with any set of measures, trec_eval semantics (10.0 by default, 9.0.8 on
 * request), one pass per query.
 *
 * Per query the run's list is put in trec_eval order once (score desc, docid desc; usually already so,
 * then no sort happens), truncated to maxRetrieved (`-M`), and its grades looked up once into a reused
 * Int32Array (with `judgedOnly`, `-J`, the unjudged ones are then dropped: ranking.ts); then every
 * requested kernel reads that array. No measure re-sorts or re-looks-up.
 *
 * Which queries (trec_eval.c main loop, meas_avg.c):
 * - evaluated: queries present in both the run and the qrels, in strcmp order of their ids (trec_eval
 *   sorts its results file by qid). Run queries without judgments are ignored. Queries whose judgments
 *   hold no relevant document are evaluated like any other (most measures give 0).
 * - averaged over: the evaluated queries; with `complete` (`-c`) the number of queries in the qrels, so
 *   judged queries missing from the run count as 0. 9.0.8 prints no per-query values for them; 10.0
 *   evaluates them on a one-document placeholder ranking (one unjudged document) and prints them, with
 *   num_ret, utility, relstring, unj and rbp_resid cleared — `missing` marks them. num_rel's summary then
 *   counts their judgments (grade > 0), and gm_map/gm_bpref count them as ln(0.00001).
 * - judged queries missing from the run without `-c`: skipped (9.0.8; 10.0 exits 4 — see DESIGN.md).
 *
 * `EvalPlan` is the compiled measure list; `evaluate` drives it over parsed runs, and the CLI's byte-level
 * evaluator (`fast-eval.ts`) drives the same plan over runs it never turns into strings.
 */
import type { Qrels, QueryId, Run } from '../types.ts';
import { judgedQueries } from './judged.ts';
import { MIN_GEO_MEAN, type Aggregation, type MeasureDef, type MeasureParams, type QueryContext } from './measure.ts';
import { outputNames, parseParams, type MeasureSpec } from './parse.ts';
import { compareUtf8, ContextBuilder } from './ranking.ts';
import { findMeasure } from './registry.ts';
import { DEFAULT_TREC_EVAL_VERSION, type TrecEvalVersion } from './version.ts';

export interface EvaluateOptions {
  /** `-l`: minimum grade counted as relevant by binary measures. Default 1. */
  readonly relevanceLevel?: number;
  /** `-c`: average over every query in the qrels (missing ones count 0). Default false. */
  readonly complete?: boolean;
  /** `-M`: evaluate only the first N documents of each query (in trec_eval order). Default unlimited. */
  readonly maxRetrieved?: number;
  /**
   * `-J`: evaluate judged documents only — after the `-M` cut, documents not in the qrels or judged with a
   * negative grade are removed from each ranking, the rest keep their order. Default false.
   */
  readonly judgedOnly?: boolean;
  /** The trec_eval release to reproduce. Default 10.0. */
  readonly version?: TrecEvalVersion;
}

/** One printed column, in trec_eval print order. */
export interface OutputColumn {
  /** Name as trec_eval prints it (`ndcg_cut_10`, `P_5`, `map`). */
  readonly name: string;
  /** trec_eval root measure (`ndcg_cut`). */
  readonly measure: string;
  /** 'float' → %6.4f, 'long' → %ld, 'text' → quoted string (relstring), 'runid' → the run tag. */
  readonly format: 'float' | 'long' | 'text' | 'runid';
  /** Printed per query with -q. */
  readonly perQuery: boolean;
  /** Printed on the `all` summary. */
  readonly summary: boolean;
}

export interface EvalResult {
  /** Run tag for the runid line. */
  readonly runid: string;
  readonly options: {
    readonly relevanceLevel: number;
    readonly complete: boolean;
    readonly maxRetrieved: number;
    readonly judgedOnly: boolean;
    readonly version: TrecEvalVersion;
  };
  readonly columns: readonly OutputColumn[];
  /** Evaluated queries in trec_eval order (strcmp of ids). */
  readonly queries: readonly QueryId[];
  /**
   * Judged queries absent from the run that are printed anyway (10.0 with `-c`, placeholder values); a
   * subset of `queries`. Empty otherwise.
   */
  readonly missing: ReadonlySet<QueryId>;
  /** Names of the per-query numeric values: the columns of `values`, in print order. */
  readonly valueNames: readonly string[];
  /**
   * Per-query numeric values, row-major: values[q · valueNames.length + j] is query `queries[q]`,
   * measure `valueNames[j]`. The compact (transferable) form; `perQuery` is the same data keyed.
   */
  readonly values: Float64Array;
  /**
   * qid → output name → value, for every per-query numeric column. Built from `values` on first access
   * (an enumerable getter, so JSON and structured clone see it); millions of boxed numbers are only
   * made when someone asks.
   */
  readonly perQuery: ReadonlyMap<QueryId, Readonly<Record<string, number>>>;
  /** qid → output name → text, for text columns (relstring). */
  readonly perQueryText: ReadonlyMap<QueryId, Readonly<Record<string, string>>>;
  /** output name → summary value (num_q included; runid is `runid`). */
  readonly aggregate: Readonly<Record<string, number>>;
}

interface Compiled {
  readonly def: MeasureDef;
  readonly params: MeasureParams;
  readonly names: readonly string[];
  /** First slot in the per-query row; numeric measures only. */
  readonly offset: number;
}

const KERNEL_FREE = new Set<Aggregation>(['num-q', 'runid']);
/** Values trec_eval 10.0 clears after evaluating a placeholder ranking (trec_eval.c, "clean up leftovers"). */
const PLACEHOLDER_CLEARED = (name: string): boolean =>
  name === 'num_ret' || name === 'utility' || name === 'rbp_resid' || name.startsWith('unj');

/**
 * Requested measures compiled once: their kernels, parameters, printed names, and where each value sits in
 * a per-query row of `slots` numbers. Reusable across runs and threads (no per-query state).
 */
export class EvalPlan {
  readonly measures: readonly Compiled[];
  /** Numbers per query row (every numeric value, summary-only ones included). */
  readonly slots: number;
  readonly columns: readonly OutputColumn[];
  /** Names of the printed-per-query numeric values, in print order. */
  readonly valueNames: readonly string[];
  /** slotOf[j] = row slot of valueNames[j]. */
  readonly slotOf: Int32Array;
  private readonly numeric: readonly Compiled[];
  private readonly textual: readonly Compiled[];
  private readonly cleared: Int32Array;

  constructor(
    /** The requested measures (what a worker thread compiles its own plan from). */
    readonly specs: readonly MeasureSpec[],
    readonly version: TrecEvalVersion = DEFAULT_TREC_EVAL_VERSION,
  ) {
    const measures: Compiled[] = [];
    let slots = 0;
    const seen = new Set<string>();
    for (const s of specs) {
      const def = findMeasure(s.measure);
      if (!def) throw new Error(`unknown measure ${JSON.stringify(s.measure)}; use parseMeasures() to build specs`);
      if (seen.has(def.name)) throw new Error(`measure ${def.name} requested twice; merge the specs (parseMeasures does)`);
      seen.add(def.name);
      const params = parseParams(def, s.params ?? def.defaultParams);
      const names = outputNames(def, s.params);
      const numeric = def.text === undefined && !KERNEL_FREE.has(def.aggregation);
      measures.push({ def, params, names, offset: numeric ? slots : -1 });
      if (numeric) slots += names.length;
    }
    this.measures = measures;
    this.slots = slots;
    this.columns = columnsOf(measures);
    this.numeric = measures.filter((m) => m.offset >= 0);
    this.textual = measures.filter((m) => m.def.text !== undefined);
    const valueNames: string[] = [];
    const slotOf: number[] = [];
    const cleared: number[] = [];
    for (const m of this.numeric) {
      m.names.forEach((name, j) => {
        if (m.def.perQuery) {
          valueNames.push(name);
          slotOf.push(m.offset + j);
        }
        if (PLACEHOLDER_CLEARED(m.def.name)) cleared.push(m.offset + j);
      });
    }
    this.valueNames = valueNames;
    this.slotOf = Int32Array.from(slotOf);
    this.cleared = Int32Array.from(cleared);
  }

  get hasText(): boolean {
    return this.textual.length > 0;
  }

  /** Run every kernel on one query's context: numbers into row[base..base+slots), texts returned (or undefined). */
  compute(ctx: QueryContext, row: Float64Array, base: number): Record<string, string> | undefined {
    const numeric = this.numeric;
    for (let k = 0; k < numeric.length; k++) {
      const m = numeric[k]!;
      m.def.compute(ctx, m.params, row, base + m.offset);
    }
    if (this.textual.length === 0) return undefined;
    const t: Record<string, string> = {};
    for (const m of this.textual) t[m.names[0]!] = m.def.text!(ctx, m.params);
    return t;
  }

  /** 10.0's clean-up after a placeholder ranking: zero num_ret, utility, unj_*, rbp_resid; empty texts. */
  clearPlaceholder(row: Float64Array, base: number, texts: Record<string, string> | undefined): void {
    for (let i = 0; i < this.cleared.length; i++) row[base + this.cleared[i]!] = 0;
    if (texts) for (const k of Object.keys(texts)) texts[k] = '';
  }

  /**
   * The `all` line from per-query rows summed in query order. `evaluated` queries have rows (placeholders
   * included); `denominator` is what means divide by (the qrels' query count under -c);
   * `positiveJudgments` is num_rel's -c summary.
   */
  aggregate(
    sums: Float64Array,
    evaluated: number,
    denominator: number,
    complete: boolean,
    positiveJudgments: number,
  ): Record<string, number> {
    const aggregate: Record<string, number> = {};
    for (const m of this.measures) {
      const agg = m.def.aggregation;
      if (agg === 'none' || agg === 'runid') continue;
      if (agg === 'num-q') {
        aggregate[m.names[0]!] = denominator;
        continue;
      }
      for (let j = 0; j < m.names.length; j++) {
        aggregate[m.names[j]!] = summarize(agg, sums[m.offset + j]!, evaluated, denominator, complete, positiveJudgments);
      }
    }
    return aggregate;
  }

  /** Rows of `slots` values → rows of the printed-per-query values (valueNames order). */
  compact(values: Float64Array, rows: number): Float64Array {
    const width = this.valueNames.length;
    const slots = this.slots;
    if (width === slots) return values;
    const out = new Float64Array(rows * width);
    const slotOf = this.slotOf;
    for (let qi = 0; qi < rows; qi++) for (let j = 0; j < width; j++) out[qi * width + j] = values[qi * slots + slotOf[j]!]!;
    return out;
  }
}

function columnsOf(measures: readonly Compiled[]): OutputColumn[] {
  const cols: OutputColumn[] = [];
  for (const m of measures) {
    const format = m.def.aggregation === 'runid' ? 'runid' : m.def.text ? 'text' : m.def.integer ? 'long' : 'float';
    for (const name of m.names) {
      cols.push({ name, measure: m.def.name, format, perQuery: m.def.perQuery, summary: m.def.aggregation !== 'none' });
    }
  }
  return cols;
}

/** Evaluate `run` against `qrels` (see the module comment for which queries count). */
export function evaluate(qrels: Qrels, run: Run, specs: readonly MeasureSpec[], opts: EvaluateOptions = {}): EvalResult {
  const relevanceLevel = opts.relevanceLevel ?? 1;
  const complete = opts.complete ?? false;
  const maxRetrieved = opts.maxRetrieved ?? Number.POSITIVE_INFINITY;
  const judgedOnly = opts.judgedOnly === true;
  const version = opts.version ?? DEFAULT_TREC_EVAL_VERSION;
  if (!Number.isInteger(relevanceLevel)) throw new Error(`relevance level must be an integer, got ${relevanceLevel}`);
  if (!(maxRetrieved >= 0)) throw new Error(`maxRetrieved must be ≥ 0, got ${maxRetrieved}`);

  const plan = new EvalPlan(specs, version);
  const judged = judgedQueries(qrels);
  const withPlaceholders = complete && version === '10.0';
  const queries = (withPlaceholders ? [...judged.keys()] : [...run.byQuery.keys()].filter((q) => judged.has(q))).sort(compareUtf8);
  const missing = new Set<QueryId>();
  if (withPlaceholders) for (const q of queries) if (!run.byQuery.has(q)) missing.add(q);
  if (queries.length === missing.size)
    throw new Error('no queries with both results and relevance info (no query id of the run is in the qrels)');

  const slots = plan.slots;
  const values = new Float64Array(queries.length * slots);
  const texts: (Record<string, string> | undefined)[] = [];
  const ctx = new ContextBuilder(relevanceLevel, maxRetrieved, version, judgedOnly);
  for (let qi = 0; qi < queries.length; qi++) {
    const qid = queries[qi]!;
    const list = run.byQuery.get(qid);
    const base = qi * slots;
    const c = list === undefined ? ctx.fillPlaceholder(judged.get(qid)!) : ctx.fill(list, qrels.byQuery.get(qid)!, judged.get(qid)!);
    const t = plan.compute(c, values, base);
    if (list === undefined) plan.clearPlaceholder(values, base, t);
    texts.push(t);
  }

  const denominator = complete ? qrels.byQuery.size : queries.length;
  // column sums, added in query order as trec_eval accumulates
  const sums = new Float64Array(slots);
  for (let qi = 0, base = 0; qi < queries.length; qi++, base += slots)
    for (let j = 0; j < slots; j++) sums[j] = sums[j]! + values[base + j]!;
  let positive = 0;
  for (const j of judged.values()) positive += j.numPositive;
  const aggregate = plan.aggregate(sums, queries.length, denominator, complete, positive);
  const perQueryText = new Map<QueryId, Record<string, string>>();
  if (plan.hasText) queries.forEach((q, qi) => perQueryText.set(q, texts[qi]!));
  return makeResult({
    runid: run.name,
    options: { relevanceLevel, complete, maxRetrieved, judgedOnly, version },
    columns: plan.columns,
    queries,
    missing,
    valueNames: plan.valueNames,
    values: plan.compact(values, queries.length),
    perQueryText,
    aggregate,
  });
}

/** An EvalResult from its parts: `perQuery` is built lazily from `values`, and JSON.stringify gives the plain form. */
export function makeResult(parts: Omit<EvalResult, 'perQuery'>): EvalResult {
  const { queries, valueNames, values } = parts;
  let perQuery: Map<QueryId, Record<string, number>> | undefined;
  const result: EvalResult = {
    ...parts,
    get perQuery(): ReadonlyMap<QueryId, Readonly<Record<string, number>>> {
      return (perQuery ??= keyRows(queries, valueNames, values));
    },
  };
  // JSON.stringify(result) gives the plain form; non-enumerable, so structured clone ignores it.
  Object.defineProperty(result, 'toJSON', { value: () => toPlainObject(result), enumerable: false });
  return result;
}

/** qid → name → value records; a template object is spread so every record shares one shape. */
function keyRows(queries: readonly QueryId[], names: readonly string[], rows: Float64Array): Map<QueryId, Record<string, number>> {
  const template: Record<string, number> = {};
  for (const n of names) template[n] = 0;
  const width = names.length;
  const out = new Map<QueryId, Record<string, number>>();
  for (let qi = 0; qi < queries.length; qi++) {
    const rec = { ...template };
    for (let j = 0; j < width; j++) rec[names[j]!] = rows[qi * width + j]!;
    out.set(queries[qi]!, rec);
  }
  return out;
}

function summarize(
  agg: Aggregation,
  sum: number,
  evaluated: number,
  denominator: number,
  complete: boolean,
  positiveJudgments: number,
): number {
  switch (agg) {
    case 'mean':
      return denominator ? sum / denominator : sum;
    case 'sum':
      return sum;
    case 'num-rel':
      return complete ? positiveJudgments : sum;
    case 'geometric': {
      if (denominator <= 0) return sum;
      const patched = complete ? sum + (denominator - evaluated) * Math.log(MIN_GEO_MEAN) : sum;
      return Math.exp(patched / denominator);
    }
    default:
      return sum;
  }
}

/** JSON-friendly form: arrays keep trec_eval query order (object keys like "301" would not). */
export interface EvalResultJson {
  readonly runid: string;
  readonly options: {
    readonly relevanceLevel: number;
    readonly complete: boolean;
    readonly maxRetrieved: number | null;
    /** `-J`: unjudged documents were removed from each ranking. */
    readonly judgedOnly: boolean;
    /** The trec_eval release reproduced ("10.0" or "9.0.8"). */
    readonly version: string;
  };
  readonly measures: readonly string[];
  readonly queries: readonly { readonly qid: QueryId; readonly values: Readonly<Record<string, number | string>> }[];
  readonly all: Readonly<Record<string, number>>;
}

export function toPlainObject(result: EvalResult): EvalResultJson {
  return {
    runid: result.runid,
    options: { ...result.options, maxRetrieved: Number.isFinite(result.options.maxRetrieved) ? result.options.maxRetrieved : null },
    measures: result.columns.map((c) => c.name),
    queries: result.queries.map((qid) => ({ qid, values: { ...result.perQuery.get(qid), ...result.perQueryText.get(qid) } })),
    all: { ...result.aggregate },
  };
}
