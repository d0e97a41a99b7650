/**
 * The engine's retrievers: every run of the open collection by name — its own runs, BM25 and the instant
 * lexical candidates ranked here, runs imported from files, fused runs, and encoder runs that grow batch by
 * batch — and the lexical indexes the lab's own runs are ranked with.
 */
import type { KeepOptions } from '../../core/io/run-top.ts';
import { formatRun } from '../../core/io/trec.ts';
import { runAnserini, type AnseriniParams } from '../../core/retrieve/bm25-anserini.ts';
import { runBm25, searchBm25, type Bm25Params } from '../../core/retrieve/bm25.ts';
import { runQl } from '../../core/retrieve/ql.ts';
import { resolveRm3Params, runRm3, type Rm3Params } from '../../core/retrieve/rm3.ts';
import type { Run } from '../../core/types.ts';
import type { StoredVector } from '../../encoders/pooling.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import { runKeepOptions } from '../load.ts';
import { IncrementalVectorRun } from '../vector-run.ts';
import { rankedEntries, type OpenCollection } from './collection.ts';
import { LexicalIndexes } from './indexes.ts';

/** Documents kept per query and run: deep enough for recall@100 / NCG@100 and depth sweeps to 1000. */
export const RUN_DEPTH = 1000;

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

/** An instant lexical candidate's recipe (see `runLexical`). */
export type LexicalSpec =
  | { readonly kind: 'rm3'; readonly params: Partial<Rm3Params> }
  | { readonly kind: 'ql'; readonly mu: number }
  | { readonly kind: 'anserini'; readonly params: AnseriniParams };

type Progress = (done: number, total: number) => void;

export class Retrievers {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = [
    'runBm25',
    'runLexical',
    'beginVectorRun',
    'addVectors',
    'removeRun',
    'runNames',
    'runText',
  ] as const satisfies readonly (keyof Retrievers)[];

  readonly #collection: OpenCollection;
  /** The lexical indexes the lab's own runs are ranked with (the explorer's explanations read them too). */
  readonly indexes: LexicalIndexes;
  readonly #runs = new Map<string, Run>();
  readonly #vectorRuns = new Map<string, IncrementalVectorRun>();
  /**
   * Runs whose lists are complete below RUN_DEPTH: a query that ranks 2 passages matches only 2, which is
   * what the retriever does, not a cut; depth warnings leave such lists out (they warn of cut runs).
   */
  readonly #exhaustive = new Set<string>();

  constructor(collection: OpenCollection) {
    this.#collection = collection;
    this.indexes = new LexicalIndexes(collection);
  }

  /** Drop every run and index, and start from `runs` (another collection was opened: its own runs). */
  reset(runs: readonly Run[]): void {
    this.#runs.clear();
    this.#exhaustive.clear();
    this.#vectorRuns.clear();
    this.indexes.clear();
    for (const run of runs) this.#runs.set(run.name, run);
  }

  /** Rank the evaluated queries with BM25 (the index is kept while k1/b do not change). */
  runBm25(name: string, params: Partial<Bm25Params>, onProgress?: Progress): RunSummary {
    const c = this.#collection.current;
    const evaluated = this.#collection.evaluated;
    return this.#store(runBm25(this.indexes.bm25(params, onProgress), c.corpus, c.queries, evaluated, RUN_DEPTH, name));
  }

  /**
   * Rank the evaluated queries with one of the instant lexical candidates: BM25 + RM3 (first stage: BM25 with
   * the same k1, b), Dirichlet query likelihood, or BM25 as Anserini runs it (Lucene's BM25 on Lucene's English
   * analyzer, exact to Anserini's run file: `fliplab bm25 --preset anserini` writes the same run). No model,
   * no download: seconds on lab-sized collections.
   */
  runLexical(name: string, spec: LexicalSpec, onProgress?: Progress): RunSummary {
    const c = this.#collection.current;
    const evaluated = this.#collection.evaluated;
    if (spec.kind === 'anserini') {
      const index = this.indexes.anserini(spec.params, onProgress);
      return this.#store(runAnserini(index, c.corpus, c.queries, evaluated, RUN_DEPTH, name));
    }
    const lexical = this.indexes.lexical(onProgress);
    if (spec.kind === 'ql') return this.#store(runQl(lexical, c.corpus, c.queries, evaluated, RUN_DEPTH, spec.mu, name));
    const p = resolveRm3Params(spec.params);
    const first = this.indexes.bm25({ k1: p.k1, b: p.b });
    return this.#store(runRm3(lexical, c.corpus, c.queries, evaluated, RUN_DEPTH, (t, n) => searchBm25(first, t, n), p, name));
  }

  /** A lexical run of this lab (BM25, RM3, QL): every list holds every matching passage up to RUN_DEPTH. */
  #store(run: Run): RunSummary {
    this.#runs.set(run.name, run);
    this.#exhaustive.add(run.name);
    return { name: run.name, queries: run.byQuery.size, depth: RUN_DEPTH };
  }

  /** Start (or restart) an encoder run from its query vectors; document vectors follow with `addVectors`. */
  beginVectorRun(name: string, queryVectors: readonly StoredVector[]): RunSummary {
    const c = this.#collection.current;
    const { ids } = this.#collection.evaluatedQueries();
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
    return runKeepOptions(this.#collection.current.qrels, file);
  }

  /** Add a run read from a file. */
  addRun(run: Run): RunSummary {
    this.add(run);
    const depth = Math.max(0, ...[...run.byQuery.values()].map((l) => l.docs.length));
    return { name: run.name, queries: run.byQuery.size, depth, lines: rankedEntries(run) };
  }

  /** Keep a run made elsewhere (a file's, a fusion's) under its name: its short lists may have been cut anywhere. */
  add(run: Run): void {
    this.#runs.set(run.name, run);
    this.#exhaustive.delete(run.name);
  }

  removeRun(name: string): void {
    this.#runs.delete(name);
    this.#exhaustive.delete(name);
    this.#vectorRuns.delete(name);
    // A BM25 (Anserini) index goes with the last run named for its parameters.
    this.indexes.dropAnserini(name);
  }

  run(name: string): Run {
    let run = this.#runs.get(name);
    const growing = this.#vectorRuns.get(name);
    if (!run && growing) {
      run = growing.snapshot(this.#collection.current.corpus);
      this.#runs.set(name, run);
    }
    if (!run) throw new Error(`no run named ${JSON.stringify(name)}`);
    return run;
  }

  /** A run is kept under `name` (an encoder run between a batch and its next snapshot is not, until `run` reads it). */
  has(name: string): boolean {
    return this.#runs.has(name);
  }

  /** The run `name` is one of the lab's lexical runs, whose short lists are complete (see #exhaustive). */
  isExhaustive(name: string): boolean {
    return this.#exhaustive.has(name);
  }

  runNames(): string[] {
    return [...new Set([...this.#runs.keys(), ...this.#vectorRuns.keys()])];
  }

  /** A run as a TREC run file. */
  runText(name: string): string {
    return formatRun(this.run(name), name);
  }
}
