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
 * Index layout (bm25s-style precomputed impacts, bm25s `bm25s/__init__.py`): term → postings in
 * column-compressed typed arrays, `postingDocs` (corpus indices) and `postingImpacts` (w(t, d)). Impacts are
 * float64 on purpose: storing float32 would round twice, `fround(acc + fround(w64))`, which is not
 * `fround(acc + w64)`. Measured on SciFact: float32 impacts change at least one top-50 score (by an ulp)
 * in 299 of the 300 test queries; no list changed order there, but near-ties can flip, and the scores
 * would no longer be the reference's. 12 bytes per posting. Long lists are also split into impact layers
 * and the most common terms get a dense impact column plus a column of 8-bit impact codes (each code
 * brackets the impact between the least and largest real impact with that code); all of it only speeds up
 * the pruned search below.
 *
 * Query evaluation is exact top-k: MaxScore-style pruning (Turtle & Flood 1995) over term-at-a-time
 * accumulation, then an exact rescoring of the survivors in the reference's order; see `searchMaxScore`.
 * Queries with few postings skip the pruning and run the reference algorithm directly, and
 * `strategy: 'exhaustive'` forces it (every posting, query order, then selection). Both give identical
 * lists and scores; the tests check both against a naive oracle.
 */
import type { Corpus, Queries, QueryId, RankedList, Run } from '../types.ts';
import { TermTable } from '../text/term-table.ts';
import { tokenize } from '../text/tokenize.ts';
import { kthLargest, kthLargestBounded, kthLargestGathered, TopKHeap } from './topk.ts';

/** How the per-document score is accumulated; see the module comment. */
export type Bm25Precision = 'float32' | 'float64';

/**
 * BM25 free parameters (named and ranged like bm25s `bm25s/scoring.py` and minisearch `BM25Params`).
 */
export interface Bm25Params {
  /**
   * Term-frequency saturation, k1 ∈ [0, ∞). 0 ignores tf (binary model); larger values let repeated
   * terms keep adding. Usual range 1.2–2.0. Default 1.5 (RAGFlip reference; the paper's "BM25-k1"
   * variant uses 1.2).
   */
  readonly k1: number;
  /**
   * Length normalisation, b ∈ [0, 1]. 0 ignores document length, 1 normalises fully by dl/avgdl.
   * Default 0.75 (RAGFlip reference; the paper's "BM25-b" variant uses 0.65).
   */
  readonly b: number;
  /** Score accumulation. Default 'float32' (reproduces the reference rankings); see the module comment. */
  readonly precision: Bm25Precision;
}

/**
 * Named parameter sets after the RAGFlip paper (§3 and Appendix A.5, Table 17): the reference and its two
 * one-parameter variants. `buildBm25Index(corpus, BM25_VARIANTS['ragflip-k1'])`.
 */
export const BM25_VARIANTS = {
  /** The paper's reference BM25: k1 = 1.5, b = 0.75. */
  ragflip: { k1: 1.5, b: 0.75, precision: 'float32' },
  /** The paper's "BM25-k1": k1 = 1.2, b = 0.75. */
  'ragflip-k1': { k1: 1.2, b: 0.75, precision: 'float32' },
  /** The paper's "BM25-b": k1 = 1.5, b = 0.65. */
  'ragflip-b': { k1: 1.5, b: 0.65, precision: 'float32' },
} as const satisfies Record<string, Bm25Params>;

export const DEFAULT_BM25_PARAMS: Bm25Params = BM25_VARIANTS.ragflip;

/** The run name of the paper's BM25. */
export const BM25_RUN_NAME = 'bm25';

/**
 * The one way a BM25 run is named, in the CLI, the lab, its URLs and every export: "bm25" for the paper's
 * settings, "bm25-k1=1.2-b=0.75" otherwise (both parameters, so any two settings have different names).
 */
export function bm25RunName(params: { readonly k1: number; readonly b: number }): string {
  return params.k1 === DEFAULT_BM25_PARAMS.k1 && params.b === DEFAULT_BM25_PARAMS.b ? BM25_RUN_NAME : `bm25-k1=${params.k1}-b=${params.b}`;
}

/** The parameters behind a name made by `bm25RunName`; null for any other name. */
export function parseBm25RunName(name: string): { k1: number; b: number } | null {
  if (name === BM25_RUN_NAME) return { k1: DEFAULT_BM25_PARAMS.k1, b: DEFAULT_BM25_PARAMS.b };
  const m = /^bm25-k1=(\d+(?:\.\d+)?)-b=(\d+(?:\.\d+)?)$/.exec(name);
  if (!m) return null;
  const params = { k1: Number(m[1]), b: Number(m[2]) };
  return params.b <= 1 && bm25RunName(params) === name ? params : null;
}

