/**
 * Small synthetic qrels and runs for the analysis view tests, analysed by the real core (`analyzeFlips`),
 * so every expectation comes from the core's numbers, not from what a view printed.
 */
import { analyzeFlips, type FlipOptions, type FlipReport } from '../../../src/core/flips/analyze.ts';
import { asDocId, asQueryId } from '../../../src/core/io/ids.ts';
import type { DocId, Qrels, QueryId, RankedList, Run } from '../../../src/core/types.ts';

/** Rank of the query's single positive document in a run (1-based), or null when it is not retrieved. */
export type Ranks = readonly (number | null)[];

const qid = (i: number): string => `q${i + 1}`;
const positive = (i: number): string => `${qid(i)}-pos`;

/** Qrels with `n` queries, each with one positive document and one judged non-relevant one. */
export function makeQrels(n: number): Qrels {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (let i = 0; i < n; i++) {
    byQuery.set(
      asQueryId(qid(i)),
      new Map([
        [asDocId(positive(i)), 1],
        [asDocId(`${qid(i)}-neg`), 0],
      ]),
    );
  }
  return { byQuery };
}

/** A run whose list for query i is `depth` filler documents with the positive at `ranks[i]` (or absent). */
export function makeRun(name: string, ranks: Ranks, depth = 50): Run {
  const byQuery = new Map<QueryId, RankedList>();
  ranks.forEach((rank, i) => {
    const docs: DocId[] = [];
    for (let r = 1; r <= depth; r++) docs.push(asDocId(r === rank ? positive(i) : `${qid(i)}-${name}-d${r}`));
    byQuery.set(asQueryId(qid(i)), { docs, scores: Float64Array.from(docs, (_, r) => depth - r) });
  });
  return { name, byQuery };
}

export const REFERENCE_RANKS: Ranks = [1, 1, 1, 2, 3, 4, 6, 8, 12, 15, null, 30, 45, 2, 7, null];
export const BGE_RANKS: Ranks = [1, 3, null, 1, 9, 2, 1, null, 4, 1, 2, 60, 5, 1, 1, 12];
export const E5_RANKS: Ranks = [2, 1, 1, 6, 1, null, 3, 9, 1, 3, 30, 2, null, 4, 1, null];

/** Reference + two candidates over 16 queries at the default depths 1, 5, 10, 20, 50. */
export function mainReport(options: FlipOptions = {}): FlipReport {
  return analyzeFlips(
    makeQrels(REFERENCE_RANKS.length),
    makeRun('BM25', REFERENCE_RANKS),
    [makeRun('BGE', BGE_RANKS), makeRun('E5', E5_RANKS)],
    options,
  );
}

/**
 * A report with undefined rates: the reference supports no query at k = 1 (negative-flip rate and
 * compatibility undefined there) and every query at k = 10 and beyond (fix rate undefined there).
 */
export function undefinedReport(): FlipReport {
  const ref: Ranks = [2, 3, 5, 7, 9, 4];
  const cand: Ranks = [1, null, 2, 1, 20, 3];
  return analyzeFlips(makeQrels(ref.length), makeRun('BM25', ref), [makeRun('Dense', cand)], { depths: [1, 5, 10] });
}
