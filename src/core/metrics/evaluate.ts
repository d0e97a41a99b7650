/**
 * Evaluate a run against qrels with any set of measures, trec_eval 9.0.8 semantics, one pass per query.
 *
 * Per query the run's list is put in trec_eval order once (score desc, docid desc; usually already so,
 * then no sort happens), truncated to maxRetrieved (`-M`), and its grades looked up once into a reused
 * Int32Array; then every requested kernel reads that array. No measure re-sorts or re-looks-up.
 *
 * Which queries (trec_eval.c main loop, meas_avg.c):
 * - evaluated: queries present in both the run and the qrels, in strcmp order of their ids (trec_eval
 *   sorts its results file by qid). Run queries without judgments are ignored. Queries whose judgments
 *   hold no relevant document are evaluated like any other (most measures give 0).
 * - averaged over: the evaluated queries; with `complete` (`-c`) the number of queries in the qrels, so
 *   judged queries missing from the run count as 0 — they get no per-query values (trec_eval prints
 *   none for them), but num_rel's summary then counts their judgments (grade > 0) and gm_map/gm_bpref
 *   count them as ln(0.00001).
 */
import type { Qrels, QueryId, Run } from '../types.ts';
import { toPlainObject } from './format.ts';
import { judgedQueries } from './judged.ts';
import { MIN_GEO_MEAN, type Aggregation, type MeasureDef, type MeasureParams } from './measure.ts';
import { outputNames, parseParams, type MeasureSpec } from './parse.ts';
import { compareUtf8, ContextBuilder } from './ranking.ts';
import { findMeasure } from './registry.ts';

export interface EvaluateOptions {
  /** `-l`: minimum grade counted as relevant by binary measures. Default 1. */
  readonly relevanceLevel?: number;
  /** `-c`: average over every query in the qrels (missing ones count 0). Default false. */
  readonly complete?: boolean;
  /** `-M`: evaluate only the first N documents of each query (in trec_eval order). Default unlimited. */
  readonly maxRetrieved?: number;
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
  readonly options: { readonly relevanceLevel: number; readonly complete: boolean; readonly maxRetrieved: number };
  readonly columns: readonly OutputColumn[];
  /** Evaluated queries in trec_eval order (strcmp of ids). */
  readonly queries: readonly QueryId[];
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

function compile(specs: readonly MeasureSpec[]): { measures: Compiled[]; slots: number } {
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
  return { measures, slots };
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
  if (!Number.isInteger(relevanceLevel)) throw new Error(`relevance level must be an integer, got ${relevanceLevel}`);
  if (!(maxRetrieved >= 0)) throw new Error(`maxRetrieved must be ≥ 0, got ${maxRetrieved}`);

  const { measures, slots } = compile(specs);
  const judged = judgedQueries(qrels);
  const queries = [...run.byQuery.keys()].filter((q) => judged.has(q)).sort(compareUtf8);
  if (queries.length === 0) throw new Error('no queries with both results and relevance info (no query id of the run is in the qrels)');

  const numeric = measures.filter((m) => m.offset >= 0);
  const textual = measures.filter((m) => m.def.text !== undefined);
  const values = new Float64Array(queries.length * slots);
  const texts: Record<string, string>[] = [];
  const ctx = new ContextBuilder(relevanceLevel, maxRetrieved);
  for (let qi = 0; qi < queries.length; qi++) {
    const qid = queries[qi]!;
    const c = ctx.fill(run.byQuery.get(qid)!, judged.get(qid)!);
    const base = qi * slots;
    for (let k = 0; k < numeric.length; k++) {
      const m = numeric[k]!;
      m.def.compute(c, m.params, values, base + m.offset);
    }
    if (textual.length > 0) {
      const t: Record<string, string> = {};
      for (const m of textual) t[m.names[0]!] = m.def.text!(c, m.params);
      texts.push(t);
    }
  }

  const denominator = complete ? qrels.byQuery.size : queries.length;
  // column sums, added in query order as trec_eval accumulates
  const sums = new Float64Array(slots);
  for (let qi = 0, base = 0; qi < queries.length; qi++, base += slots)
    for (let j = 0; j < slots; j++) sums[j] = sums[j]! + values[base + j]!;
  const aggregate: Record<string, number> = {};
  for (const m of measures) {
    const agg = m.def.aggregation;
    if (agg === 'none' || agg === 'runid') continue;
    if (agg === 'num-q') {
      aggregate[m.names[0]!] = denominator;
      continue;
    }
    for (let j = 0; j < m.names.length; j++) {
      aggregate[m.names[j]!] = summarize(agg, sums[m.offset + j]!, queries.length, denominator, complete, judged);
    }
  }

  // per-query numeric values, compacted to the printed-per-query columns
  const valueNames: string[] = [];
  const slotOf: number[] = [];
  for (const m of numeric) if (m.def.perQuery) m.names.forEach((name, j) => (valueNames.push(name), slotOf.push(m.offset + j)));
  const width = valueNames.length;
  let rows = values;
  if (width !== slots) {
    rows = new Float64Array(queries.length * width);
    for (let qi = 0; qi < queries.length; qi++) for (let j = 0; j < width; j++) rows[qi * width + j] = values[qi * slots + slotOf[j]!]!;
  }
  const perQueryText = new Map<QueryId, Record<string, string>>();
  if (textual.length > 0) queries.forEach((q, qi) => perQueryText.set(q, texts[qi]!));

  let perQuery: Map<QueryId, Record<string, number>> | undefined;
  const result: EvalResult = {
    runid: run.name,
    options: { relevanceLevel, complete, maxRetrieved },
    columns: columnsOf(measures),
    queries,
    valueNames,
    values: rows,
    get perQuery(): ReadonlyMap<QueryId, Readonly<Record<string, number>>> {
      return (perQuery ??= keyRows(queries, valueNames, rows));
    },
    perQueryText,
    aggregate,
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
  judged: ReturnType<typeof judgedQueries>,
): number {
  switch (agg) {
    case 'mean':
      return denominator ? sum / denominator : sum;
    case 'sum':
      return sum;
    case 'num-rel': {
      if (!complete) return sum;
      let n = 0;
      for (const j of judged.values()) n += j.numPositive;
      return n;
    }
    case 'geometric': {
      if (denominator <= 0) return sum;
      const patched = complete ? sum + (denominator - evaluated) * Math.log(MIN_GEO_MEAN) : sum;
      return Math.exp(patched / denominator);
    }
    default:
      return sum;
  }
}