/** The paper's retrieval depth: every ranking is computed once at 50 and truncated. */
export const BM25_DEFAULT_DEPTH = 50;
/** The deepest ranking `searchBm25` returns (bounds the reusable top-k heap). */
export const BM25_MAX_DEPTH = 1000;
/** The reference caps term frequency at 65,535 (`min(freq, 65535)`). */
export const BM25_MAX_TF = 65535;

/**
 * A built index: plain data (typed arrays, one Map, numbers), so it can be structured-cloned to, or built
 * inside, a worker. Term ids follow first appearance in the corpus.
 */
export interface Bm25Index {
  readonly params: Bm25Params;
  /** N: documents in the corpus, empty ones included. */
  readonly docCount: number;
  /** Mean document length over all N documents (tokens after stop-word removal). */
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
 * exercise every code path on small corpora).
 */
export interface Bm25BuildOptions {
  /** Called every `progressEveryDocs` documents and once at the end with (done, total). */
  readonly onProgress?: (done: number, total: number) => void;
  readonly progressEveryDocs?: number;
  /** Checked at each progress point. */
  readonly signal?: AbortSignal;
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

/** One query's result: corpus indices (DocIndex) best first and their scores (element type = precision). */
export interface Bm25Hits {
  readonly docs: Uint32Array;
  readonly scores: Float32Array | Float64Array;
}

export interface Bm25SearchOptions {
  /**
   * 'auto' (default): the reference algorithm for queries with few postings, pruned search otherwise.
   * 'maxscore': always the pruned search. 'exhaustive': always the reference algorithm. All three return
   * identical lists and scores.
   */
  readonly strategy?: 'auto' | 'maxscore' | 'exhaustive';
}

const PROGRESS_EVERY_DOCS = 2048;
const LAYER_MIN_DF = 4096;
const LAYER_TOP_SHARES: readonly number[] = [1 / 8];
const DENSE_MIN_SHARE = 1 / 8;
const DENSE_MIN_DF = 256;
/** Codes per dense column in `denseCodes` (0 = absent, 1..255 = impact bins). */
const DENSE_CODES = 256;

/** Complete and check parameters; throws RangeError on values outside the documented ranges. */
export function resolveBm25Params(params: Partial<Bm25Params> = {}): Bm25Params {
  const k1 = params.k1 ?? DEFAULT_BM25_PARAMS.k1;
  const b = params.b ?? DEFAULT_BM25_PARAMS.b;
  const precision = params.precision ?? DEFAULT_BM25_PARAMS.precision;
  if (!Number.isFinite(k1) || k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${k1}`);
  if (!Number.isFinite(b) || b < 0 || b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${b}`);
  if (precision !== 'float32' && precision !== 'float64') {
    throw new RangeError(`BM25 precision must be 'float32' or 'float64', got ${String(precision)}`);
  }
  return { k1, b, precision };
}

function grownU32(a: Uint32Array, need: number): Uint32Array {
  if (need <= a.length) return a;
  const out = new Uint32Array(Math.max(need, a.length * 2));
  out.set(a);
  return out;
}

function grownI32(a: Int32Array, need: number, fill: number): Int32Array {
  if (need <= a.length) return a;
  const out = new Int32Array(Math.max(need, a.length * 2)).fill(fill);
  out.set(a);
  return out;
}

/**
 * Tokenizes every passage once and builds the index: O(total tokens) plus a few passes over the postings.
 * Memory ≈ 12 bytes per (term, document) pair, plus the dense columns, plus 8 bytes per pair while building.
 */
export function buildBm25Index(corpus: Corpus, params: Partial<Bm25Params> = {}, options: Bm25BuildOptions = {}): Bm25Index {
  const p = resolveBm25Params(params);
  const n = corpus.ids.length;
  const every = Math.max(1, options.progressEveryDocs ?? PROGRESS_EVERY_DOCS);
  const table = new TermTable();

  // Per-term state, grown as the vocabulary grows.
  let df: Uint32Array = new Uint32Array(1024);
  let lastDoc: Int32Array = new Int32Array(1024).fill(-1);
  let tfNow: Uint32Array = new Uint32Array(1024);
  // Unique terms of the current document, then (term, tf) pairs of all documents in document order.
  let docTerms: Uint32Array = new Uint32Array(256);
  // Sized from the text (about one distinct term per 12 characters in English prose), grown if short.
  let chars = 0;
  for (let d = 0; d < n; d++) chars += (corpus.titles[d]?.length ?? 0) + (corpus.texts[d]?.length ?? 0);
  let pairTerm: Uint32Array = new Uint32Array(Math.max(1024, Math.ceil(chars / 12)));
  // tf is capped at 65,535 (BM25_MAX_TF), so it fits 16 bits.
  let pairTf: Uint16Array = new Uint16Array(pairTerm.length);
  const pairEnd = new Uint32Array(n);
  const docLengths = new Uint32Array(n);

  let tokens: Uint32Array = new Uint32Array(1024);

  let totalLength = 0;
  let pairs = 0;
  for (let d = 0; d < n; d++) {
    // The passage is `${title}. ${text}`.trim() (passageText); ". " and the trimmed whitespace are not
    // alphanumeric, so its tokens are the title's followed by the text's, without building the string.
    const title = corpus.titles[d] ?? '';
    const text = corpus.texts[d] ?? '';
    const room = ((title.length + 1) >> 1) + ((text.length + 1) >> 1);
    if (tokens.length < room) tokens = new Uint32Array(Math.max(room, tokens.length * 2));
    const length = table.scanInto(text, tokens, table.scanInto(title, tokens, 0));
    if (table.size > df.length) {
      df = grownU32(df, table.size);
      tfNow = grownU32(tfNow, table.size);
      lastDoc = grownI32(lastDoc, table.size, -1);
    }
    if (docTerms.length < length) docTerms = grownU32(docTerms, length);
    let unique = 0;
    for (let i = 0; i < length; i++) {
      const t = tokens[i]!;
      if (lastDoc[t] !== d) {
        lastDoc[t] = d;
        tfNow[t] = 1;
        docTerms[unique++] = t;
      } else {
        tfNow[t]!++;
      }
    }
    docLengths[d] = length;
    totalLength += length;
    if (pairs + unique > pairTerm.length) {
      const size = Math.max(pairs + unique, Math.ceil(pairTerm.length * 1.5));
      const terms = new Uint32Array(size);
      terms.set(pairTerm);
      pairTerm = terms;
      const tfs = new Uint16Array(size);
      tfs.set(pairTf);
      pairTf = tfs;
    }
    for (let i = 0; i < unique; i++) {
      const t = docTerms[i]!;
      pairTerm[pairs] = t;
      const tf = tfNow[t]!;
      pairTf[pairs] = tf > BM25_MAX_TF ? BM25_MAX_TF : tf;
      pairs++;
      df[t]!++;
    }
    pairEnd[d] = pairs;
    if ((d + 1) % every === 0) {
      options.signal?.throwIfAborted();
      options.onProgress?.(d + 1, n);
    }
  }

  const termCount = table.size;
  const f32 = p.precision === 'float32';
  // The reference: avgdl = float(doc_len.mean()); integer sums are exact in float64.
  const avgdl = n > 0 ? totalLength / n : 1;
  const idf = new Float64Array(termCount);
  const termOffsets = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) {
    const f = df[t]!;
    const w = Math.log(1 + (n - f + 0.5) / (f + 0.5));
    idf[t] = f32 ? Math.fround(w) : w;
    termOffsets[t + 1] = termOffsets[t]! + f;
  }

