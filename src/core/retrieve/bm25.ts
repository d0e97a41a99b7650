/**
 * BM25 as the RAGFlip paper specifies it (§3, Robertson & Zaragoza 2009) and as its reference scripts
 * compute it (examples/{nq,hotpot_full,fiqa}_flips.py `_bm25_top`):
 *
 *   idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))                       (always > 0)
 *   w(t, d)     = idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl))
 *   score(q, d) = Σ over the query's tokens t, repeats included, of w(t, d)
 *
 * - Text: `passageText` (title + ". " + text), `tokenize` (lowercase alphanumeric runs, 43 stop words out).
 * - dl = tokens after stop-word removal; avgdl = mean dl over ALL N documents, empty ones included; df counts
 *   a document once; tf is capped at 65,535 like the reference (`min(freq, 65535)`).
 * - A token repeated in the query adds its weight once per occurrence (no query-tf saturation).
 *   Out-of-vocabulary query tokens are skipped.
 * - Only documents sharing at least one query term are ranked (every such score is > 0).
 * - Ties: equal scores go to the lower corpus index, as the reference's `sorted(touched, key=(-score, doc))`.
 *
 * Precision. 'float32' (the default) reproduces the reference's saved rankings bit for bit: idf is rounded
 * to float32 (`.astype(np.float32)`), each weight is computed in float64 from that idf with the reference's
 * operation order, and the per-document score lives in a float32 array, so every addition is rounded back:
 * `acc = fround(acc + w64)`, in query-token order. Rounding decides which documents tie and how near-ties
 * fall, and the paper reports identical top-50 lists against its saved rankings, so the default follows the
 * reference rather than the textbook. 'float64' keeps idf, weights and sums in double precision (the
 * formula as written, query-token order) for users who do not need the reference's lists.
 *
 * The index (`bm25-index.ts`) holds bm25s-style precomputed impacts, built from the term–document pass
 * (`term-docs.ts`) that the instant candidates' index shares. Query evaluation is exact top-k: MaxScore-style
 * pruning (Turtle & Flood 1995) over term-at-a-time accumulation, then an exact rescoring of the survivors
 * in the reference's order (`bm25-maxscore.ts`). Queries with few postings skip the pruning and run the
 * reference algorithm directly (`bm25-search.ts`), and `strategy: 'exhaustive'` forces it (every posting,
 * query order, then selection). Both give identical lists and scores; the tests check both against a naive
 * oracle.
 *
 * This file is the public entry: `searchBm25`, `runBm25`, and everything callers need from the others.
 */
import type { Corpus, Queries, QueryId, RankedList, Run } from '../types.ts';
import type { Bm25Index } from './bm25-index.ts';
import { searchMaxScore } from './bm25-maxscore.ts';
import { checkDepth, emptyHits, queryTermIds, searchExhaustive, type Bm25Hits, type Bm25SearchOptions } from './bm25-search.ts';

export {
  BM25_DEFAULT_DEPTH,
  BM25_MAX_DEPTH,
  BM25_MAX_TF,
  BM25_RUN_NAME,
  BM25_VARIANTS,
  bm25Idf,
  bm25RunName,
  DEFAULT_BM25_PARAMS,
  parseBm25RunName,
  resolveBm25Params,
  type Bm25Params,
  type Bm25Precision,
} from './bm25-params.ts';
export { bm25IndexFrom, buildBm25Index, type Bm25BuildOptions, type Bm25Index } from './bm25-index.ts';
export { queryTermIds, type Bm25Hits, type Bm25SearchOptions } from './bm25-search.ts';

/**
 * Queries whose lists hold at most this many postings per unit of depth run the reference algorithm: the
 * pruned search's fixed costs (planning, rescoring) outweigh what it could skip.
 */
const EXHAUSTIVE_POSTINGS_PER_DEPTH = 200;

/**
 * The top `depth` documents for `queryText` (1 ≤ depth ≤ 1000; the paper uses 50), best first, ties to
 * the lower corpus index. Only documents sharing a query term appear, so fewer than `depth` may come back
 * (none for an all-stop-word or out-of-vocabulary query). Scores have the index's precision.
 * No allocation proportional to the corpus after the first query on an index.
 */
export function searchBm25(index: Bm25Index, queryText: string, depth: number, options: Bm25SearchOptions = {}): Bm25Hits {
  checkDepth(depth);
  const terms = queryTermIds(index, queryText);
  if (terms.length === 0) return emptyHits(index);
  const strategy = options.strategy ?? 'auto';
  if (strategy === 'exhaustive') return searchExhaustive(index, terms, depth);
  if (strategy === 'auto') {
    let postings = 0;
    const { termLayers, layerOffsets } = index;
    for (const t of terms) postings += layerOffsets[termLayers[t + 1]!]! - layerOffsets[termLayers[t]!]!;
    if (postings <= EXHAUSTIVE_POSTINGS_PER_DEPTH * depth) return searchExhaustive(index, terms, depth);
  }
  return searchMaxScore(index, terms, depth);
}

/**
 * BM25 over the selected queries (indices into `queries`, e.g. from `selectEvaluationQueries`), as a Run
 * in that order. A query with no matching document gets an empty ranked list.
 */
export function runBm25(
  index: Bm25Index,
  corpus: Corpus,
  queries: Queries,
  queryIndices: readonly number[],
  depth: number,
  name = 'bm25',
  options: Bm25SearchOptions = {},
): Run {
  if (corpus.ids.length !== index.docCount) {
    throw new RangeError(`the corpus has ${corpus.ids.length} documents but the BM25 index was built over ${index.docCount}`);
  }
  checkDepth(depth);
  const byQuery = new Map<QueryId, RankedList>();
  for (const qi of queryIndices) {
    const qid = queries.ids[qi];
    if (qid === undefined) throw new RangeError(`query index ${qi} is outside the ${queries.ids.length} queries`);
    const hits = searchBm25(index, queries.texts[qi] ?? '', depth, options);
    const docIds = Array.from(hits.docs, (d) => corpus.ids[d]!);
    byQuery.set(qid, { docs: docIds, scores: Float64Array.from(hits.scores) });
  }
  return { name, byQuery };
}
