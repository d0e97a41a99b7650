/**
 * Model judgments kept apart from people's, with one rule: a person's grade always wins, and a model's label
 * fills only a pair (query, passage) no person judged. What the layer keeps says which pairs came from the model,
 * so every number can say how much of it rests on model labels.
 */
import type { DocId, Qrels, QueryId } from '../types.ts';

export interface ModelLayer {
  /** People's judgments with the model's filling the pairs they left unjudged. */
  readonly qrels: Qrels;
  /** The pairs whose grade came from the model. */
  readonly fromModel: ReadonlyMap<QueryId, ReadonlySet<DocId>>;
  /** Labels that filled a pair (the size of `fromModel`). */
  readonly filled: number;
  /** Labels for pairs people judged: set aside (the audit compares them). */
  readonly overruled: number;
  /** Queries no person judged at all, now judged by the model alone. */
  readonly modelOnlyQueries: number;
}

/** Pairs and their grades as qrels (a later grade of the same pair wins). */
export function labelsAsQrels(labels: readonly { readonly qid: string; readonly docId: string; readonly grade: number }[]): Qrels {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const l of labels) {
    let docs = byQuery.get(l.qid as QueryId);
    if (docs === undefined) byQuery.set(l.qid as QueryId, (docs = new Map()));
    docs.set(l.docId as DocId, l.grade);
  }
  return { byQuery };
}

/** Layer `model` under `human`: the human grade wins wherever both judged a pair. */
export function layerModelQrels(human: Qrels, model: Qrels): ModelLayer {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const [qid, docs] of human.byQuery) byQuery.set(qid, new Map(docs));
  const fromModel = new Map<QueryId, Set<DocId>>();
  let filled = 0;
  let overruled = 0;
  let modelOnlyQueries = 0;
  for (const [qid, docs] of model.byQuery) {
    const people = human.byQuery.get(qid);
    let merged = byQuery.get(qid);
    if (merged === undefined) {
      byQuery.set(qid, (merged = new Map()));
      modelOnlyQueries++;
    }
    for (const [docid, grade] of docs) {
      if (people?.has(docid) === true) {
        overruled++;
        continue;
      }
      merged.set(docid, grade);
      let set = fromModel.get(qid);
      if (set === undefined) fromModel.set(qid, (set = new Set()));
      set.add(docid);
      filled++;
    }
  }
  return { qrels: { byQuery }, fromModel, filled, overruled, modelOnlyQueries };
}

/** The pairs both judged, in people's order: each pair's two grades. */
export function sharedPairs(human: Qrels, model: Qrels): { qid: QueryId; docid: DocId; human: number; model: number }[] {
  const out: { qid: QueryId; docid: DocId; human: number; model: number }[] = [];
  for (const [qid, docs] of human.byQuery) {
    const labels = model.byQuery.get(qid);
    if (labels === undefined) continue;
    for (const [docid, grade] of docs) {
      const m = labels.get(docid);
      if (m !== undefined) out.push({ qid, docid, human: grade, model: m });
    }
  }
  return out;
}

/** The grades a collection's judgments use, widened to hold 0 and 1: what a model layer's grades must fall in. */
export function gradeScale(qrels: Qrels): { min: number; max: number } {
  let min = 0;
  let max = 1;
  for (const docs of qrels.byQuery.values()) {
    for (const g of docs.values()) {
      if (g < min) min = g;
      if (g > max) max = g;
    }
  }
  return { min, max };
}

/**
 * A model layer's labels for queries or passages the collection does not know, counted per kind, and the layer
 * without them. `knows` says whether the collection holds a query, and a passage for that query.
 */
export function knownLabels(
  model: Qrels,
  knows: { query: (qid: QueryId) => boolean; passage: (qid: QueryId, docid: DocId) => boolean },
): { qrels: Qrels; unknownQueries: number; unknownQueryLabels: number; unknownPassages: number } {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  let unknownQueries = 0;
  let unknownQueryLabels = 0;
  let unknownPassages = 0;
  for (const [qid, docs] of model.byQuery) {
    if (!knows.query(qid)) {
      unknownQueries++;
      unknownQueryLabels += docs.size;
      continue;
    }
    const kept = new Map<DocId, number>();
    for (const [docid, grade] of docs) {
      if (knows.passage(qid, docid)) kept.set(docid, grade);
      else unknownPassages++;
    }
    if (kept.size > 0) byQuery.set(qid, kept);
  }
  return { qrels: { byQuery }, unknownQueries, unknownQueryLabels, unknownPassages };
}