  // Transpose document-major pairs into term-major postings; documents arrive in ascending order.
  const cursor = termOffsets.slice(0, termCount);
  const postingDocs = new Uint32Array(pairs);
  const postingImpacts = new Float64Array(pairs);
  const { k1, b } = p;
  const k1p1 = k1 + 1;
  const oneMinusB = 1 - b;
  let j = 0;
  for (let d = 0; d < n; d++) {
    const end = pairEnd[d]!;
    if (j === end) continue;
    // Same operation order as the reference: freq + 1.5 * (0.25 + 0.75 * doc_len[doc] / avgdl).
    const norm = k1 * (oneMinusB + (b * docLengths[d]!) / avgdl);
    for (; j < end; j++) {
      const t = pairTerm[j]!;
      const tf = pairTf[j]!;
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
  const topShares = options.layerTopShares ?? LAYER_TOP_SHARES;
  if (topShares.some((x, i) => !(x > 0 && x < 1) || (i > 0 && !(x > topShares[i - 1]!)))) {
    throw new RangeError(`layerTopShares must increase strictly within (0, 1), got [${topShares.join(', ')}]`);
  }
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
    vocabulary: table.toMap(),
    df: df.slice(0, termCount),
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

// ---------------------------------------------------------------------------------------------------------
// Query evaluation

/** Per-index reusable buffers, kept outside the index so the index stays plain data. */
interface Scratch {
  /** Partial float64 sums (pruned search); zero between queries. */
  readonly acc: Float64Array;
  /** The reference's score buffer (exhaustive search); zero between queries. */
  readonly exact: Float32Array | Float64Array;
  /** Per document: bit u set when it matched query slot u (u < 32); zero between queries. */
  readonly mask: Uint32Array;
  readonly touched: Uint32Array;
  readonly candidates: Uint32Array;
  /** Selection workspace. */
  readonly work: Float64Array;
  /** Lower and upper bounds per candidate while dense slots are settled. */
  readonly low: Float64Array;
  readonly high: Float64Array;
  /** Dense slots being settled: slot, column, multiplicity. */
  readonly qSlot: Int32Array;
  /** The query's dense slots: slot, column, multiplicity. */
  readonly dSlot: Int32Array;
  readonly dCol: Int32Array;
  readonly dMult: Float64Array;
  readonly qCol: Int32Array;
  readonly qMult: Float64Array;
  readonly qBound: Float64Array;
  readonly qRest: Float64Array;
  readonly hist: Int32Array;
  readonly heap: TopKHeap;
  /** Final candidates × query slots: the impacts replayed in query order. */
  replay: Float64Array;
}

const scratchOf = new WeakMap<Bm25Index, Scratch>();

function scratchFor(index: Bm25Index): Scratch {
  let s = scratchOf.get(index);
  if (!s) {
    const n = index.docCount;
    s = {
      acc: new Float64Array(n),
      exact: index.params.precision === 'float32' ? new Float32Array(n) : new Float64Array(n),
      mask: new Uint32Array(n),
      touched: new Uint32Array(n),
      candidates: new Uint32Array(n),
      work: new Float64Array(n),
      low: new Float64Array(n),
      high: new Float64Array(n),
      qSlot: new Int32Array(32),
      dSlot: new Int32Array(32),
      dCol: new Int32Array(32),
      dMult: new Float64Array(32),
      qCol: new Int32Array(32),
      qMult: new Float64Array(32),
      qBound: new Float64Array(32),
      qRest: new Float64Array(33),
      hist: new Int32Array(HIST_BUCKETS),
      heap: new TopKHeap(BM25_MAX_DEPTH),
      replay: new Float64Array(1024),
    };
    scratchOf.set(index, s);
  }
  return s;
}

function checkDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1 || depth > BM25_MAX_DEPTH) {
    throw new RangeError(`BM25 depth must be an integer in [1, ${BM25_MAX_DEPTH}], got ${depth}`);
  }
}

/** Query tokens in query order (repeats kept), mapped to term ids; out-of-vocabulary tokens dropped. */
export function queryTermIds(index: Bm25Index, queryText: string): number[] {
  const out: number[] = [];
  for (const tok of tokenize(queryText)) {
    const t = index.vocabulary.get(tok);
    if (t !== undefined) out.push(t);
  }
  return out;
}

function emptyHits(index: Bm25Index): Bm25Hits {
  return { docs: new Uint32Array(0), scores: index.params.precision === 'float32' ? new Float32Array(0) : new Float64Array(0) };
}

function drainHits(index: Bm25Index, heap: TopKHeap): Bm25Hits {
  const r = index.params.precision === 'float32' ? heap.drain((n) => new Float32Array(n)) : heap.drain((n) => new Float64Array(n));
  return { docs: r.indices, scores: r.scores };
}

/** First position p in [lo, hi) with docs[p] ≥ target, or hi; exponential then binary search. */
function gallop(docs: Uint32Array, lo: number, hi: number, target: number): number {
  if (lo >= hi || docs[lo]! >= target) return lo;
  let step = 1;
  let prev = lo;
  let cur = lo + 1;
  while (cur < hi && docs[cur]! < target) {
    prev = cur;
    step <<= 1;
    cur = lo + step;
  }
  let l = prev + 1;
  let h = cur < hi ? cur : hi;
  while (l < h) {
    const mid = (l + h) >>> 1;
    if (docs[mid]! < target) l = mid + 1;
    else h = mid;
  }
  return l;
}

/** The reference algorithm: every posting of every query token, in query order, into the score buffer. */
function searchExhaustive(index: Bm25Index, terms: readonly number[], k: number): Bm25Hits {
  const s = scratchFor(index);
  const sc = s.exact;
  const touched = s.touched;
  const { termLayers, layerOffsets, postingDocs: docs, postingImpacts: imp } = index;
  let nt = 0;
  for (const t of terms) {
    // A term's layers are contiguous and hold each of its documents once.
    const end = layerOffsets[termLayers[t + 1]!]!;
    for (let j = layerOffsets[termLayers[t]!]!; j < end; j++) {
      const d = docs[j]!;
      const v = sc[d]!;
      if (v === 0) touched[nt++] = d;
      sc[d] = v + imp[j]!; // a Float32Array store is fround(v + w64): the reference's rounding
    }
  }
  const heap = s.heap;
  heap.reset(Math.min(k, nt));
  for (let i = 0; i < nt; i++) {
    const d = touched[i]!;
    heap.push(d, sc[d]!);
    sc[d] = 0;
  }
  return drainHits(index, heap);
}

/**
 * Probing a list for one candidate (galloping search) costs about this many sequential posting reads,
 * times log2 of the gap between candidates; measured on a FiQA-sized collection.
 */
const PROBE_COST_POSTINGS = 3;
/** Histogram resolution of the θ estimates (θ is only ever under-estimated, by ≤ max/HIST_BUCKETS). */
const HIST_BUCKETS = 1024;
/** When more than 1/RESET_FILL_FRACTION of the corpus was touched, clearing by fill beats clearing by list. */
const RESET_FILL_FRACTION = 2;
/**
 * Queries whose lists hold at most this many postings per unit of depth run the reference algorithm: the
 * pruned search's fixed costs (planning, rescoring) outweigh what it could skip.
 */
const EXHAUSTIVE_POSTINGS_PER_DEPTH = 200;
/**
 * The pruned search tightens θ from the dense codes before reading a list at least this many times longer
 * than the touched set (the tightening costs one pass over the touched set).
 */
const CODE_THETA_LIST_RATIO = 1;

/** Lower edge of the highest bucket at which at least k values lie at or above it (0 if none). */
function edgeOf(hist: Int32Array, k: number, scale: number): number {
  let above = 0;
  for (let b = HIST_BUCKETS - 1; b > 0; b--) {
    above += hist[b]!;
    if (above >= k) return b / scale;
  }
  return 0;
}

/**
 * Exact top-k with MaxScore pruning (Turtle & Flood 1995) over impact-layered lists, term at a time:
 *
 * 1. The query's lists (each layer of each unique term) are read in decreasing bound U = (occurrences of
 *    the term in the query) × (largest impact in the layer), accumulating float64 partial sums over every
 *    document they touch. A document lies in at most one layer per term, so what an untouched document
 *    can still gain is R = Σ over terms of the bound of the term's highest unread layer.
 * 2. Once a lower bound θ on the k-th best partial sum exceeds R, no untouched document can reach the top
 *    k. From then on only candidates count: touched documents whose partial sum plus what the unread layers
 *    can still add to them (nothing from a term they already matched, by a per-document bit mask) can reach
 *    θ. Each remaining list is either scanned (skipping non-candidates) or visited once per candidate
 *    (dense column or galloping search), whichever is cheaper; a visit also prunes with the current θ and
 *    R and histograms the new sums for the next θ. Pruned documents are marked −∞.
 *    Dense terms (slots < 32 with a dense column) are settled together at their first unread layer, from
 *    their codes: each candidate's upper bound (partial sum + the codes' highs + what other slots can still
 *    add) is cut against θ code by code, θ rises to the k-th lower bound (partial sum + the codes' lows), and
 *    only the candidates whose upper bound still reaches θ read exact impacts from the dense columns.
 *    Before phase 1 reads a list longer than the touched set, θ is also raised from the touched documents'
 *    code lower bounds, which often ends phase 1 early (queries made of very common terms, where partial
 *    sums alone give a weak θ).
 * 3. The survivors of acc ≥ θ (exact k-th) are rescored exactly as the reference does (query-token order,
 *    float32 rounding per addition) and selected by (score desc, index asc).
 *
 * Every bound is widened by ε = (m + 2)·2⁻²³ (m query tokens), more than the relative difference between a
 * float64 sum and its float32 accumulation in another order, and a document is dropped only when even its
 * widened bound is strictly below the narrowed θ, so it scores strictly below the final k-th score: the
 * result is identical to the exhaustive search (tests check this on random and real collections). Code
 * bounds are real impacts (the extremes of a code), summed like the partial sums, so the same ε covers
 * them; a regression test fails if the code step drops the widening.
 */
function searchMaxScore(index: Bm25Index, terms: readonly number[], k: number): Bm25Hits {
  const s = scratchFor(index);
  const { termLayers, layerOffsets: off, layerMaxImpact, postingDocs: docs, postingImpacts: imp, denseColumn, denseImpacts } = index;
  const f32 = index.params.precision === 'float32';
  const m = terms.length;
  const n = index.docCount;

  // Unique terms (slots), their multiplicity, and each token's slot.
  const uniq: number[] = [];
  const mult: number[] = [];
  const tokenSlot = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    const t = terms[i]!;
    let u = uniq.indexOf(t);
    if (u < 0) {
      u = uniq.length;
      uniq.push(t);
      mult.push(0);
    }
    mult[u]!++;
    tokenSlot[i] = u;
  }
  const nu = uniq.length;
  // The lists: every layer of every unique term, read by decreasing bound (a term's layers keep their order).
  const listLayer: number[] = [];
  const listSlot: number[] = [];
  const listBound: number[] = [];
  for (let u = 0; u < nu; u++) {
    const t = uniq[u]!;
    for (let l = termLayers[t]!; l < termLayers[t + 1]!; l++) {
      listLayer.push(l);
      listSlot.push(u);
      listBound.push(mult[u]! * layerMaxImpact[l]!);
    }
  }
  const nl = listLayer.length;
  const order = Array.from({ length: nl }, (_, i) => i).sort((a, b) => listBound[b]! - listBound[a]! || a - b);
  // slotNext[u]: bound of slot u's highest unread layer (0 once all are read).
  const slotNext = new Float64Array(nu);
  for (let i = nl - 1; i >= 0; i--) slotNext[listSlot[i]!] = listBound[i]!; // first layer of each slot
  const layersLeft = new Int32Array(nu);
  for (let i = 0; i < nl; i++) layersLeft[listSlot[i]!]!++;
  let r = 0;
  for (let u = 0; u < nu; u++) r += slotNext[u]!;
  const max = r; // no partial sum exceeds Σ of the slots' top bounds

