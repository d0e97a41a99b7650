/**
 * The lab's engine: everything the app computes, kept off the main thread (workers/lab.worker.ts exposes
 * one instance through comlink; unit tests drive it directly). It holds one collection, its runs (BM25,
 * imported files, and encoder runs that grow batch by batch), and answers the views with small plain
 * objects: prepared flip ranks (the UI re-slices them by depth and label within a frame), measures, one
 * query's side-by-side lists, one passage.
 */
import { prepareFlips, reportFromPrepared, type PreparedFlips } from '../core/flips/analyze.ts';
import type { SupportLabel } from '../core/flips/cohort.ts';
import { fuseRuns, prepareFrontier, type FusionParams, type PreparedFrontier } from '../core/flips/fusion.ts';
import { passageText } from '../core/io/beir.ts';
import { formatRun } from '../core/io/trec.ts';
import { compareRuns, type AgreementReport } from '../core/agreement/index.ts';
import { depthWarnings, listLengths, type DepthWarning } from '../core/depth.ts';
import { LAB_MEASURES, trecEvalName, trecEvalText, type MetricsRow } from '../report/metrics.ts';
import { selectEvaluationQueries } from '../core/io/validate.ts';
import { DEFAULT_TREC_EVAL_VERSION, evaluate, parseMeasures, type EvalResult } from '../core/metrics/index.ts';
import type { SignificanceReport } from '../core/stats/significance.ts';
import { significanceOfResults, systemValues, TRACK_SIGNIFICANCE } from '../report/significance.ts';
import {
  bm25IndexFrom,
  explainBm25,
  parseBm25RunName,
  resolveBm25Params,
  runBm25,
  searchBm25,
  type Bm25Index,
  type Bm25Params,
} from '../core/retrieve/bm25.ts';
import {
  anseriniRunName,
  buildAnseriniIndex,
  checkAnseriniParams,
  explainAnserini,
  parseAnseriniRunName,
  runAnserini,
  type AnseriniIndex,
  type AnseriniParams,
} from '../core/retrieve/bm25-anserini.ts';
import { lexicalIndexFrom, type LexicalIndex } from '../core/retrieve/lexical.ts';
import { countTermDocs, type TermDocs } from '../core/retrieve/term-docs.ts';
import { explainQl, parseQlRunName, runQl } from '../core/retrieve/ql.ts';
import { parseRm3RunName, resolveRm3Params, rm3Expand, runRm3, type ExpandedQuery, type Rm3Params } from '../core/retrieve/rm3.ts';
import { readerTasks, type ReaderTaskSet, type ReaderTemplate } from '../core/answers/prompt.ts';
import type { Corpus, Diagnostic, DocId, Qrels, Queries, QueryId, Run } from '../core/types.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { PackCollection } from './packs.ts';
import type {
  AnseriniExplanation,
  Bm25Explanation,
  QlExplanation,
  QueryDetail,
  RankedDoc,
  TermExplanation,
  TrackReport,
} from '../lab/types.ts';
import { IncrementalVectorRun } from './vector-run.ts';
import { runKeepOptions, withText } from './load.ts';
import type { CollectionFile } from '../lab/data/types.ts';
import { forEvaluation, type KeepOptions } from '../core/io/run-top.ts';
import { judgmentsToQrels, mergeQrels, type Judgment } from '../core/io/judgments.ts';

/** Documents kept per query and run: deep enough for recall@100 / NCG@100 and depth sweeps to 1000. */
export const RUN_DEPTH = 1000;

/** What a loaded collection gives the engine (the data layer's `LoadedCollection` satisfies it). */
export interface LabCollection {
  readonly name: string;
  readonly corpus: Corpus;
  readonly queries: Queries;
  readonly qrels: Qrels | null;
  readonly runs: readonly Run[];
  readonly diagnostics: readonly Diagnostic[];
  readonly split?: string | null;
  readonly splits?: readonly string[];
  readonly gold?: ReadonlyMap<string, readonly string[]>;
  /** No corpus: the passages are the ids the runs rank, with no text. */
  readonly passagesFromRuns?: boolean;
  /** Where each run came from (the file the user gave), by run name. */
  readonly runSources?: readonly { readonly run: string; readonly source: string }[];
}

