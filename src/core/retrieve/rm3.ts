/**
 * BM25 with RM3 pseudo-relevance feedback (Lavrenko & Croft 2001, relevance models; Abdul-Jaleel et al.
 * 2004, "UMass at TREC 2004", RM3 = RM1 interpolated with the query), as Anserini's `Rm3Reranker` computes it
 * (`-bm25 -rm3`, defaults fb_docs 10, fb_terms 10, original query weight 0.5), on the paper's tokenizer:
 *
 * 1. First stage: the paper's BM25 (k1 1.5, b 0.75, its float32 reference scores); its top fb_docs
 *    documents d_1..d_m and scores s_1..s_m (raw BM25 scores, as Anserini uses them).
 * 2. Feedback vector of each d_i: tf(t, d_i) for every term of d_i that is 2–20 characters, matches
 *    [a-z0-9]+ and occurs in at most 10% of the documents (Anserini's `filterTerms`); pruned to its fb_terms
 *    largest values (ties: token ascending); n_i = its L1 norm after pruning.
 * 3. Relevance model: rm(t) = Σ_i [n_i > 0.001] · tf_i(t) / n_i · s_i over the terms kept by any d_i; pruned
 *    to the fb_terms largest (ties: token ascending), scaled to unit L1 norm.
 * 4. Query model: qm(t) = c(t, q) / |q| over the query's tokens (out-of-vocabulary ones included, as
 *    Anserini's analyzed query), so Σ qm = 1.
 * 5. Expanded query: w(t) = α · qm(t) + (1 − α) · rm(t) over the union, α = original query weight.
 * 6. Second stage, over the whole collection: score(d) = Σ_t w(t) · bm25(t, d), terms in token order
 *    (ascending code units), bm25 in float64 with the same k1, b:
 *       bm25(t, d) = idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)),
 *       idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)).
 *    Documents sharing a term of the expanded query are ranked, ties to the lower corpus index.
 *
 * Where Anserini is not deterministic (Java's ordering of equal weights in `pruneToSize`), fliplab breaks
 * ties by token; its BM25 keeps the paper's (k1 + 1) factor (Lucene's does not: the same ranking).
 */
import type { Corpus, Queries, Run } from '../types.ts';
import { tokenize } from '../text/tokenize.ts';
import { DEFAULT_BM25_PARAMS, bm25Idf, bm25RunName } from './bm25.ts';
import { checkLexicalDepth, lexicalRun, rankTouched, type LexicalHits, type LexicalIndex } from './lexical.ts';

export interface Rm3Params {
  /** Feedback documents from the first stage. Anserini default 10. */
  readonly fbDocs: number;
  /** Terms kept per feedback document and in the relevance model. Anserini default 10. */
  readonly fbTerms: number;
  /** α, the original query's weight in the interpolation, in [0, 1]. Anserini default 0.5. */
  readonly originalQueryWeight: number;
  /** BM25 of both stages. The paper's 1.5 / 0.75. */
  readonly k1: number;
  readonly b: number;
}

export const DEFAULT_RM3_PARAMS: Rm3Params = {
  fbDocs: 10,
  fbTerms: 10,
  originalQueryWeight: 0.5,
  k1: DEFAULT_BM25_PARAMS.k1,
  b: DEFAULT_BM25_PARAMS.b,
};

