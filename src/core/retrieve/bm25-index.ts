/**
 * The BM25 index (bm25s-style precomputed impacts, bm25s `bm25s/__init__.py`), built from the term–document
 * pass (`term-docs.ts`) the instant candidates' index shares: term → postings in column-compressed typed
 * arrays, `postingDocs` (corpus indices) and `postingImpacts` (w(t, d), with the reference's tf cap).
 * Impacts are float64 on purpose: storing float32 would round twice, `fround(acc + fround(w64))`, which is
 * not `fround(acc + w64)`. Measured on SciFact: float32 impacts change at least one top-50 score (by an ulp)
 * in 299 of the 300 test queries; no list changed order there, but near-ties can flip, and the scores
 * would no longer be the reference's. 12 bytes per posting. Long lists are also split into impact layers
 * and the most common terms get a dense impact column plus a column of 8-bit impact codes (each code
 * brackets the impact between the least and largest real impact with that code); all of it only speeds up
 * the pruned search (`bm25-maxscore.ts`).
 */
import type { Corpus } from '../types.ts';
import { BM25_MAX_DEPTH, BM25_MAX_TF, bm25Idf, resolveBm25Params, type Bm25Params } from './bm25-params.ts';
import { countTermDocs, type TermDocs, type TermDocsOptions } from './term-docs.ts';
import { kthLargest } from './topk.ts';

/**
 * A built index: plain data (typed arrays, one Map, numbers), so it can be structured-cloned to, or built
 * inside, a worker. Term ids follow first appearance in the corpus.
 */
export interface Bm25Index {
  readonly params: Bm25Params;
  /** N: documents in the corpus, empty ones included. */
  readonly docCount: number;
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
  /**
   * Length termCount + 1. Term t's postings are the layers [termLayers[t], termLayers[t + 1]): one, or for
   * long lists two or more in decreasing impact. A document is in exactly one layer of each of its terms,
   * and a term's layers are contiguous in the posting arrays.
   */
  readonly termLayers: Uint32Array;
  /** Length layerCount + 1; layer l's postings are [layerOffsets[l], layerOffsets[l + 1]). */
  readonly layerOffsets: Uint32Array;
  /** Largest impact per layer: the MaxScore upper bound. */
  readonly layerMaxImpact: Float64Array;
  /** Corpus indices (DocIndex), ascending within each layer. */
  readonly postingDocs: Uint32Array;
  /** w(t, d) per posting, float64 (see the module comment). */
  readonly postingImpacts: Float64Array;
  /**
   * Dense impact columns for the most common terms: column `denseColumn[t]` (−1: none) holds w(t, d) at
   * `denseImpacts[column · N + d]`, 0 where d lacks t. "What does t add to candidate d" becomes one load
   * instead of a search in a long list. 8·N bytes per column, ≤ 8 / `denseMinShare` bytes per posting of it.
   */
  readonly denseColumn: Int32Array;
  readonly denseImpacts: Float64Array;
  /**
   * The same dense columns as 8-bit impact codes, `denseCodes[column · N + d]` (a column is 1/8 the size of
   * its impact column, so it stays in cache while the candidates are bounded). Code 0: d lacks the term; code q > 0 brackets the
   * impact: `denseCodeLow[column · 256 + q]` ≤ w(t, d) ≤ `denseCodeHigh[column · 256 + q]` (the smallest and
   * largest real impact given that code). The pruned search bounds candidates with these before it reads
   * any exact impact. 1 byte per document and column (1/8 of `denseImpacts`).
   */
  readonly denseCodes: Uint8Array;
  readonly denseCodeLow: Float64Array;
  readonly denseCodeHigh: Float64Array;
}

/**
 * Index-time options. The layout knobs change speed and memory only, never results (tests set them low to
 * exercise every code path on small corpora). Progress and abort (`TermDocsOptions`) apply to the
 * term–document pass, the bulk of the work; progress is reported once more at the end.
 */
export interface Bm25BuildOptions extends TermDocsOptions {
  /** Lists at least this long are split into impact layers. Default 4096. */
  readonly layerMinDf?: number;
  /**
   * Layer boundaries from the top, as shares of a split list: [1/8] (default) gives a top layer with the
   * highest 1/8 of the impacts (ties at the cut stay on top) and a bottom layer with the rest.
   */
  readonly layerTopShares?: readonly number[];
  /** The top layer of a split list keeps at least this many postings. Default `BM25_MAX_DEPTH`. */
  readonly layerTopMin?: number;
  /** Terms in at least this share of the documents get a dense impact column (and codes). Default 1/8. */
  readonly denseMinShare?: number;
  /** ...and in at least this many documents. Default 256. */
  readonly denseMinDf?: number;
}