export interface CollectionSummary {
  readonly name: string;
  readonly docs: number;
  readonly queries: number;
  /** Queries the lab ranks: judged with a positive grade when there are judgments, else every query. */
  readonly evaluated: number;
  readonly judged: boolean;
  readonly split: string | null;
  readonly splits: readonly string[];
  /**
   * Runs that came with the collection: name, queries, ranked entries (lines of the run file, duplicates dropped),
   * and the file it was read from (its path inside the collection).
   */
  readonly runs: readonly { readonly name: string; readonly queries: number; readonly lines: number; readonly file: string }[];
  readonly diagnostics: readonly Diagnostic[];
  /**
   * No corpus was given: `docs` counts the passages the runs rank, and there is no text to rank with (BM25,
   * RM3, QL and encoders need it); imported runs are the retrievers.
   */
  readonly passagesFromRuns: boolean;
  /**
   * Judgments with grade ≤ 0 in the collection's qrels. None (most BEIR sets judge only relevant passages):
   * every other passage is unjudged, so "unjudged" cannot tell a hole from a non-relevant passage.
   */
  readonly nonRelevantJudgments: number;
}

export interface RunSummary {
  readonly name: string;
  readonly queries: number;
  readonly depth: number;
  /** Ranked entries (imported runs: the file's lines, duplicates dropped). */
  readonly lines?: number;
  /** For encoder runs: documents encoded so far (partial while < docs). */
  readonly encodedDocs?: number;
  readonly docs?: number;
}

/** Judgments with grade ≤ 0 (see CollectionSummary.nonRelevantJudgments). */
function countNonRelevant(qrels: Qrels | null): number {
  let n = 0;
  for (const judged of qrels?.byQuery.values() ?? []) for (const g of judged.values()) if (g <= 0) n++;
  return n;
}

/** Ranked entries of a run (all of them for a list kept to a depth: `length`). */
const entries = (run: Run): number => {
  let n = 0;
  for (const list of run.byQuery.values()) n += list.length ?? list.docs.length;
  return n;
};

/** An instant lexical candidate's recipe (see `runLexical`). */
export type LexicalSpec =
  | { readonly kind: 'rm3'; readonly params: Partial<Rm3Params> }
  | { readonly kind: 'ql'; readonly mu: number }
  | { readonly kind: 'anserini'; readonly params: AnseriniParams };

export class LabEngine {
  #c: LabCollection | null = null;
  #evaluated: number[] = [];
  readonly #runs = new Map<string, Run>();
  readonly #vectorRuns = new Map<string, IncrementalVectorRun>();
  #bm25: { key: string; index: Bm25Index } | null = null;
  #lexical: LexicalIndex | null = null;
  /**
   * Lucene/Anserini BM25 indexes (core/retrieve/bm25-anserini.ts: its own analyzer and documents, so nothing is
   * shared with the indexes above), one per parameters, keyed by the run name they make (`anseriniRunName`):
   * built once, kept while a run of theirs is (the explorer's explanations read them).
   */
  readonly #anserini = new Map<string, AnseriniIndex>();
  /** The term–document pass both indexes above are built from: the collection is tokenized once. */
  #terms: TermDocs | null = null;
  /** Judgments the user added (core/io/judgments.ts), layered over the collection's qrels; null: none. */
  #added: Qrels | null = null;
  #merged: Qrels | null = null;
  /**
   * Measures already computed, by qrels and run (both immutable: new judgments make new qrels, a growing
   * vector run a new snapshot) and setting: a change of k or of the compared runs re-measures nothing (an MS
   * MARCO-sized kept run takes seconds to measure as its whole file).
   */
  readonly #measured = new WeakMap<Qrels, WeakMap<Run, Map<string, EvalResult>>>();

  #collection(): LabCollection {
    if (this.#c === null) throw new Error('no collection is open');
    return this.#c;
  }

