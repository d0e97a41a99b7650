/**
 * The engine's judgments: the collection's qrels with the layer of judgments the user added over them
 * (core/io/judgments.ts; the collection's qrels never change), what every measure and flip reads, and the
 * holes left to judge.
 */
import { judgmentsToQrels, mergeQrels, type Judgment } from '../../core/io/judgments.ts';
import { gradeScale, labelsAsQrels, layerModelQrels, type ModelLayer } from '../../core/judging/layer.ts';
import { judgingPlan, type JudgingPlan } from '../../core/judging/select.ts';
import type { DocId, Qrels, QueryId } from '../../core/types.ts';
import type { OpenCollection } from './collection.ts';
import type { Retrievers } from './retrievers.ts';

export class Judgments {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = [
    'setJudgments',
    'setModelLayer',
    'useModelLayer',
    'judgingPlan',
    'holes',
    'grades',
  ] as const satisfies readonly (keyof Judgments)[];

  readonly #collection: OpenCollection;
  readonly #retrievers: Retrievers;
  /** Judgments the user added, layered over the collection's qrels; null: none. */
  #added: Qrels | null = null;
  /** The collection's qrels with #added over them, merged on first use. */
  #merged: Qrels | null = null;
  /** A model's labels (core/judging/layer.ts): under people's, filling only pairs no person judged; null: none. */
  #model: Qrels | null = null;
  /** Whether holes are filled by the model's labels (the lab's "holes count as" choice). */
  #useModel = false;
  /** People's qrels with the model's labels under them, layered on first use. */
  #layered: ModelLayer | null = null;

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
    this.#layered = null;
  }

  /** A model's labels (its grades on the collection's scale), replacing any before; `[]`: none. */
  setModelLayer(labels: readonly { readonly qid: string; readonly docId: string; readonly grade: number }[]): void {
    this.#model = labels.length === 0 ? null : labelsAsQrels(labels);
    this.#layered = null;
  }

  /** Fill the holes with the model's labels (true) or count them as people's qrels do (false). */
  useModelLayer(on: boolean): void {
    this.#useModel = on;
  }

  /** Whether the numbers read the model's labels now. */
  modelInUse(): boolean {
    return this.#useModel && this.#model !== null && this.peopleQrels() !== null;
  }

  /**
   * The qrels every measure reads: the collection's, with the added judgments over them, and — when the holes are
   * filled by a model — the model's labels under both (null: no judgments).
   */
  qrels(): Qrels | null {
    const people = this.peopleQrels();
    if (people === null || !this.modelInUse()) return people;
    this.#layered ??= layerModelQrels(people, this.#model!);
    return this.#layered.qrels;
  }

  /** The model's labels the numbers read for `qid` (the pairs no person judged), by grade; undefined: none. */
  modelFor(qid: QueryId): ReadonlyMap<DocId, number> | undefined {
    if (!this.modelInUse()) return undefined;
    const qrels = this.qrels()!;
    const from = this.#layered!.fromModel.get(qid);
    if (from === undefined) return undefined;
    return new Map([...from].map((d) => [d, qrels.byQuery.get(qid)!.get(d)!]));
  }

  /** The model's labels alone, as a qrels file of their own (null: none). */
  modelQrels(): Qrels | null {
    return this.#model;
  }

  /** What the model's labels did to people's qrels now (null: the numbers do not read them). */
  modelStats(): { filled: number; setAside: number; modelOnlyQueries: number } | null {
    if (!this.modelInUse()) return null;
    this.qrels();
    const l = this.#layered!;
    return { filled: l.filled, setAside: l.overruled, modelOnlyQueries: l.modelOnlyQueries };
  }

  /** People's judgments alone: the collection's qrels with the added judgments over them (null: no judgments). */
  peopleQrels(): Qrels | null {
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

  /**
   * What a model judge is given (core/judging/select.ts, as `fliplab judge`): a blind sample of people's pairs and
   * the holes in the runs' top k on people's judgments, those behind flips first, within the budget; and the scale
   * its grades are held to.
   */
  judgingPlan(
    reference: string,
    candidates: readonly string[],
    options: { readonly k: number; readonly budget?: number; readonly audit: number },
  ): JudgingPlan & { readonly scaleMax: number } {
    const people = this.peopleQrels();
    const { corpus, queries } = this.#collection.current;
    const runs = [reference, ...candidates].map((name) => this.#retrievers.run(name));
    const qrels = people ?? { byQuery: new Map() };
    // Made queries: every one the lab ranks, typed ones included (they have no judgment but the model's).
    const among = this.#collection.current.synthetic ? this.#collection.evaluated.map((i) => queries.ids[i]!) : undefined;
    return {
      ...judgingPlan(qrels, runs, corpus, queries, { ...options, ...(among === undefined ? {} : { among }) }),
      scaleMax: gradeScale(qrels).max,
    };
  }

  /** The grades the collection's qrels use (at least 0 and 1), for the judging buttons. */
  grades(): number[] {
    const set = new Set<number>([0, 1]);
    for (const m of this.#collection.current.qrels?.byQuery.values() ?? []) for (const g of m.values()) if (g >= 0) set.add(g);
    return [...set].sort((a, b) => a - b);
  }
}