  const codes = index.denseCodes;
  const codeLow = index.denseCodeLow;
  const codeHigh = index.denseCodeHigh;
  const dSlot = s.dSlot;
  const dCol = s.dCol;
  const dMult = s.dMult;
  const qSlot = s.qSlot;
  const qCol = s.qCol;
  const qMult = s.qMult;
  const qBound = s.qBound;
  const qRest = s.qRest;

  const eps = (m + 2) * (f32 ? 2 ** -23 : 2 ** -50);
  const hi = 1 + eps;
  const lo = 1 - eps;
  const acc = s.acc;
  const mask = s.mask;
  const touched = s.touched;
  const hist = s.hist;
  let nt = 0;

  /** Marks list i (slot u) read: its slot's next layer becomes the slot's bound; returns the new R. */
  const markRead = (i: number): number => {
    const u = listSlot[i]!;
    slotNext[u] = --layersLeft[u]! > 0 ? listBound[i + 1]! : 0;
    let sum = 0;
    for (let v = 0; v < nu; v++) sum += slotNext[v]!;
    return sum;
  };

  // Phase 1: every posting of the high-bound lists, until untouched documents cannot reach the top k.
  // The histogram of the partial sums is kept up to date as they change, so θ costs a bucket scan.
  let next = 0;
  let theta = 0;
  let switched = false;
  const scale = HIST_BUCKETS / max;
  const last = HIST_BUCKETS - 1;
  hist.fill(0);
  // Dense slots (< 32): their codes give every touched document a lower bound on its final sum.
  let nd = 0;
  for (let v = 0; v < nu && v < 32; v++) {
    const cv = denseColumn[uniq[v]!]!;
    if (cv < 0) continue;
    dSlot[nd] = v;
    dCol[nd] = cv;
    dMult[nd] = mult[v]!;
    nd++;
  }
  while (next < nl) {
    const i = order[next]!;
    const l = listLayer[i]!;
    const u = listSlot[i]!;
    const bit = u < 32 ? 1 << u : 0;
    const c = mult[u]!;
    const end = off[l + 1]!;
    if (nd > 0 && nt >= k && end - off[l]! > nt * CODE_THETA_LIST_RATIO) {
      // Before a list longer than the touched set: θ from the touched documents' partial sums plus their
      // dense codes' lower bounds (k documents score at least that). Often enough to stop reading here.
      const low = s.low;
      for (let q = 0; q < nt; q++) {
        const d = touched[q]!;
        const md = mask[d]!;
        let a = acc[d]!;
        for (let j = 0; j < nd; j++) {
          if ((md & (1 << dSlot[j]!)) !== 0) continue;
          a += dMult[j]! * codeLow[dCol[j]! * DENSE_CODES + codes[dCol[j]! * n + d]!]!;
        }
        low[q] = a;
      }
      const t2 = kthLargestBounded(low, nt, k, max, s.work);
      if (t2 > theta) theta = t2;
      if (r * hi < theta * lo) {
        switched = true;
        break;
      }
    }
    // A document first met in this list can gain at most R' (R after this list) later. If even w + R'
    // stays below θ, it scores below k documents already touched and can never be returned: leave it
    // untouched. Should a later list meet it again, it restarts without this list's weight and bit; its
    // partial sum and rescoring are then underestimates, which keep it out all the same.
    const rAfter = r - slotNext[u]! + (layersLeft[u]! > 1 ? listBound[i + 1]! : 0);
    const cut = theta * lo;
    if (theta > 0 && rAfter * hi < cut) {
      for (let j = off[l]!; j < end; j++) {
        const d = docs[j]!;
        const v = acc[d]!;
        const w = c * imp[j]!;
        if (v === 0) {
          if ((w + rAfter) * hi < cut) continue;
          touched[nt++] = d;
        } else {
          const x = v * scale;
          hist[x >= last ? last : x | 0]!--;
        }
        const nv = v + w;
        acc[d] = nv;
        const y = nv * scale;
        hist[y >= last ? last : y | 0]!++;
        mask[d] = mask[d]! | bit;
      }
    } else {
      for (let j = off[l]!; j < end; j++) {
        const d = docs[j]!;
        const v = acc[d]!;
        if (v === 0) touched[nt++] = d;
        else {
          const x = v * scale;
          hist[x >= last ? last : x | 0]!--;
        }
        const nv = v + c * imp[j]!;
        acc[d] = nv;
        const y = nv * scale;
        hist[y >= last ? last : y | 0]!++;
        mask[d] = mask[d]! | bit;
      }
    }
    r = markRead(i);
    next++;
    if (next === nl) break;
    if (nt >= k) {
      const t2 = edgeOf(hist, k, scale);
      if (t2 > theta) theta = t2;
      if (r * hi < theta * lo) {
        switched = true;
        break;
      }
    }
  }

