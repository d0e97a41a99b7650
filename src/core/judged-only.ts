/**
 * Judged-only rankings: trec_eval's `-J` applied to a run before any cut. Every passage the qrels do not
 * judge with a grade ≥ 0 (absent, or "in the pool but unjudged") is removed from each query's list; the rest
 * keep their order, so the passage at rank k of the result is the k-th judged passage the run returned.
 *
 * A list kept to a depth (core/io/run-top.ts) knows where the run ranks every judged passage below the kept
 * part (`tail`), so its judged-only list is complete: the judged kept passages, then the tail's. Those have no
 * score; they get scores below every kept one, in tail order, as `forEvaluation` gives its stand-ins.
 *
 * Flip analysis, agreement and the lab's judged-only toggle all read runs through this, so "judged only"
 * means one thing everywhere, and it is the rule `fliplab eval -J` follows.
 */
import type { DocId, Qrels, QueryId, RankedList, Run } from './types.ts';

const isJudged = (judged: ReadonlyMap<DocId, number> | undefined, d: DocId): boolean => {
  const g = judged?.get(d);
  return g !== undefined && g >= 0;
};

/** One list with its unjudged passages removed (`judged`: the query's judgments). */
export function judgedOnlyList(list: RankedList, judged: ReadonlyMap<DocId, number> | undefined): RankedList {
  const docs: DocId[] = [];
  const scores: number[] = [];
  let low = Infinity;
  list.docs.forEach((d, i) => {
    const s = list.scores[i]!;
    if (s < low) low = s;
    if (!isJudged(judged, d)) return;
    docs.push(d);
    scores.push(s);
  });
  const tail = list.tail;
  if (tail) {
    if (!Number.isFinite(low)) low = 0;
    const step = (Math.abs(low) + 1) * 1e-9;
    tail.docs.forEach((d, j) => {
      if (!isJudged(judged, d)) return;
      docs.push(d);
      scores.push(low - (tail.positions[j]! - list.docs.length) * step);
    });
  }
  return { docs, scores: Float64Array.from(scores) };
}

/** `run` with every list judged-only against `qrels`; queries without judgments get empty lists. */
export function judgedOnlyRun(run: Run, qrels: Qrels): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [qid, list] of run.byQuery) byQuery.set(qid, judgedOnlyList(list, qrels.byQuery.get(qid)));
  return { name: run.name, byQuery };
}