/** A module-local copy for the per-posting loop (V8 folds a module's own constants, not imported ones). */
const MAX_TF = BM25_MAX_TF;
const LAYER_MIN_DF = 4096;
const LAYER_TOP_SHARES: readonly number[] = [1 / 8];
const DENSE_MIN_SHARE = 1 / 8;
const DENSE_MIN_DF = 256;
/** Codes per dense column in `denseCodes` (0 = absent, 1..255 = impact bins). */
export const DENSE_CODES = 256;

/**
 * Tokenizes every passage once (`countTermDocs`) and builds the index: O(total tokens) plus a few passes
 * over the postings. Memory ≈ 12 bytes per (term, document) pair, plus the dense columns, plus the pass's
 * 8 bytes per pair while building.
 */
export function buildBm25Index(corpus: Corpus, params: Partial<Bm25Params> = {}, options: Bm25BuildOptions = {}): Bm25Index {
  const p = resolveBm25Params(params);
  checkLayerTopShares(options); // before the long pass, not after it
  return bm25IndexFrom(countTermDocs(corpus, options), p, options);
}

function checkLayerTopShares(options: Bm25BuildOptions): readonly number[] {
  const topShares = options.layerTopShares ?? LAYER_TOP_SHARES;
  if (topShares.some((x, i) => !(x > 0 && x < 1) || (i > 0 && !(x > topShares[i - 1]!)))) {
    throw new RangeError(`layerTopShares must increase strictly within (0, 1), got [${topShares.join(', ')}]`);
  }
  return topShares;
}

/**
 * The index over an existing term–document pass (its vocabulary, df and lengths are shared, not copied), so
 * a caller that keeps the pass builds an index per k1/b without tokenizing again. Reports (N, N) when done.
 */
export function bm25IndexFrom(pass: TermDocs, params: Partial<Bm25Params> = {}, options: Bm25BuildOptions = {}): Bm25Index {
  const p = resolveBm25Params(params);
  const topShares = checkLayerTopShares(options);
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

  const denseColumn = new Int32Array(termCount).fill(-1);
  let columns = 0;
  const denseMin = Math.max(options.denseMinDf ?? DENSE_MIN_DF, Math.ceil(n * (options.denseMinShare ?? DENSE_MIN_SHARE)), 1);
  for (let t = 0; t < termCount; t++) if (df[t]! >= denseMin) denseColumn[t] = columns++;
  const denseImpacts = new Float64Array(columns * n);
  for (let t = 0; t < termCount; t++) {
    const col = denseColumn[t]!;
    if (col < 0) continue;
    const base = col * n;
    for (let i = termOffsets[t]!; i < termOffsets[t + 1]!; i++) denseImpacts[base + postingDocs[i]!] = postingImpacts[i]!;
  }
  const { denseCodes, denseCodeLow, denseCodeHigh } = denseCodesOf(termOffsets, postingDocs, postingImpacts, denseColumn, columns, n);
  const layers = splitLayers(termOffsets, postingDocs, postingImpacts, {
    minDf: Math.max(2, options.layerMinDf ?? LAYER_MIN_DF),
    topShares,
    topMin: Math.max(1, options.layerTopMin ?? BM25_MAX_DEPTH),
  });
  options.onProgress?.(n, n);

  return {
    params: p,
    docCount: n,
    avgdl,
    docLengths,
    vocabulary: pass.vocabulary,
    df,
    idf,
    ...layers,
    postingDocs,
    postingImpacts,
    denseColumn,
    denseImpacts,
    denseCodes,
    denseCodeLow,
    denseCodeHigh,
  };
}

/** Codes per dense column (see `Bm25Index.denseCodes`): 255 equal-width bins between the term's least and largest impact. */
function denseCodesOf(
  termOffsets: Uint32Array,
  docs: Uint32Array,
  imp: Float64Array,
  denseColumn: Int32Array,
  columns: number,
  n: number,
): { denseCodes: Uint8Array; denseCodeLow: Float64Array; denseCodeHigh: Float64Array } {
  const denseCodes = new Uint8Array(columns * n);
  const denseCodeLow = new Float64Array(columns * DENSE_CODES);
  const denseCodeHigh = new Float64Array(columns * DENSE_CODES);
  const bins = DENSE_CODES - 1;
  for (let t = 0; t < denseColumn.length; t++) {
    const col = denseColumn[t]!;
    if (col < 0) continue;
    const start = termOffsets[t]!;
    const end = termOffsets[t + 1]!;
    let min = Infinity;
    let max = 0;
    for (let i = start; i < end; i++) {
      const w = imp[i]!;
      if (w < min) min = w;
      if (w > max) max = w;
    }
    const scale = max > min ? bins / (max - min) : 0;
    const tb = col * DENSE_CODES;
    const base = col * n;
    denseCodeLow.fill(Infinity, tb + 1, tb + DENSE_CODES);
    for (let i = start; i < end; i++) {
      const w = imp[i]!;
      // Any code in [1, 255] is sound: the bounds below are the real extremes of each code.
      const x = Math.floor((w - min) * scale);
      const q = x >= bins ? bins : x > 0 ? x + 1 : 1;
      denseCodes[base + docs[i]!] = q;
      if (w < denseCodeLow[tb + q]!) denseCodeLow[tb + q] = w;
      if (w > denseCodeHigh[tb + q]!) denseCodeHigh[tb + q] = w;
    }
    for (let q = 1; q < DENSE_CODES; q++) if (denseCodeLow[tb + q] === Infinity) denseCodeLow[tb + q] = 0;
  }
  return { denseCodes, denseCodeLow, denseCodeHigh };
}