  const cand = s.candidates;
  cand.set(touched.subarray(0, nt));
  let nc = nt;
  let sorted = false;
  if (switched) {
    // Phase 2: candidates only. A list is either scanned (long list, many candidates) or visited once per
    // candidate; a candidate visit also prunes (θ, R from before the list) and histograms the new sums.
    let settled = 0; // dense slots whose every layer the code step below has resolved
    let pendingDense = false;
    for (let j = 0; j < nd; j++) if (slotNext[dSlot[j]!]! > 0) pendingDense = true;
    for (; next < nl; next++) {
      const i = order[next]!;
      const u = listSlot[i]!;
      const bit = u < 32 ? 1 << u : 0;
      if ((settled & bit) !== 0) continue;
      const c = mult[u]!;
      const l = listLayer[i]!;
      const start = off[l]!;
      const end = off[l + 1]!;
      const len = end - start;
      // A dense column holds the term's impact whatever the layer: only usable when the mask can tell
      // whether the document already matched another layer of the term (slots < 32).
      const col = u < 32 ? denseColumn[uniq[u]!]! : -1;
      if (pendingDense && col >= 0) {
        // Settle every dense slot with unread layers at once. Each candidate gets an upper bound from its
        // codes, slot by slot (a cut as soon as it falls below θ), and a lower bound; θ rises to the k-th
        // lower bound, and only candidates whose upper bound still reaches θ read exact impacts from the
        // dense columns. A candidate's codes are one byte per slot, from columns that stay in cache.
        pendingDense = false;
        let nq = 0;
        let rOther = 0;
        for (let v = 0; v < nu; v++) {
          const cv = v < 32 ? denseColumn[uniq[v]!]! : -1;
          if (cv >= 0 && slotNext[v]! > 0) {
            // insertion by decreasing bound: the most selective codes are read first
            let j = nq++;
            for (; j > 0 && qBound[j - 1]! < slotNext[v]!; j--) {
              qSlot[j] = qSlot[j - 1]!;
              qCol[j] = qCol[j - 1]!;
              qMult[j] = qMult[j - 1]!;
              qBound[j] = qBound[j - 1]!;
            }
            qSlot[j] = v;
            qCol[j] = cv;
            qMult[j] = mult[v]!;
            qBound[j] = slotNext[v]!;
          } else rOther += slotNext[v]!;
        }
        // qRest[j]: what slots j.. can add at most (slot bounds; a sum of non-negative terms, no subtraction).
        qRest[nq] = rOther;
        for (let j = nq - 1; j >= 0; j--) qRest[j] = qRest[j + 1]! + qBound[j]!;
        const low = s.low;
        const high = s.high;
        let cut = theta * lo;
        let w = 0;
        for (let q = 0; q < nc; q++) {
          const d = cand[q]!;
          const v = acc[d]!;
          if ((v + qRest[0]!) * hi < cut) {
            acc[d] = -Infinity;
            continue;
          }
          const md = mask[d]!;
          let a = v;
          let z = v;
          let j = 0;
          for (; j < nq; j++) {
            if ((md & (1 << qSlot[j]!)) !== 0) continue;
            const x = qCol[j]! * DENSE_CODES + codes[qCol[j]! * n + d]!;
            a += qMult[j]! * codeLow[x]!;
            z += qMult[j]! * codeHigh[x]!;
            if ((z + qRest[j + 1]!) * hi < cut) break;
          }
          if (j < nq) {
            acc[d] = -Infinity;
            continue;
          }
          low[w] = a;
          high[w] = z + rOther;
          cand[w++] = d;
        }
        nc = w;
        if (nc >= k) {
          const t2 = kthLargestBounded(low, nc, k, max, s.work);
          if (t2 > theta) theta = t2;
        }
        cut = theta * lo;
        w = 0;
        for (let q = 0; q < nc; q++) {
          const d = cand[q]!;
          if (high[q]! * hi < cut) {
            acc[d] = -Infinity;
            continue;
          }
          let v = acc[d]!;
          let md = mask[d]!;
          for (let j = 0; j < nq; j++) {
            const b = 1 << qSlot[j]!;
            if ((md & b) !== 0) continue;
            const x = denseImpacts[qCol[j]! * n + d]!;
            if (x !== 0) {
              v += qMult[j]! * x;
              md |= b;
            }
          }
          acc[d] = v;
          mask[d] = md;
          cand[w++] = d;
        }
        nc = w;
        for (let j = 0; j < nq; j++) {
          const v = qSlot[j]!;
          settled |= 1 << v;
          slotNext[v] = 0;
          layersLeft[v] = 0;
        }
        r = rOther;
        continue;
      }
      const visit = col >= 0 ? nc <= 2 * len : nc * PROBE_COST_POSTINGS * (1 + Math.log2(1 + len / (nc || 1))) < len;
      if (!visit) {
        for (let j = start; j < end; j++) {
          const d = docs[j]!;
          const v = acc[d]!;
          // Untouched (0) and pruned (−∞) documents are skipped, and so are those that already took this
          // term's weight from its dense column during an earlier layer's visit.
          if (v > 0 && (mask[d]! & bit) === 0) {
            acc[d] = v + c * imp[j]!;
            mask[d] = mask[d]! | bit;
          }
        }
        r = markRead(i);
        continue;
      }
      const prune = nc > k;
      const cut = theta * lo;
      let open = 0; // slots (< 32) with unread layers: a match there rules the rest of that slot out
      for (let v = 0; v < nu && v < 32; v++) if (slotNext[v]! > 0) open |= 1 << v;
      if (prune) hist.fill(0);
      if (col < 0 && !sorted) {
        cand.subarray(0, nc).sort();
        sorted = true;
      }
      const base = col * n;
      let pos = start;
      let w = 0;
      for (let q = 0; q < nc; q++) {
        const d = cand[q]!;
        let v = acc[d]!;
        const md = mask[d]!;
        if (prune) {
          // R first (cheap); the tighter room only when a matched slot still has unread layers.
          let room = r;
          if ((v + room) * hi >= cut) {
            let mm = md & open;
            while (mm !== 0) {
              const b = 31 - Math.clz32(mm);
              room -= slotNext[b]!;
              mm ^= 1 << b;
            }
          }
          if ((v + room) * hi < cut) {
            acc[d] = -Infinity;
            continue;
          }
        }
        if ((md & bit) === 0) {
          if (col >= 0) {
            const x = denseImpacts[base + d]!;
            if (x !== 0) {
              v += c * x;
              acc[d] = v;
              mask[d] = md | bit;
            }
          } else if (pos < end) {
            pos = gallop(docs, pos, end, d);
            if (pos < end && docs[pos] === d) {
              v += c * imp[pos]!;
              acc[d] = v;
              mask[d] = md | bit;
            }
          }
        }
        cand[w++] = d;
        if (prune) {
          const x = v * scale;
          hist[x >= last ? last : x > 0 ? x | 0 : 0]!++;
        }
      }
      nc = w;
      if (prune && nc >= k) {
        const t2 = edgeOf(hist, k, scale);
        if (t2 > theta) theta = t2;
      }
      r = markRead(i);
    }
  }
  // Final cut with R = 0 and an exact θ.
  if (nc > k) {
    theta = kthLargestGathered(acc, cand, nc, k, max, s.work);
    const cut = theta * lo;
    let w = 0;
    for (let q = 0; q < nc; q++) {
      const d = cand[q]!;
      if (acc[d]! * hi >= cut) cand[w++] = d;
    }
    nc = w;
  }
  if (!sorted) cand.subarray(0, nc).sort();

