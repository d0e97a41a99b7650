/**
 * The synthetic flip-analysis workload of bench:flips and bench:app: a HotpotQA-sized cohort (7,405 queries,
 * the paper's largest), two positives and one judged negative per query, a reference and three candidates
 * with 50-deep lists from a 200,000-document pool. Seeded: every bench sees the same data.
 */
import type { DocId, Qrels, QueryId, RankedList, Run } from '../../src/core/types.ts';
import { mulberry32 } from './rng.ts';

export const COHORT_QUERIES = 7405;
export const COHORT_DEPTH = 50;
export const COHORT_DEPTHS: readonly number[] = [1, 5, 10, 20, 50];
const POOL = 200_000;

export interface FlipCohort {
  readonly qids: readonly QueryId[];
  readonly judged: ReadonlyMap<QueryId, ReadonlyMap<DocId, number>>;
  readonly qrels: Qrels;
  readonly reference: Run;
  readonly candidates: readonly Run[];
}

export function flipCohort(seed = 7405): FlipCohort {
  const rand = mulberry32(seed);
  const qids = Array.from({ length: COHORT_QUERIES }, (_, i) => `q${i}` as QueryId);
  const judged = new Map<QueryId, Map<DocId, number>>();
  for (const q of qids)
    judged.set(
      q,
      new Map([
        [`${q}-p1` as DocId, 1],
        [`${q}-p2` as DocId, 1],
        [`${q}-n` as DocId, 0],
      ]),
    );

  const makeRun = (name: string, hitRate: number): Run => {
    const byQuery = new Map<QueryId, RankedList>();
    for (const q of qids) {
      const docs = new Set<DocId>();
      while (docs.size < COHORT_DEPTH) docs.add(`d${Math.floor(rand() * POOL)}` as DocId);
      const list = [...docs];
      if (rand() < hitRate) list[Math.floor(rand() ** 2 * COHORT_DEPTH)] = `${q}-p1` as DocId;
      if (rand() < hitRate / 2) list[Math.floor(rand() * COHORT_DEPTH)] = `${q}-p2` as DocId;
      byQuery.set(q, { docs: [...new Set(list)], scores: Float64Array.from(list, (_, i) => COHORT_DEPTH - i) });
    }
    return { name, byQuery };
  };

  const reference = makeRun('bm25', 0.75);
  const candidates = [makeRun('bge', 0.85), makeRun('e5', 0.85), makeRun('splade', 0.8)];
  return { qids, judged, qrels: { byQuery: judged }, reference, candidates };
}

/** The literal definition (slice each top k, test membership): transition counts only. The benches' peer. */
export function literalTransitions(cohort: FlipCohort, depths: readonly number[]): number {
  let checksum = 0;
  for (const k of depths) {
    for (const c of cohort.candidates) {
      for (const q of cohort.qids) {
        const pos = new Set([...cohort.judged.get(q)!].filter(([, g]) => g > 0).map(([d]) => d));
        const B = cohort.reference.byQuery
          .get(q)!
          .docs.slice(0, k)
          .some((d) => pos.has(d));
        const D = c.byQuery
          .get(q)!
          .docs.slice(0, k)
          .some((d) => pos.has(d));
        checksum += B && D ? 1 : B ? 2 : D ? 3 : 0;
      }
    }
  }
  return checksum;
}
