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
    const denom = mu * (index.cf[t]! / index.totalTokens);
    const c = counts[i]!;
    for (let p = index.postStart[t]!; p < index.postStart[t + 1]!; p++) {
      const d = index.postDocs[p]!;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched.push(d);
      }
      acc[d]! += c * Math.log1p(index.postTfs[p]! / denom);
    }
  }
  return rankTouched(touched, (d) => acc[d]! + queryLength * Math.log(mu / (index.docLengths[d]! + mu)), depth);
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