  // Phase 3: exact rescoring of the survivors in query-token order.
  if (s.replay.length < nc * nu) s.replay = new Float64Array(Math.max(nc * nu, s.replay.length * 2));
  const replay = s.replay;
  replay.fill(0, 0, nc * nu);
  for (let u = 0; u < nu; u++) {
    const col = denseColumn[uniq[u]!]!;
    if (col < 0) continue;
    const base = col * n;
    for (let q = 0; q < nc; q++) replay[q * nu + u] = denseImpacts[base + cand[q]!]!;
  }
  for (let i = 0; i < nl; i++) {
    const u = listSlot[i]!;
    if (denseColumn[uniq[u]!]! >= 0) continue;
    const l = listLayer[i]!;
    const tracked = u < 32;
    const bit = tracked ? 1 << u : 0;
    const end = off[l + 1]!;
    let pos = off[l]!;
    for (let q = 0; q < nc && pos < end; q++) {
      const d = cand[q]!;
      if (tracked && (mask[d]! & bit) === 0) continue; // no layer of this term holds d
      pos = gallop(docs, pos, end, d);
      if (pos < end && docs[pos] === d) replay[q * nu + u] = imp[pos]!;
    }
  }
  if (nt > n / RESET_FILL_FRACTION) {
    acc.fill(0);
    mask.fill(0);
  } else {
    for (let i = 0; i < nt; i++) {
      const d = touched[i]!;
      acc[d] = 0;
      mask[d] = 0;
    }
  }
  const heap = s.heap;
  heap.reset(Math.min(k, nc));
  for (let q = 0; q < nc; q++) {
    let e = 0;
    const row = q * nu;
    if (f32) {
      for (let x = 0; x < m; x++) {
        const w = replay[row + tokenSlot[x]!]!;
        if (w !== 0) e = Math.fround(e + w);
      }
    } else {
      for (let x = 0; x < m; x++) {
        const w = replay[row + tokenSlot[x]!]!;
        if (w !== 0) e += w;
      }
    }
    heap.push(cand[q]!, e);
  }
  return drainHits(index, heap);
}

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
