/**
 * The engine's open collection: what was read (corpus, queries, the collection's own judgments and runs, gold
 * answers) and the queries the lab ranks. Every other part reads it; only `open` and `fillPassageText` change it.
 */
import { passageText } from '../../core/io/beir.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import type { Corpus, Diagnostic, DocId, Qrels, Queries, QueryId, Run } from '../../core/types.ts';
import { withText } from '../load.ts';
import type { PackCollection } from '../packs.ts';
import type { SyntheticProvenance } from '../../core/judging/synthetic.ts';

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
  /** The queries were made from the documents: what made them. */
  readonly synthetic?: SyntheticProvenance | null;
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
  /** The queries were made from the documents (written by a reader, typed or imported): what made them. */
  readonly synthetic: SyntheticProvenance | null;
}

/** Judgments with grade ≤ 0 (see CollectionSummary.nonRelevantJudgments). */
function countNonRelevant(qrels: Qrels | null): number {
  let n = 0;
  for (const judged of qrels?.byQuery.values() ?? []) for (const g of judged.values()) if (g <= 0) n++;
  return n;
}

/** Ranked entries of a run (all of them for a list kept to a depth: `length`). */
export function rankedEntries(run: Run): number {
  let n = 0;
  for (const list of run.byQuery.values()) n += list.length ?? list.docs.length;
  return n;
}

export class OpenCollection {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = [
    'summary',
    'evaluatedQueries',
    'passageTexts',
    'passage',
    'queryTexts',
  ] as const satisfies readonly (keyof OpenCollection)[];

  #c: LabCollection | null = null;
  /** Indices of the evaluated queries, in queries-file order. */
  #evaluated: number[] = [];

  /** The collection; throws when none is open. */
  get current(): LabCollection {
    if (this.#c === null) throw new Error('no collection is open');
    return this.#c;
  }

  /** Indices (into the queries) of the queries the lab ranks. */
  get evaluated(): readonly number[] {
    return this.#evaluated;
  }

  /** Make `collection` the open one (LabEngine.open also resets the other parts). */
  open(collection: LabCollection): void {
    this.#c = collection;
    const all = collection.queries.ids.map((_, i) => i);
    // Queries without any text (runs with no queries file): every judged one counts — imported runs need no text.
    const anyText = collection.queries.texts.some((t) => t.trim().length > 0);
    // Made queries are all ranked: a typed query has no judgment until the model's labels give it some.
    this.#evaluated =
      collection.qrels && !collection.synthetic ? selectEvaluationQueries(collection.qrels, collection.queries, 1, anyText) : all;
  }

  summary(): CollectionSummary {
    const c = this.current;
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
        lines: rankedEntries(r),
        file: c.runSources?.find((s) => s.run === r.name)?.source ?? r.name,
      })),
      diagnostics: c.diagnostics,
      passagesFromRuns: c.passagesFromRuns === true,
      nonRelevantJudgments: countNonRelevant(c.qrels),
      synthetic: c.synthetic ?? null,
    };
  }

  /** Ids and texts of the queries the lab ranks (what an encoder must encode). */
  evaluatedQueries(): { ids: QueryId[]; texts: string[] } {
    const q = this.current.queries;
    return { ids: this.#evaluated.map((i) => q.ids[i]!), texts: this.#evaluated.map((i) => q.texts[i]!) };
  }

  /** Passage texts in corpus order (`${title}. ${text}`, the paper's encoder input). */
  passageTexts(): string[] {
    const { corpus } = this.current;
    return corpus.ids.map((_, i) => passageText(corpus, i));
  }

  passage(docId: string): { title: string; text: string } {
    const { corpus } = this.current;
    const i = corpus.indexOf.get(docId as DocId);
    if (i === undefined) throw new Error(`document ${JSON.stringify(docId)} is not in the corpus`);
    return { title: corpus.titles[i] ?? '', text: corpus.texts[i] ?? '' };
  }

  /** Query texts by id, for the explorer's list and text filter. */
  queryTexts(): Record<string, string> {
    const { queries } = this.current;
    const out: Record<string, string> = {};
    queries.ids.forEach((id, i) => (out[id] = queries.texts[i] ?? ''));
    return out;
  }

  /** What a vector pack is matched against: passages in corpus order and the evaluated queries, ids and encoder input texts. */
  packCollection(): PackCollection {
    const c = this.current;
    return {
      name: c.name,
      passages: { ids: c.corpus.ids, texts: this.passageTexts() },
      queries: this.evaluatedQueries(),
      allQueries: { ids: c.queries.ids, texts: c.queries.texts },
    };
  }

  /** The passage ids of a collection whose passages came from its runs (what a corpus file is filtered to). */
  passageIds(): DocId[] {
    return [...this.current.corpus.ids];
  }

  /**
   * Text for the passages of a collection without a corpus, from the passages a corpus file held (the rest keep
   * no text). The passages stay the runs' ids: BM25 and encoders still see no corpus of their own.
   */
  fillPassageText(kept: Corpus): void {
    const c = this.current;
    this.#c = { ...c, corpus: withText(c.corpus, kept) };
  }
}