/**
 * Impact layers (Anh & Moffat's impact tiers): each long list is reordered in place into layers of
 * decreasing impact, each in document order. The pruned search treats each layer as a list with its own
 * bound, so a query can take the best postings of a common term without reading the rest. Sums are
 * unchanged: a document lies in exactly one layer of each of its terms.
 */
function splitLayers(
  termOffsets: Uint32Array,
  docs: Uint32Array,
  imp: Float64Array,
  cfg: { minDf: number; topShares: readonly number[]; topMin: number },
): { termLayers: Uint32Array; layerOffsets: Uint32Array; layerMaxImpact: Float64Array } {
  const termCount = termOffsets.length - 1;
  const tiers = cfg.topShares.length + 1;
  let longest = 0;
  let split = 0;
  for (let t = 0; t < termCount; t++) {
    const len = termOffsets[t + 1]! - termOffsets[t]!;
    if (len >= cfg.minDf) {
      split++;
      if (len > longest) longest = len;
    }
  }
  const termLayers = new Uint32Array(termCount + 1);
  const layerOffsets = new Uint32Array(termCount + split * (tiers - 1) + 1);
  const layerMaxImpact = new Float64Array(termCount + split * (tiers - 1));
  const work = new Float64Array(longest);
  const tmpDocs = new Uint32Array(longest);
  const tmpImp = new Float64Array(longest);
  const tierOf = new Uint8Array(longest);
  const cuts = new Float64Array(tiers);
  const counts = new Int32Array(tiers);
  const maxes = new Float64Array(tiers);
  let l = 0;
  for (let t = 0; t < termCount; t++) {
    termLayers[t] = l;
    const start = termOffsets[t]!;
    const end = termOffsets[t + 1]!;
    const len = end - start;
    if (len < cfg.minDf) {
      let max = 0;
      for (let i = start; i < end; i++) if (imp[i]! > max) max = imp[i]!;
      layerOffsets[l] = start;
      layerMaxImpact[l++] = max;
      continue;
    }
    // Impacts ≥ cuts[z] go to a layer ≤ z; the last layer takes the rest.
    for (let z = 0; z < tiers - 1; z++) {
      work.set(imp.subarray(start, end));
      const want = Math.max(z === 0 ? cfg.topMin : 1, Math.ceil(len * cfg.topShares[z]!));
      cuts[z] = kthLargest(work, len, Math.min(want, len));
    }
    cuts[tiers - 1] = -Infinity;
    counts.fill(0);
    maxes.fill(0);
    for (let i = 0; i < len; i++) {
      const w = imp[start + i]!;
      let z = 0;
      while (w < cuts[z]!) z++;
      tierOf[i] = z;
      counts[z]!++;
      if (w > maxes[z]!) maxes[z] = w;
    }
    // Stable partition by layer through the scratch buffers; empty layers are dropped.
    let o = 0;
    for (let z = 0; z < tiers; z++) {
      if (counts[z] === 0) continue;
      layerOffsets[l] = start + o;
      layerMaxImpact[l++] = maxes[z]!;
      for (let i = 0; i < len; i++) {
        if (tierOf[i] !== z) continue;
        tmpDocs[o] = docs[start + i]!;
        tmpImp[o] = imp[start + i]!;
        o++;
      }
    }
    docs.set(tmpDocs.subarray(0, len), start);
    imp.set(tmpImp.subarray(0, len), start);
  }
  termLayers[termCount] = l;
  layerOffsets[l] = termOffsets[termCount]!;
  return { termLayers, layerOffsets: layerOffsets.slice(0, l + 1), layerMaxImpact: layerMaxImpact.slice(0, l) };
}
