/**
 * The paper's BM25 index: the shared impact postings (`bm25-postings.ts`) with the paper's weights, built
 * from the term–document pass (`term-docs.ts`) the instant candidates' index shares. Documents are numbered
 * by corpus index (the paper's tie rule: the lower index first) and each posting's impact is w(t, d), with
 * the reference's tf cap. Impacts are float64 on purpose: storing float32 would round twice,
 * `fround(acc + fround(w64))`, which is not `fround(acc + w64)`. Measured on SciFact: float32 impacts change
 * at least one top-50 score (by an ulp) in 299 of the 300 test queries; no list changed order there, but
 * near-ties can flip, and the scores would no longer be the reference's. 12 bytes per posting, plus the
 * layers and dense columns the shared layout adds (they only speed up the pruned search).
 */
import type { Corpus } from '../types.ts';
import { BM25_MAX_TF, bm25Idf, resolveBm25Params, type Bm25Params } from './bm25-params.ts';
import { checkLayout, layOutPostings, type Bm25LayoutOptions, type Bm25Postings } from './bm25-postings.ts';
import { countTermDocs, type TermDocs, type TermDocsOptions } from './term-docs.ts';

/**
 * A built index: plain data (typed arrays, one Map, numbers), so it can be structured-cloned to, or built
 * inside, a worker. Term ids follow first appearance in the corpus; document numbers are corpus indices.
 */
export interface Bm25Index extends Bm25Postings {
  readonly params: Bm25Params;
  /** Mean document length over all N documents (tokens after stop-word removal); 0 when N = 0. */
  readonly avgdl: number;
  /** Document length per corpus index. */
  readonly docLengths: Uint32Array;
  /** Token → term id. */
  readonly vocabulary: ReadonlyMap<string, number>;
  /** Document frequency per term id. */
  readonly df: Uint32Array;
  /** idf per term id, as used in the weights (float32-representable under 'float32'). */
  readonly idf: Float64Array;
}

/**
 * Index-time options. The layout knobs (`Bm25LayoutOptions`) change speed and memory only, never results.
 * Progress and abort (`TermDocsOptions`) apply to the term–document pass, the bulk of the work; progress is
 * reported once more at the end.
 */
export interface Bm25BuildOptions extends TermDocsOptions, Bm25LayoutOptions {}

/** A module-local copy for the per-posting loop (V8 folds a module's own constants, not imported ones). */
const MAX_TF = BM25_MAX_TF;

/**
 * Tokenizes every passage once (`countTermDocs`) and builds the index: O(total tokens) plus a few passes
 * over the postings. Memory ≈ 12 bytes per (term, document) pair, plus the dense columns, plus the pass's
 * 8 bytes per pair while building.
 */
export function buildBm25Index(corpus: Corpus, params: Partial<Bm25Params> = {}, options: Bm25BuildOptions = {}): Bm25Index {
  const p = resolveBm25Params(params);
  checkLayout(options); // before the long pass, not after it
  return bm25IndexFrom(countTermDocs(corpus, options), p, options);
}

/**
 * The index over an existing term–document pass (its vocabulary, df and lengths are shared, not copied), so
 * a caller that keeps the pass builds an index per k1/b without tokenizing again. Reports (N, N) when done.
 */
export function bm25IndexFrom(pass: TermDocs, params: Partial<Bm25Params> = {}, options: Bm25BuildOptions = {}): Bm25Index {
  const p = resolveBm25Params(params);
  checkLayout(options);
  const { docCount: n, avgdl, docLengths, df, docStart, docTerms, docTfs } = pass;
  const termCount = df.length;
  const f32 = p.precision === 'float32';
  const idf = new Float64Array(termCount);
  const termOffsets = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) {
    const f = df[t]!;
    const w = bm25Idf(n, f);
    idf[t] = f32 ? Math.fround(w) : w;
    termOffsets[t + 1] = termOffsets[t]! + f;
  }

  // Transpose document-major pairs into term-major postings; documents arrive in ascending order.
  const pairs = docStart[n]!;
  const cursor = termOffsets.slice(0, termCount);
  const postingDocs = new Uint32Array(pairs);
  const postingImpacts = new Float64Array(pairs);
  const { k1, b } = p;
  const k1p1 = k1 + 1;
  const oneMinusB = 1 - b;
  for (let d = 0; d < n; d++) {
    const start = docStart[d]!;
    const end = docStart[d + 1]!;
    if (start === end) continue;
    // Same operation order as the reference: freq + 1.5 * (0.25 + 0.75 * doc_len[doc] / avgdl).
    const norm = k1 * (oneMinusB + (b * docLengths[d]!) / avgdl);
    for (let j = start; j < end; j++) {
      const t = docTerms[j]!;
      const raw = docTfs[j]!;
      const tf = raw > MAX_TF ? MAX_TF : raw;
      const pos = cursor[t]!++;
      postingDocs[pos] = d;
      // weight * freq * 2.5 / denom, left to right, in float64.
      postingImpacts[pos] = (idf[t]! * tf * k1p1) / (tf + norm);
    }
  }
  const postings = layOutPostings(n, termOffsets, postingDocs, postingImpacts, options);
  options.onProgress?.(n, n);
  return { ...postings, params: p, avgdl, docLengths, vocabulary: pass.vocabulary, df, idf };
}
