/**
 * The one BM25 engine under both scorers: exact top-k over the shared impact postings (`bm25-postings.ts`),
 * by the exhaustive search (every posting, `bm25-scoring.ts`) or MaxScore with an exact threshold
 * (`bm25-maxscore.ts`), under the scorer's score rule. A scorer brings its postings (built with its term
 * weights), its query as slots and steps (`Bm25Query`) and its rule (`Bm25ScoreRule`): the paper's BM25
 * (`bm25.ts`) and Lucene's as Anserini runs it (`bm25-anserini-search.ts`). As in Lucene, where every
 * `Similarity` plugs into one postings and pruning core, and bm25s, where every variant is one impact matrix.
 */
import { searchMaxScore } from './bm25-maxscore.ts';
import {
  checkDepth,
  emptyHits,
  searchExhaustive,
  termEnd,
  termStart,
  type Bm25Hits,
  type Bm25Query,
  type Bm25ScoreRule,
} from './bm25-scoring.ts';
import type { Bm25Postings } from './bm25-postings.ts';

export type { Bm25Hits, Bm25Query, Bm25ScoreRule } from './bm25-scoring.ts';

export interface Bm25SearchOptions {
  /**
   * 'auto' (default): the exhaustive search for queries with few postings, the pruned search otherwise.
   * 'maxscore': always the pruned search. 'exhaustive': always every posting. All three return identical
   * lists and scores.
   */
  readonly strategy?: 'auto' | 'maxscore' | 'exhaustive';
}

/**
 * Queries whose lists hold at most this many postings per unit of depth run the exhaustive search: the
 * pruned search's fixed costs (planning, rescoring) outweigh what it could skip.
 */
const EXHAUSTIVE_POSTINGS_PER_DEPTH = 200;
/** A rule whose weights may stray further than this from multiplier × impact is not pruned. */
const MAX_SLACK = 1 / 16;

/**
 * The top `depth` (1..1000) documents of `query` under `rule`: document numbers best first (ties to the lower
 * number) and their scores. Only documents with a posting of a query term appear. A rule whose weights can
 * be 0 (the pruned search tells untouched documents by a zero sum) or stray far from multiplier × impact
 * always runs the exhaustive search.
 */
export function searchPostings(
  postings: Bm25Postings,
  query: Bm25Query,
  rule: Bm25ScoreRule,
  depth: number,
  options: Bm25SearchOptions = {},
): Bm25Hits {
  checkDepth(depth);
  if (query.steps.length === 0) return emptyHits(rule);
  const strategy = options.strategy ?? 'auto';
  if (strategy === 'exhaustive' || !rule.positive || !(rule.slack <= MAX_SLACK)) return searchExhaustive(postings, query, rule, depth);
  if (strategy === 'auto') {
    let count = 0;
    for (let x = 0; x < query.steps.length; x++) {
      const t = query.slotTerm[query.steps[x]!]!;
      count += termEnd(postings, t) - termStart(postings, t);
    }
    if (count <= EXHAUSTIVE_POSTINGS_PER_DEPTH * depth) return searchExhaustive(postings, query, rule, depth);
  }
  return searchMaxScore(postings, query, rule, depth);
}
