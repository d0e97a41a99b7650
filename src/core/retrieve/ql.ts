/**
 * Query likelihood with Dirichlet smoothing (Zhai & Lafferty 2001, "A study of smoothing methods for
 * language models applied to ad hoc information retrieval", SIGIR; eq. for Dirichlet priors), on the
 * paper's tokenizer:
 *
 *   p(t | C)    = cf(t) / |C|
 *   p(t | d)    = (tf(t, d) + μ · p(t | C)) / (dl + μ)
 *   log P(q|d)  = Σ over query tokens t (repeats included) of log p(t | d)
 *
 * fliplab scores with the rank-equivalent form (the same ranking, the query's constant Σ log p(t|C) dropped,
 * as Zhai & Lafferty and Lucene/Anserini do):
 *
 *   score(q, d) = Σ over distinct query terms t in d of  c(t, q) · log1p(tf(t, d) / (μ · p(t | C)))
 *                 + |q| · log(μ / (dl + μ))
 *
 * in float64, distinct terms in their first appearance in the query, the length term added last.
 * - |q| counts in-vocabulary query tokens only; out-of-vocabulary tokens (cf = 0, log 0) are skipped, as
 *   Lucene/Anserini skip terms absent from the index.
 * - Only documents that share a query term are ranked (as BM25 and Anserini's `-qld`); ties go to the lower
 *   corpus index. Unlike Lucene's LMDirichletSimilarity, no per-term score is clamped at 0 (Lucene's clamp
 *   makes it differ from query likelihood on long documents); μ = 1000 is Anserini's `-qld` default.
 */
import type { Corpus, Queries, Run } from '../types.ts';
import { checkLexicalDepth, lexicalRun, queryTermCounts, rankTouched, type LexicalHits, type LexicalIndex } from './lexical.ts';

export const QL_DEFAULT_MU = 1000;

export function checkMu(mu: number): void {
  if (!Number.isFinite(mu) || mu <= 0) throw new RangeError(`Dirichlet μ must be a finite number > 0, got ${mu}`);
}

/** "ql" for μ = 1000, "ql-mu=2000" otherwise: the run's name in the CLI, the lab, its URLs and exports. */
export function qlRunName(mu: number): string {
  return mu === QL_DEFAULT_MU ? 'ql' : `ql-mu=${mu}`;
}

export function parseQlRunName(name: string): { mu: number } | null {
  if (name === 'ql') return { mu: QL_DEFAULT_MU };
  const m = /^ql-mu=(\d+(?:\.\d+)?)$/.exec(name);
  if (!m) return null;
  const mu = Number(m[1]);
  return mu > 0 && qlRunName(mu) === name ? { mu } : null;
}

/** μ · p(t | C): the smoothing mass of term `t` (the denominator of its match weight). */
function background(index: LexicalIndex, t: number, mu: number): number {
  return mu * (index.cf[t]! / index.totalTokens);
}

/** A query term's share of the score in a document holding it `tf` times: c(t, q) · log1p(tf / (μ · p(t | C))). */
function matchWeight(count: number, tf: number, smoothing: number): number {
  return count * Math.log1p(tf / smoothing);
}

/** The length term every document pays: |q| · log(μ / (dl + μ)). */
function lengthWeight(queryLength: number, docLength: number, mu: number): number {
  return queryLength * Math.log(mu / (docLength + mu));
}

/** The top `depth` documents for `queryText` by Dirichlet-smoothed query likelihood (module comment). */
export function searchQl(index: LexicalIndex, queryText: string, depth: number, mu = QL_DEFAULT_MU): LexicalHits {
  checkLexicalDepth(depth);
  checkMu(mu);
  const { terms, counts } = queryTermCounts(index, queryText);
  let queryLength = 0;
  for (const c of counts) queryLength += c;
  const acc = new Float64Array(index.docCount);
  const seen = new Uint8Array(index.docCount);
  const touched: number[] = [];
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    const smoothing = background(index, t, mu);
    const c = counts[i]!;
    for (let p = index.postStart[t]!; p < index.postStart[t + 1]!; p++) {
      const d = index.postDocs[p]!;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched.push(d);
      }
      acc[d]! += matchWeight(c, index.postTfs[p]!, smoothing);
    }
  }
  return rankTouched(touched, (d) => acc[d]! + lengthWeight(queryLength, index.docLengths[d]!, mu), depth);
}

/** Why query likelihood scored a document: each distinct query term's share, then the length term. */
export interface QlExplanation {
  readonly mu: number;
  /** Distinct in-vocabulary query terms in first appearance (the scorer's order). */
  readonly terms: readonly {
    readonly term: string;
    /** c(t, q): occurrences in the query. */
    readonly count: number;
    /** tf(t, d). */
    readonly tf: number;
    /** cf(t): occurrences in the collection (p(t | C) = cf / |C|). */
    readonly cf: number;
    /** c(t, q) · log1p(tf / (μ · p(t | C))): log p(t|d) − log(μ · p(t|C) / (dl + μ)), 0 when tf = 0. */
    readonly weight: number;
  }[];
  /** |q|: in-vocabulary query tokens. */
  readonly queryLength: number;
  /** dl: the document's tokens. */
  readonly docLength: number;
  /** |q| · log(μ / (dl + μ)): the length term (≤ 0). */
  readonly lengthWeight: number;
  /** The score `searchQl` gives the document: the term weights summed in order, then the length term, in float64. */
  readonly total: number;
}

/**
 * The score of document `d` (a corpus index) for `queryText`, taken apart the way `searchQl` computes it
 * (the same functions, the same order of additions), so `total` equals the ranked score exactly and the
 * term weights plus the length term sum to it.
 */
export function explainQl(index: LexicalIndex, queryText: string, d: number, mu = QL_DEFAULT_MU): QlExplanation {
  checkMu(mu);
  if (!Number.isInteger(d) || d < 0 || d >= index.docCount)
    throw new RangeError(`document index ${d} is outside the ${index.docCount} documents`);
  const { terms, counts } = queryTermCounts(index, queryText);
  let queryLength = 0;
  for (const c of counts) queryLength += c;
  const tfOf = new Map<number, number>();
  for (let x = index.docStart[d]!; x < index.docStart[d + 1]!; x++) tfOf.set(index.docTerms[x]!, index.docTfs[x]!);
  let acc = 0;
  const rows = terms.map((t, i) => {
    const tf = tfOf.get(t) ?? 0;
    // searchQl adds only where the document has a posting (tf > 0).
    const weight = tf === 0 ? 0 : matchWeight(counts[i]!, tf, background(index, t, mu));
    if (tf !== 0) acc += weight;
    return { term: index.terms[t]!, count: counts[i]!, tf, cf: index.cf[t]!, weight };
  });
  const length = lengthWeight(queryLength, index.docLengths[d]!, mu);
  return { mu, terms: rows, queryLength, docLength: index.docLengths[d]!, lengthWeight: length, total: acc + length };
}

/** Query likelihood over the selected queries, as a Run in that order (empty lists for unmatched queries). */
export function runQl(
  index: LexicalIndex,
  corpus: Corpus,
  queries: Queries,
  queryIndices: readonly number[],
  depth: number,
  mu = QL_DEFAULT_MU,
  name = qlRunName(mu),
): Run {
  return lexicalRun(corpus, queries, queryIndices, name, (text) => searchQl(index, text, depth, mu));
}
