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
 * The paper's BM25 is one scorer of the shared BM25 engine (`bm25-engine.ts`), beside Anserini's: its
 * index (`bm25-index.ts`) holds the shared impact postings with the weights above, numbered by corpus index
 * (its tie rule), built from the term–document pass (`term-docs.ts`) that the instant candidates' index
 * shares; its query is a slot per distinct token and a step per token in query order (a repeated token adds
 * its weight again); its rule is float32 accumulation (or float64). The engine returns exact top-k, by the
 * reference algorithm (every posting, query order, then selection) for queries with few postings or under
 * `strategy: 'exhaustive'`, and otherwise by MaxScore pruning with an exact rescoring of the survivors in the
 * reference's order. Both give identical lists and scores; the tests check both against a naive oracle.
 *
 * This file is the public entry: `searchBm25`, `runBm25`, and everything callers need from the others.
 */
import type { Corpus, Queries, QueryId, RankedList, Run } from '../types.ts';
import { tokenize } from '../text/tokenize.ts';
import type { Bm25Index } from './bm25-index.ts';
import { searchPostings, type Bm25Hits, type Bm25Query, type Bm25ScoreRule, type Bm25SearchOptions } from './bm25-engine.ts';
import { checkDepth } from './bm25-scoring.ts';

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
export type { Bm25Hits, Bm25SearchOptions } from './bm25-engine.ts';
export { explainBm25, type Bm25ScoreExplanation, type Bm25TermExplanation } from './bm25-explain.ts';

/** The reference's score buffer is float32: every addition is rounded back (see Precision above). */
const FLOAT32_RULE: Bm25ScoreRule = { accumulate: 'float32', roundFinal: false, positive: true, slack: 0 };
const FLOAT64_RULE: Bm25ScoreRule = { accumulate: 'float64', roundFinal: false, positive: true, slack: 0 };

/** Query tokens in query order (repeats kept), mapped to term ids; out-of-vocabulary tokens dropped. */
export function queryTermIds(index: Bm25Index, queryText: string): number[] {
  const out: number[] = [];
  for (const tok of tokenize(queryText)) {
    const t = index.vocabulary.get(tok);
    if (t !== undefined) out.push(t);
  }
  return out;
}

/**
 * The paper's query for the engine: a slot per distinct term in first appearance, a step per token (each
 * adds the impact), so a term's multiplier is its count in the query.
 */
function paperQuery(terms: readonly number[]): Bm25Query {
  const slotTerm: number[] = [];
  const slotMult: number[] = [];
  const steps = new Int32Array(terms.length);
  for (let i = 0; i < terms.length; i++) {
    let u = slotTerm.indexOf(terms[i]!);
    if (u < 0) u = slotTerm.push(terms[i]!) - 1;
    slotMult[u] = (slotMult[u] ?? 0) + 1;
    steps[i] = u;
  }
  return { slotTerm, slotMult, steps, slotWeight: slotTerm.map(() => null) };
}

/**
 * The top `depth` documents for `queryText` (1 ≤ depth ≤ 1000; the paper uses 50), best first, ties to
 * the lower corpus index. Only documents sharing a query term appear, so fewer than `depth` may come back
 * (none for an all-stop-word or out-of-vocabulary query). Scores have the index's precision.
 * No allocation proportional to the corpus after the first query on an index.
 */
export function searchBm25(index: Bm25Index, queryText: string, depth: number, options: Bm25SearchOptions = {}): Bm25Hits {
  checkDepth(depth);
  const rule = index.params.precision === 'float32' ? FLOAT32_RULE : FLOAT64_RULE;
  return searchPostings(index, paperQuery(queryTermIds(index, queryText)), rule, depth, options);
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