  /** The qrels every measure reads: the collection's, with the added judgments over them (null: no judgments). */
  #qrels(): Qrels | null {
    const base = this.#collection().qrels;
    if (base === null || this.#added === null) return base;
    this.#merged ??= mergeQrels([
      { name: 'collection', qrels: base },
      { name: 'added', qrels: this.#added },
    ]).qrels;
    return this.#merged;
  }

  /**
   * The judgments layer: what the user judged, in order (the last judgment of a pair wins). Replaces the
   * previous layer; the collection's qrels never change.
   */
  setJudgments(judgments: readonly Judgment[]): void {
    this.#added = judgments.length === 0 ? null : judgmentsToQrels(judgments);
    this.#merged = null;
  }

  /** Distinct (query, passage) pairs in the judgments layer the measures read now. */
  addedPairs(): number {
    let n = 0;
    for (const judged of this.#added?.byQuery.values() ?? []) n += judged.size;
    return n;
  }

  /** Make `collection` the current one (runs of the previous collection are dropped). */
  open(collection: LabCollection): CollectionSummary {
    this.#c = collection;
    this.#runs.clear();
    this.#exhaustive.clear();
    this.#vectorRuns.clear();
    this.#bm25 = null;
    this.#lexical = null;
    this.#anserini.clear();
    this.#terms = null;
    this.#added = null;
    this.#merged = null;
    const all = collection.queries.ids.map((_, i) => i);
    // Queries without any text (runs with no queries file): every judged one counts — imported runs need no text.
    const anyText = collection.queries.texts.some((t) => t.trim().length > 0);
    this.#evaluated = collection.qrels ? selectEvaluationQueries(collection.qrels, collection.queries, 1, anyText) : all;
    for (const run of collection.runs) this.#runs.set(run.name, run);
    return this.summary();
  }

  summary(): CollectionSummary {
    const c = this.#collection();
    return {
      name: c.name,
      docs: c.corpus.ids.length,
      queries: c.queries.ids.length,
      evaluated: this.#evaluated.length,
      judged: c.qrels !== null,
      split: c.split ?? null,
      splits: c.splits ?? [],
      runs: c.runs.map((r) => ({
        name: r.name,
        queries: r.byQuery.size,
        lines: entries(r),
        file: c.runSources?.find((s) => s.run === r.name)?.source ?? r.name,
      })),
      diagnostics: c.diagnostics,
      passagesFromRuns: c.passagesFromRuns === true,
      nonRelevantJudgments: countNonRelevant(c.qrels),
    };
  }

  /** Ids and texts of the queries the lab ranks (what an encoder must encode). */
  evaluatedQueries(): { ids: QueryId[]; texts: string[] } {
    const q = this.#collection().queries;
    return { ids: this.#evaluated.map((i) => q.ids[i]!), texts: this.#evaluated.map((i) => q.texts[i]!) };
  }

  /** What a vector pack is matched against: passages in corpus order and the evaluated queries, ids and encoder input texts. */
  packCollection(): PackCollection {
    const c = this.#collection();
    return {
      name: c.name,
      passages: { ids: c.corpus.ids, texts: this.passageTexts() },
      queries: this.evaluatedQueries(),
      allQueries: { ids: c.queries.ids, texts: c.queries.texts },
    };
  }

  /** Passage texts in corpus order (`${title}. ${text}`, the paper's encoder input). */
  passageTexts(): string[] {
    const { corpus } = this.#collection();
    return corpus.ids.map((_, i) => passageText(corpus, i));
  }

  /** Rank the evaluated queries with BM25 (the index is kept while k1/b do not change). */
  runBm25(name: string, params: Partial<Bm25Params>, onProgress?: (done: number, total: number) => void): RunSummary {
    const c = this.#collection();
    const run = runBm25(this.#bm25Index(params, onProgress), c.corpus, c.queries, this.#evaluated, RUN_DEPTH, name);
    return this.#store(run);
  }

  /**
   * Rank the evaluated queries with one of the instant lexical candidates: BM25 + RM3 (first stage: BM25 with
   * the same k1, b), Dirichlet query likelihood, or BM25 as Anserini runs it (Lucene's BM25 on Lucene's English
   * analyzer, exact to Anserini's run file: `fliplab bm25 --preset anserini` writes the same run). No model,
   * no download: seconds on lab-sized collections.
   */
  runLexical(name: string, spec: LexicalSpec, onProgress?: (done: number, total: number) => void): RunSummary {
    const c = this.#collection();
    if (spec.kind === 'anserini') {
      const index = this.#anseriniIndex(spec.params, onProgress);
      return this.#store(runAnserini(index, c.corpus, c.queries, this.#evaluated, RUN_DEPTH, name));
    }
    this.#lexical ??= lexicalIndexFrom(this.#termDocs(onProgress), onProgress ? { onProgress } : {});
    if (spec.kind === 'ql') return this.#store(runQl(this.#lexical, c.corpus, c.queries, this.#evaluated, RUN_DEPTH, spec.mu, name));
    const p = resolveRm3Params(spec.params);
    const first = this.#bm25Index({ k1: p.k1, b: p.b });
    const run = runRm3(this.#lexical, c.corpus, c.queries, this.#evaluated, RUN_DEPTH, (t, n) => searchBm25(first, t, n), p, name);
    return this.#store(run);
  }

  /**
   * Why a BM25 run scored a document: each distinct query term's tf, df, idf and weight (times its count in
   * the query), for the explorer (core/retrieve/bm25-explain.ts `explainBm25`, from the term–document pass).
   * Null when `run` is not a BM25 run or the query or document is unknown. Weights follow the paper's formula
   * with the float32 idf; their sum equals the run's score up to the reference's float32 rounding of the
   * running total.
   */
  explainBm25(qid: string, docId: string, run: string): Bm25Explanation | null {
    const params = parseBm25RunName(run);
    const c = this.#collection();
    const qi = c.queries.indexOf.get(qid as QueryId);
    const d = c.corpus.indexOf.get(docId as DocId);
    if (params === null || qi === undefined || d === undefined) return null;
    return { kind: 'bm25', run, ...explainBm25(this.#termDocs(), params, c.queries.texts[qi] ?? '', d) };
  }

  /**
   * Why a query-likelihood run scored a document: each distinct query term's share and the length term,
   * computed as the ranker computes them (core/retrieve/ql.ts `explainQl`: they sum to the run's score).
   * Null when `run` is not a QL run or the query or document is unknown.
   */
  explainQl(qid: string, docId: string, run: string): QlExplanation | null {
    const params = parseQlRunName(run);
    const c = this.#collection();
    const qi = c.queries.indexOf.get(qid as QueryId);
    const d = c.corpus.indexOf.get(docId as DocId);
    if (params === null || qi === undefined || d === undefined) return null;
    this.#lexical ??= lexicalIndexFrom(this.#termDocs());
    return { kind: 'ql', run, ...explainQl(this.#lexical, c.queries.texts[qi] ?? '', d, params.mu) };
  }

  /**
   * Why a BM25 (Anserini) run scored a document: one row per (field, term) clause of the Lucene query, with
   * Lucene's float score of each (core/retrieve/bm25-anserini.ts `explainAnserini`). `total` is Lucene's score,
   * before Anserini's tie adjustment (4 decimals) that the run's scores went through. Null when `run` is not a
   * BM25 (Anserini) run of this lab or the query or document is unknown.
   */
  explainAnserini(qid: string, docId: string, run: string): AnseriniExplanation | null {
    const params = parseAnseriniRunName(run);
    const c = this.#collection();
    const qi = c.queries.indexOf.get(qid as QueryId);
    const d = c.corpus.indexOf.get(docId as DocId);
    if (params === null || qi === undefined || d === undefined || !this.#runs.has(run)) return null;
    const { terms, total } = explainAnserini(this.#anseriniIndex(params), c.queries.texts[qi] ?? '', d);
    return { kind: 'anserini', run, fields: params.fields, terms, total };
  }

  /** The per-term explanation of `run`'s score (BM25, BM25 (Anserini) or query likelihood); null for other runs. */
  explain(qid: string, docId: string, run: string): TermExplanation | null {
    return this.explainBm25(qid, docId, run) ?? this.explainAnserini(qid, docId, run) ?? this.explainQl(qid, docId, run);
  }

  /**
   * What RM3 searched for one query: the expanded query's terms and weights (token order), for the explorer.
   * Null when `run` is not an RM3 run or the query is unknown.
   */
  rm3Expansion(qid: string, run: string): ExpandedQuery | null {
    const params = parseRm3RunName(run);
    const c = this.#collection();
    const qi = c.queries.indexOf.get(qid as QueryId);
    if (params === null || qi === undefined) return null;
    this.#lexical ??= lexicalIndexFrom(this.#termDocs());
    const text = c.queries.texts[qi] ?? '';
    const first = searchBm25(this.#bm25Index({ k1: params.k1, b: params.b }), text, params.fbDocs);
    return rm3Expand(this.#lexical, text, first, params);
  }

  /** The BM25 index for these parameters (the last one is kept while k1/b do not change). */
  #bm25Index(params: Partial<Bm25Params>, onProgress?: (done: number, total: number) => void): Bm25Index {
    const resolved = resolveBm25Params(params);
    const key = JSON.stringify(resolved);
    if (this.#bm25?.key !== key)
      this.#bm25 = { key, index: bm25IndexFrom(this.#termDocs(onProgress), resolved, onProgress ? { onProgress } : {}) };
    return this.#bm25.index;
  }

  /** The Lucene/Anserini index for these parameters, built on first use (refused with a RangeError when out of range). */
  #anseriniIndex(params: AnseriniParams, onProgress?: (done: number, total: number) => void): AnseriniIndex {
    const p = checkAnseriniParams(params);
    const key = anseriniRunName(p);
    let index = this.#anserini.get(key);
    if (index === undefined) {
      index = buildAnseriniIndex(this.#collection().corpus, p, onProgress ? { onProgress } : {});
      this.#anserini.set(key, index);
    }
    return index;
  }

  #termDocs(onProgress?: (done: number, total: number) => void): TermDocs {
    this.#terms ??= countTermDocs(this.#collection().corpus, onProgress ? { onProgress } : {});
    return this.#terms;
  }

  /**
   * A fused run of a candidate with the reference (core/flips/fusion.ts), RUN_DEPTH deep, added as `name`:
   * the whole analysis and the explorer then apply to it.
   */
  addFused(name: string, reference: string, candidate: string, params: FusionParams): RunSummary {
    const run = fuseRuns(this.run(reference), this.run(candidate), params, RUN_DEPTH, name);
    this.#runs.set(name, run);
    this.#exhaustive.delete(name);
    return { name, queries: run.byQuery.size, depth: RUN_DEPTH, lines: entries(run) };
  }

  /** The fusion frontier of `candidate` with `reference`, prepared for any budget up to maxDepth (core/flips/fusion.ts). */
  prepareFrontier(
    reference: string,
    candidate: string,
    options: { maxDepth: number; relevanceLevel?: number; label?: SupportLabel },
  ): PreparedFrontier {
    const qrels = this.#qrels();
    if (qrels === null) throw new Error('this collection has no judgments: the frontier counts broken and fixed queries');
    return prepareFrontier(qrels, this.run(reference), this.run(candidate), options);
  }

  /** A lexical run of this lab (BM25, RM3, QL): every list holds every matching passage up to RUN_DEPTH. */
  #store(run: Run): RunSummary {
    this.#runs.set(run.name, run);
    this.#exhaustive.add(run.name);
    return { name: run.name, queries: run.byQuery.size, depth: RUN_DEPTH };
  }

  /**
   * Runs whose lists are complete below RUN_DEPTH: a query that ranks 2 passages matches only 2, which is
   * what the retriever does, not a cut; depth warnings leave such lists out (they warn of cut runs).
   */
  readonly #exhaustive = new Set<string>();

  /** Start (or restart) an encoder run from its query vectors; document vectors follow with `addVectors`. */
  beginVectorRun(name: string, queryVectors: readonly StoredVector[]): RunSummary {
    const c = this.#collection();
    const { ids } = this.evaluatedQueries();
    const run = new IncrementalVectorRun(name, ids, queryVectors, RUN_DEPTH, c.corpus.ids.length);
    this.#vectorRuns.set(name, run);
    this.#runs.set(name, run.snapshot(c.corpus));
    this.#exhaustive.delete(name);
    return this.#vectorSummary(run);
  }

  /** Add a batch of document vectors (`positions` = corpus indices) and refresh the run. */
  addVectors(name: string, positions: readonly number[], vectors: readonly StoredVector[]): RunSummary {
    const run = this.#vectorRuns.get(name);
    if (!run) throw new Error(`no encoder run named ${JSON.stringify(name)} was started`);
    run.add(positions, vectors);
    // The Run is rebuilt lazily (in run()), once per analysis rather than once per batch.
    this.#runs.delete(name);
    return this.#vectorSummary(run);
  }

  #vectorSummary(run: IncrementalVectorRun): RunSummary {
    return { name: run.name, queries: run.queryIds.length, depth: run.depth, encodedDocs: run.encodedDocs, docs: run.docCount };
  }

  /** How a run read from `file` is kept for this collection (load.ts's rule), with its judgments' positions. */
  keepOptions(file: CollectionFile): KeepOptions {
    return runKeepOptions(this.#collection().qrels, file);
  }

  /** Add a run read from a file. */
  addRun(run: Run): RunSummary {
    this.#runs.set(run.name, run);
    this.#exhaustive.delete(run.name); // a file's lists may have been cut anywhere
    const depth = Math.max(0, ...[...run.byQuery.values()].map((l) => l.docs.length));
    return { name: run.name, queries: run.byQuery.size, depth, lines: entries(run) };
  }

  removeRun(name: string): void {
    this.#runs.delete(name);
    this.#exhaustive.delete(name);
    this.#vectorRuns.delete(name);
    // A BM25 (Anserini) index goes with the last run named for its parameters.
    this.#anserini.delete(name);
  }

  run(name: string): Run {
    let run = this.#runs.get(name);
    const growing = this.#vectorRuns.get(name);
    if (!run && growing) {
      run = growing.snapshot(this.#collection().corpus);
      this.#runs.set(name, run);
    }
    if (!run) throw new Error(`no run named ${JSON.stringify(name)}`);
    return run;
  }

  runNames(): string[] {
    return [...new Set([...this.#runs.keys(), ...this.#vectorRuns.keys()])];
  }

  /** Depth- and label-independent flip ranks; the UI builds any report from them in a frame. */
  prepare(
    reference: string,
    candidates: readonly string[],
    options: { maxDepth: number; relevanceLevel?: number; judgedOnly?: boolean; cohortAt?: number; label?: SupportLabel },
  ): PreparedFlips {
    const qrels = this.#qrels();
    if (qrels === null) throw new Error('this collection has no judgments: flips need qrels (compare runs by overlap instead)');
    return prepareFlips(
      qrels,
      this.run(reference),
      candidates.map((n) => this.run(n)),
      options,
    );
  }

  /**
   * The lab's measures of a run under the analysis' settings, per query and averaged, computed once per
   * (qrels, run, setting): the table, the paired tests and the exports read the same evaluation.
   */
  #evaluation(qrels: Qrels, name: string, relevanceLevel: number, judgedOnly: boolean): EvalResult {
    // The lab follows trec_eval's default release (10.0); each row says so, and the reports repeat it.
    const version = DEFAULT_TREC_EVAL_VERSION;
    let byRun = this.#measured.get(qrels);
    if (byRun === undefined) this.#measured.set(qrels, (byRun = new WeakMap()));
    const run = this.run(name);
    let bySetting = byRun.get(run);
    if (bySetting === undefined) byRun.set(run, (bySetting = new Map()));
    const setting = `${relevanceLevel}|${judgedOnly}|${version}`;
    let result = bySetting.get(setting);
    if (result === undefined) {
      // A run kept to a depth is measured as its whole file (core/io/run-top.ts forEvaluation).
      const specs = parseMeasures(
        LAB_MEASURES.map((m) => m.key),
        version,
      );
      result = evaluate(qrels, forEvaluation(run), specs, { relevanceLevel, version, judgedOnly });
      bySetting.set(setting, result);
    }
    return result;
  }

  /** The lab's TREC measures for each run (trec_eval semantics: judged queries the run answered). */
  metrics(names: readonly string[], partial: readonly string[] = [], relevanceLevel = 1, judgedOnly = false): MetricsRow[] {
    const qrels = this.#qrels();
    if (qrels === null) return [];
    return names.map((name) => {
      const result = this.#evaluation(qrels, name, relevanceLevel, judgedOnly);
      const values: Record<string, number> = {};
      for (const m of LAB_MEASURES) {
        // trec_eval prints "ndcg_cut.10" as "ndcg_cut_10"; the lab keys values by the measure's spec.
        const v = result.aggregate[m.key.replace('.', '_')];
        if (v !== undefined) values[m.key] = v;
      }
      return { run: name, partial: partial.includes(name), values, trecEval: DEFAULT_TREC_EVAL_VERSION };
    });
  }

  /**
   * Is each candidate's difference from the reference real? The paired tests of every lab measure
   * (report/significance.ts LAB_SIGNIFICANCE), over the queries both runs are evaluated on; null without
   * judgments or candidates.
   */
  significance(reference: string, candidates: readonly string[], relevanceLevel = 1, judgedOnly = false): SignificanceReport | null {
    const qrels = this.#qrels();
    if (qrels === null || candidates.length === 0) return null;
    return significanceOfResults(
      [reference, ...candidates].map((name) => ({ name, result: this.#evaluation(qrels, name, relevanceLevel, judgedOnly) })),
    );
  }

  /**
   * Per-query differences of one lab measure (`measureKey`, e.g. "ndcg_cut.10"), candidate − reference, over
   * the queries both are evaluated on: what the difference plot draws (the significance rows summarise them).
   */
  differences(
    reference: string,
    candidate: string,
    measureKey: string,
    relevanceLevel = 1,
    judgedOnly = false,
  ): { measure: string; queries: string[]; diffs: number[] } | null {
    const qrels = this.#qrels();
    if (qrels === null) return null;
    const measure = trecEvalName(measureKey);
    const [ref, cand] = [reference, candidate].map((name) =>
      systemValues(name, this.#evaluation(qrels, name, relevanceLevel, judgedOnly), [measure]).byMeasure.get(measure)!,
    );
    const queries = [...ref!.keys()].filter((q) => cand!.has(q));
    return { measure, queries, diffs: queries.map((q) => cand!.get(q)! - ref!.get(q)!) };
  }

  /**
   * A whole track against the reference: the tests of one lab measure for every run (report/significance.ts
   * TRACK_SIGNIFICANCE, Tukey HSD included) and each run's broken, fixed and negative-flip rate at each depth.
   */
  track(
    reference: string,
    runs: readonly string[],
    options: { measure: string; depths: readonly number[]; relevanceLevel: number; judgedOnly: boolean; label: SupportLabel },
  ): TrackReport | null {
    const qrels = this.#qrels();
    if (qrels === null || runs.length === 0) return null;
    const measure = trecEvalName(options.measure);
    const significance = significanceOfResults(
      [reference, ...runs].map((name) => ({ name, result: this.#evaluation(qrels, name, options.relevanceLevel, options.judgedOnly) })),
      TRACK_SIGNIFICANCE,
      [measure],
    );
    const prepared = this.prepare(reference, runs, {
      maxDepth: Math.max(...options.depths),
      relevanceLevel: options.relevanceLevel,
      judgedOnly: options.judgedOnly,
      label: options.label,
    });
    const report = reportFromPrepared(prepared, { depths: options.depths, label: options.label });
    const flips = runs.map((run) => ({
      run,
      depths: report.depths.map((d) => {
        const c = d.candidates.find((x) => x.name === run)!;
        return { k: d.k, broken: c.broken, fixed: c.fixed, negative_flip_rate: c.negative_flip_rate };
      }),
    }));
    return { measure, significance, flips };
  }

  /** One query: its judgments and the top-k of each named run, with titles and grades. */
  detail(qid: string, runs: readonly string[], k: number): QueryDetail {
    const c = this.#collection();
    const q = c.queries.indexOf.get(qid as QueryId);
    const judgments = this.#qrels()?.byQuery.get(qid as QueryId);
    const added = this.#added?.byQuery.get(qid as QueryId);
    const gradeOf = (d: DocId): number | null => judgments?.get(d) ?? null;
    const lists = runs.map((name) => {
      const list = this.run(name).byQuery.get(qid as QueryId);
      const docs: RankedDoc[] = [];
      let firstRelevant: number | null = null;
      const n = Math.min(k, list?.docs.length ?? 0);
      for (let r = 0; r < (list?.docs.length ?? 0); r++) {
        const docId = list!.docs[r]!;
        const grade = gradeOf(docId);
        if (firstRelevant === null && grade !== null && grade > 0) firstRelevant = r + 1;
        if (r < n) {
          const i = c.corpus.indexOf.get(docId);
          const title = i === undefined ? '' : (c.corpus.titles[i] ?? '');
          docs.push({ docId, rank: r + 1, score: list!.scores[r]!, title, grade, added: added?.has(docId) === true });
        }
      }
      return { run: name, docs, firstRelevant };
    });
    return {
      qid,
      text: q === undefined ? '' : (c.queries.texts[q] ?? ''),
      judged: [...(judgments ?? new Map<DocId, number>())].map(([docId, grade]) => ({ docId, grade })),
      lists,
    };
  }

  /** The passage ids of a collection whose passages came from its runs (what a corpus file is filtered to). */
  passageIds(): DocId[] {
    return [...this.#collection().corpus.ids];
  }

  /**
   * Text for the passages of a collection without a corpus, from the passages a corpus file held (the rest keep
   * no text). The passages stay the runs' ids: BM25 and encoders still see no corpus of their own.
   */
  fillPassageText(kept: Corpus): void {
    const c = this.#collection();
    this.#c = { ...c, corpus: withText(c.corpus, kept) };
  }

  passage(docId: string): { title: string; text: string } {
    const { corpus } = this.#collection();
    const i = corpus.indexOf.get(docId as DocId);
    if (i === undefined) throw new Error(`document ${JSON.stringify(docId)} is not in the corpus`);
    return { title: corpus.titles[i] ?? '', text: corpus.texts[i] ?? '' };
  }

  /** Gold answers from the queries' metadata (empty when the collection has none). */
  goldAnswers(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [id, answers] of this.#collection().gold ?? []) out[id] = [...answers];
    return out;
  }

  /** The reader's tasks for `queryIds` under run `name`: question, top-k passages, messages (core/answers/prompt.ts). */
  readerTasks(name: string, queryIds: readonly string[], k: number, template: ReaderTemplate): ReaderTaskSet {
    const c = this.#collection();
    const run = this.run(name);
    const questions = new Map(c.queries.ids.map((id, i) => [id as string, c.queries.texts[i] ?? '']));
    return readerTasks(template, c.corpus, questions, (q) => run.byQuery.get(q as QueryId)?.docs, queryIds, k);
  }

  /** Query texts by id, for the explorer's list and text filter. */
  queryTexts(): Record<string, string> {
    const { queries } = this.#collection();
    const out: Record<string, string> = {};
    queries.ids.forEach((id, i) => (out[id] = queries.texts[i] ?? ''));
    return out;
  }

  /** Overlap@k and rank-biased overlap between runs: the comparison that needs no judgments (per query on request). */
  compare(
    reference: string,
    candidates: readonly string[],
    depths: readonly number[],
    options: { perQuery?: boolean } = {},
  ): AgreementReport {
    return compareRuns(
      this.run(reference),
      candidates.map((n) => this.run(n)),
      depths,
      { perQuery: options.perQuery === true },
    );
  }

  /**
   * Depth honesty, as the CLI's `flips` and `compare` print it: a warning per run and depth that some of its
   * queries do not reach (core/depth.ts) — what the exports carry, byte for byte the CLI's. `cut`: the same
   * for what the lab shows, where the lab's own lexical lists count as complete (a list shorter than the depth
   * they were ranked to left nothing out: it reaches every depth the corpus has). `corpus` is the collection's
   * size: no run can reach a depth beyond it.
   */
  depthWarnings(runs: readonly string[], depths: readonly number[]): { warnings: DepthWarning[]; cut: DepthWarning[]; corpus: number } {
    const corpus = this.#collection().corpus.ids.length;
    const requested = depths.map((k) => ({ k, label: `depth ${k}` }));
    const lengths = runs.map((name) => ({ name, lengths: listLengths(this.run(name)) }));
    const reach = Math.min(RUN_DEPTH, corpus);
    const complete = lengths.map((r) =>
      this.#exhaustive.has(r.name) ? { ...r, lengths: r.lengths.map((n) => (n < RUN_DEPTH ? reach : n)) } : r,
    );
    return { warnings: depthWarnings(lengths, requested), cut: depthWarnings(complete, requested), corpus };
  }

  /** trec_eval's text output for a run (the same text `fliplab eval` prints). */
  trecEval(name: string, relevanceLevel = 1, judgedOnly = false): string {
    const qrels = this.#qrels();
    if (qrels === null) throw new Error('this collection has no judgments to evaluate against');
    return trecEvalText(qrels, forEvaluation(this.run(name)), { relevanceLevel, judgedOnly });
  }

  /**
   * The holes to judge, in the order asked: for each (query, run), the passages of the run's top k that the
   * qrels (added judgments included) do not judge with a grade ≥ 0.
   */
  holes(items: readonly { readonly qid: string; readonly run: string }[], k: number): { qid: string; run: string; docId: string }[] {
    const qrels = this.#qrels();
    const out: { qid: string; run: string; docId: string }[] = [];
    for (const { qid, run } of items) {
      const judged = qrels?.byQuery.get(qid as QueryId);
      const docs = this.run(run).byQuery.get(qid as QueryId)?.docs ?? [];
      for (const d of docs.slice(0, k)) if (!((judged?.get(d) ?? -1) >= 0)) out.push({ qid, run, docId: d });
    }
    return out;
  }

  /** The grades the collection's qrels use (at least 0 and 1), for the judging buttons. */
  grades(): number[] {
    const set = new Set<number>([0, 1]);
    for (const m of this.#collection().qrels?.byQuery.values() ?? []) for (const g of m.values()) if (g >= 0) set.add(g);
    return [...set].sort((a, b) => a - b);
  }

  /** A run as a TREC run file. */
  runText(name: string): string {
    return formatRun(this.run(name), name);
  }
}