export function resolveRm3Params(params: Partial<Rm3Params> = {}): Rm3Params {
  const p = { ...DEFAULT_RM3_PARAMS, ...params };
  const count = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 1 || v > 1000) throw new RangeError(`RM3 ${name} must be an integer in [1, 1000], got ${v}`);
  };
  count('fb_docs', p.fbDocs);
  count('fb_terms', p.fbTerms);
  if (!(p.originalQueryWeight >= 0 && p.originalQueryWeight <= 1)) {
    throw new RangeError(`RM3 original query weight must be in [0, 1], got ${p.originalQueryWeight}`);
  }
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${p.k1}`);
  if (!(p.b >= 0 && p.b <= 1)) throw new RangeError(`BM25 b must be in [0, 1], got ${p.b}`);
  return p;
}

/**
 * "bm25-rm3" for the defaults; otherwise the BM25 name, "-rm3", and the feedback settings that differ,
 * e.g. "bm25-k1=1.2-b=0.75-rm3-fb_docs=5-fb_terms=10-w=0.5" (all three once any differs).
 */
export function rm3RunName(params: Partial<Rm3Params> = {}): string {
  const p = { ...DEFAULT_RM3_PARAMS, ...params };
  const d = DEFAULT_RM3_PARAMS;
  const fb = p.fbDocs === d.fbDocs && p.fbTerms === d.fbTerms && p.originalQueryWeight === d.originalQueryWeight;
  return `${bm25RunName(p)}-rm3${fb ? '' : `-fb_docs=${p.fbDocs}-fb_terms=${p.fbTerms}-w=${p.originalQueryWeight}`}`;
}

export function parseRm3RunName(name: string): Rm3Params | null {
  const m = /^(bm25(?:-k1=(\d+(?:\.\d+)?)-b=(\d+(?:\.\d+)?))?)-rm3(?:-fb_docs=(\d+)-fb_terms=(\d+)-w=(\d+(?:\.\d+)?))?$/.exec(name);
  if (!m) return null;
  const params: Rm3Params = {
    k1: m[2] === undefined ? DEFAULT_RM3_PARAMS.k1 : Number(m[2]),
    b: m[3] === undefined ? DEFAULT_RM3_PARAMS.b : Number(m[3]),
    fbDocs: m[4] === undefined ? DEFAULT_RM3_PARAMS.fbDocs : Number(m[4]),
    fbTerms: m[5] === undefined ? DEFAULT_RM3_PARAMS.fbTerms : Number(m[5]),
    originalQueryWeight: m[6] === undefined ? DEFAULT_RM3_PARAMS.originalQueryWeight : Number(m[6]),
  };
  try {
    resolveRm3Params(params);
  } catch {
    return null;
  }
  return rm3RunName(params) === name ? params : null;
}

/** The first stage's answer for one query: corpus indices best first and their scores. */
export interface Feedback {
  readonly docs: ArrayLike<number>;
  readonly scores: ArrayLike<number>;
}

/** The expanded query of step 5: tokens ascending and their weights (what the explorer can show). */
export interface ExpandedQuery {
  readonly terms: readonly string[];
  readonly weights: readonly number[];
}

const FEEDBACK_TERM = /^[a-z0-9]{2,20}$/;
const byWeightThenToken = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Steps 2–5 of the module comment. */
export function rm3Expand(index: LexicalIndex, queryText: string, feedback: Feedback, params: Partial<Rm3Params> = {}): ExpandedQuery {
  const p = resolveRm3Params(params);
  const m = Math.min(p.fbDocs, feedback.docs.length);
  const rm = new Map<string, number>();
  const vectors: { tf: Map<string, number>; norm: number; score: number }[] = [];
  for (let i = 0; i < m; i++) {
    const d = feedback.docs[i]!;
    const entries: [string, number][] = [];
    for (let x = index.docStart[d]!; x < index.docStart[d + 1]!; x++) {
      const t = index.docTerms[x]!;
      const token = index.terms[t]!;
      if (!FEEDBACK_TERM.test(token) || index.df[t]! / index.docCount > 0.1) continue;
      entries.push([token, index.docTfs[x]!]);
    }
    entries.sort(byWeightThenToken);
    const kept = entries.slice(0, p.fbTerms);
    let norm = 0;
    for (const [, v] of kept) norm += v;
    vectors.push({ tf: new Map(kept), norm, score: feedback.scores[i]! });
    for (const [token] of kept) rm.set(token, 0);
  }
  for (const token of rm.keys()) {
    let w = 0;
    for (const v of vectors) if (v.norm > 0.001) w += ((v.tf.get(token) ?? 0) / v.norm) * v.score;
    rm.set(token, w);
  }
  const top = [...rm.entries()].sort(byWeightThenToken).slice(0, p.fbTerms);
  let l1 = 0;
  for (const [, w] of top) l1 += Math.abs(w);
  const query = tokenize(queryText);
  const weights = new Map<string, number>();
  for (const token of query) weights.set(token, (weights.get(token) ?? 0) + 1);
  for (const [token, c] of weights) weights.set(token, p.originalQueryWeight * (c / query.length));
  for (const [token, w] of top) {
    const r = l1 > 0 ? w / l1 : 0;
    weights.set(token, (weights.get(token) ?? 0) + (1 - p.originalQueryWeight) * r);
  }
  const terms = [...weights.keys()].sort();
  return { terms, weights: terms.map((t) => weights.get(t)!) };
}

/** Step 6: the expanded query against the whole collection. */
export function searchExpanded(index: LexicalIndex, expanded: ExpandedQuery, depth: number, params: Partial<Rm3Params> = {}): LexicalHits {
  checkLexicalDepth(depth);
  const { k1, b } = resolveRm3Params(params);
  const n = index.docCount;
  const acc = new Float64Array(n);
  const seen = new Uint8Array(n);
  const touched: number[] = [];
  expanded.terms.forEach((token, i) => {
    const t = index.vocabulary.get(token);
    const w = expanded.weights[i]!;
    if (t === undefined || w === 0) return;
    const df = index.df[t]!;
    const idf = bm25Idf(n, df);
    for (let x = index.postStart[t]!; x < index.postStart[t + 1]!; x++) {
      const d = index.postDocs[x]!;
      const tf = index.postTfs[x]!;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched.push(d);
      }
      acc[d]! += w * ((idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * index.docLengths[d]!) / index.avgdl)));
    }
  });
  return rankTouched(touched, (d) => acc[d]!, depth);
}

/** RM3 for one query from its first-stage feedback. */
export function searchRm3(
  index: LexicalIndex,
  queryText: string,
  feedback: Feedback,
  depth: number,
  params: Partial<Rm3Params> = {},
): LexicalHits {
  return searchExpanded(index, rm3Expand(index, queryText, feedback, params), depth, params);
}

/**
 * RM3 over the selected queries; `firstStage(text, fbDocs)` is the first-stage search (the paper's BM25:
 * `searchBm25(bm25Index, text, fbDocs)`).
 */
export function runRm3(
  index: LexicalIndex,
  corpus: Corpus,
  queries: Queries,
  queryIndices: readonly number[],
  depth: number,
  firstStage: (text: string, fbDocs: number) => Feedback,
  params: Partial<Rm3Params> = {},
  name = rm3RunName(params),
): Run {
  const p = resolveRm3Params(params);
  return lexicalRun(corpus, queries, queryIndices, name, (text) => searchRm3(index, text, firstStage(text, p.fbDocs), depth, p));
}
