/**
 * The cohort a flip analysis runs over, and where each run first (and fully) supports each query.
 *
 * Support at depth k (RAGFlip §3.1): "any" — at least one positively judged document (grade ≥ the
 * relevance level, 1 by default, i.e. grade > 0) is in the top k; "strict" — every positively judged
 * document is in the top k. Both reduce to one rank per query and run, so any depth is an O(1) test:
 *   any(k)    ⇔ firstRelevantRank ≤ k
 *   strict(k) ⇔ allRelevantRank ≤ k   (the rank of the last positive; never, if one is missing)
 */
import type { DocId, Qrels, QueryId, RankedList, Run } from '../types.ts';

/** Rank sentinel for "never supported at any depth". Larger than any real rank. */
export const NEVER = 0x7fffffff;

export type SupportLabel = 'any' | 'strict';

export interface Cohort {
  /** Queries analysed: those with at least one positive judgment, in qrels file order. */
  readonly queries: readonly QueryId[];
  /** Positively judged documents per query (same order as `queries`). */
  readonly positives: readonly ReadonlySet<DocId>[];
  readonly relevanceLevel: number;
}

export function buildCohort(qrels: Qrels, relevanceLevel = 1): Cohort {
  const queries: QueryId[] = [];
  const positives: Set<DocId>[] = [];
  for (const [qid, judged] of qrels.byQuery) {
    const pos = new Set<DocId>();
    for (const [doc, grade] of judged) if (grade >= relevanceLevel) pos.add(doc);
    if (pos.size === 0) continue;
    queries.push(qid);
    positives.push(pos);
  }
  return { queries, positives, relevanceLevel };
}

/** 1-based ranks at which one list first, and fully, supports one query. */
export interface SupportRanks {
  first: number;
  all: number;
}

/** Scan a ranked list (retriever order) for its first and last positive. */
export function supportRanks(docs: readonly DocId[], positives: ReadonlySet<DocId>, tail?: RankedList['tail']): SupportRanks {
  let first = NEVER;
  let found = 0;
  let last = NEVER;
  for (let i = 0; i < docs.length; i++) {
    if (positives.has(docs[i]!)) {
      if (first === NEVER) first = i + 1;
      if (++found === positives.size) {
        last = i + 1;
        break;
      }
    }
  }
  // A list kept to a depth: the positives it ranks below the kept part are in its tail, in rank order.
  if (tail !== undefined && found < positives.size) {
    for (let j = 0; j < tail.docs.length; j++) {
      if (!positives.has(tail.docs[j]!)) continue;
      if (first === NEVER) first = tail.positions[j]!;
      if (++found === positives.size) {
        last = tail.positions[j]!;
        break;
      }
    }
  }
  return { first, all: last };
}

/** Per-query support ranks of one run over a cohort; a query missing from the run is never supported. */
export interface SupportProfile {
  readonly name: string;
  readonly first: Int32Array;
  readonly all: Int32Array;
  /** How many cohort queries the run has no list for (reported, not an error: a retriever may return nothing). */
  readonly missing: number;
}

export function supportProfile(run: Run, cohort: Cohort): SupportProfile {
  const n = cohort.queries.length;
  const first = new Int32Array(n).fill(NEVER);
  const all = new Int32Array(n).fill(NEVER);
  let missing = 0;
  for (let i = 0; i < n; i++) {
    const list = run.byQuery.get(cohort.queries[i]!);
    if (!list) {
      missing++;
      continue;
    }
    const r = supportRanks(list.docs, cohort.positives[i]!, list.tail);
    first[i] = r.first;
    all[i] = r.all;
  }
  return { name: run.name, first, all, missing };
}
