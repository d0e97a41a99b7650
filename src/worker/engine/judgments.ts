/**
 * The engine's judgments: the collection's qrels with the layer of judgments the user added over them
 * (core/io/judgments.ts; the collection's qrels never change), what every measure and flip reads, and the
 * holes left to judge.
 */
import { judgmentsToQrels, mergeQrels, type Judgment } from '../../core/io/judgments.ts';
import type { DocId, Qrels, QueryId } from '../../core/types.ts';
import type { OpenCollection } from './collection.ts';
import type { Retrievers } from './retrievers.ts';

export class Judgments {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = ['setJudgments', 'holes', 'grades'] as const satisfies readonly (keyof Judgments)[];

  readonly #collection: OpenCollection;
  readonly #retrievers: Retrievers;
  /** Judgments the user added, layered over the collection's qrels; null: none. */
  #added: Qrels | null = null;
  /** The collection's qrels with #added over them, merged on first use. */
  #merged: Qrels | null = null;

  constructor(collection: OpenCollection, retrievers: Retrievers) {
    this.#collection = collection;
    this.#retrievers = retrievers;
  }

  /**
   * The judgments layer: what the user judged, in order (the last judgment of a pair wins). Replaces the
   * previous layer; the collection's qrels never change. `[]`: none (another collection was opened).
   */
  setJudgments(judgments: readonly Judgment[]): void {
    this.#added = judgments.length === 0 ? null : judgmentsToQrels(judgments);
    this.#merged = null;
  }

  /** The qrels every measure reads: the collection's, with the added judgments over them (null: no judgments). */
  qrels(): Qrels | null {
    const base = this.#collection.current.qrels;
    if (base === null || this.#added === null) return base;
    this.#merged ??= mergeQrels([
      { name: 'collection', qrels: base },
      { name: 'added', qrels: this.#added },
    ]).qrels;
    return this.#merged;
  }

  /** The passages of `qid` the added layer judges (the explorer marks them), by grade; undefined: none. */
  addedFor(qid: QueryId): ReadonlyMap<DocId, number> | undefined {
    return this.#added?.byQuery.get(qid);
  }

  /** Distinct (query, passage) pairs in the judgments layer the measures read now. */
  addedPairs(): number {
    let n = 0;
    for (const judged of this.#added?.byQuery.values() ?? []) n += judged.size;
    return n;
  }

  /**
   * The holes to judge, in the order asked: for each (query, run), the passages of the run's top k that the
   * qrels (added judgments included) do not judge with a grade ≥ 0.
   */
  holes(items: readonly { readonly qid: string; readonly run: string }[], k: number): { qid: string; run: string; docId: string }[] {
    const qrels = this.qrels();
    const out: { qid: string; run: string; docId: string }[] = [];
    for (const { qid, run } of items) {
      const judged = qrels?.byQuery.get(qid as QueryId);
      const docs = this.#retrievers.run(run).byQuery.get(qid as QueryId)?.docs ?? [];
      for (const d of docs.slice(0, k)) if (!((judged?.get(d) ?? -1) >= 0)) out.push({ qid, run, docId: d });
    }
    return out;
  }

  /** The grades the collection's qrels use (at least 0 and 1), for the judging buttons. */
  grades(): number[] {
    const set = new Set<number>([0, 1]);
    for (const m of this.#collection.current.qrels?.byQuery.values() ?? []) for (const g of m.values()) if (g >= 0) set.add(g);
    return [...set].sort((a, b) => a - b);
  }
}
