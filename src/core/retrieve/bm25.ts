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

/** idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) in float64 (the reference rounds it to float32 after). */
export function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

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
    const w = bm25Idf(n, f);
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
  /** Partial float64 sums per document (pruned search; −∞ once pruned); zero between queries. */
  readonly partialSums: Float64Array;
  /** The reference's score buffer (exhaustive search); zero between queries. */
  readonly exact: Float32Array | Float64Array;
  /** Per document: bit u set when it matched query slot u (u < 32); zero between queries. */
  readonly matchedSlots: Uint32Array;
  /** Documents whose partial sum (pruned search) or score (exhaustive search) this query set, first touch first. */
  readonly touched: Uint32Array;
  readonly candidates: Uint32Array;
  /** Selection workspace. */
  readonly work: Float64Array;
  /** Lower and upper bounds per touched document or candidate, from the dense codes. */
  readonly lowerBounds: Float64Array;
  readonly upperBounds: Float64Array;
  /** The query's dense slots (slots < 32 whose term has a dense column): slot, column, multiplicity. */
  readonly denseSlot: Int32Array;
  readonly denseSlotColumn: Int32Array;
  readonly denseSlotMult: Float64Array;
  /** Dense slots being settled, by decreasing bound: slot, column, multiplicity, bound. */
  readonly settleSlot: Int32Array;
  readonly settleColumn: Int32Array;
  readonly settleMult: Float64Array;
  readonly settleBound: Float64Array;
  /** settleRest[j]: what settled slots j.. and every other slot can still add at most (length 33). */
  readonly settleRest: Float64Array;
  /** Histogram of the partial sums, for θ estimates. */
  readonly histogram: Int32Array;
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
      partialSums: new Float64Array(n),
      exact: index.params.precision === 'float32' ? new Float32Array(n) : new Float64Array(n),
      matchedSlots: new Uint32Array(n),
      touched: new Uint32Array(n),
      candidates: new Uint32Array(n),
      work: new Float64Array(n),
      lowerBounds: new Float64Array(n),
      upperBounds: new Float64Array(n),
      denseSlot: new Int32Array(MASK_SLOTS),
      denseSlotColumn: new Int32Array(MASK_SLOTS),
      denseSlotMult: new Float64Array(MASK_SLOTS),
      settleSlot: new Int32Array(MASK_SLOTS),
      settleColumn: new Int32Array(MASK_SLOTS),
      settleMult: new Float64Array(MASK_SLOTS),
      settleBound: new Float64Array(MASK_SLOTS),
      settleRest: new Float64Array(MASK_SLOTS + 1),
      histogram: new Int32Array(HIST_BUCKETS),
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
function histogramEdge(hist: Int32Array, k: number, scale: number): number {
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
 * 3. The survivors of partial sum ≥ θ (exact k-th) are rescored exactly as the reference does (query-token
 *    order, float32 rounding per addition) and selected by (score desc, index asc).
 *
 * The steps are the methods of `MaxScoreSearch`, called in order below: `readWholeLists` (1), then
 * `readListsForCandidates` (2: `settleDenseSlots`, `scanListForCandidates`, `probeListForCandidates`),
 * `cutToExactThreshold` and `rescoreSurvivors` (3).
 *
 * Every bound is widened by ε = (m + 2)·2⁻²³ (m query tokens), more than the relative difference between a
 * float64 sum and its float32 accumulation in another order, and a document is dropped only when even its
 * widened bound is strictly below the narrowed θ, so it scores strictly below the final k-th score: the
 * result is identical to the exhaustive search (tests check this on random and real collections). Code
 * bounds are real impacts (the extremes of a code), summed like the partial sums, so the same ε covers
 * them; a regression test fails if the code step drops the widening. Under 'float64', ε = (m + 2)·2⁻⁵⁰.
 */
function searchMaxScore(index: Bm25Index, terms: readonly number[], k: number): Bm25Hits {
  const search = new MaxScoreSearch(index, terms, k);
  search.collectDenseSlots();
  const candidatesOnly = search.readWholeLists();
  search.takeTouchedAsCandidates();
  if (candidatesOnly) search.readListsForCandidates();
  search.cutToExactThreshold();
  return search.rescoreSurvivors();
}

/**
 * Query slots (unique terms) with a bit in the per-document match mask. Later slots use no dense column,
 * no per-slot room and no settling, and rescoring searches their lists for every survivor.
 */
const MASK_SLOTS = 32;
const LAST_BUCKET = HIST_BUCKETS - 1;
/** Longest list count ordered by insertion sort in `readOrderOf`. */
const INSERTION_SORT_MAX_LISTS = 64;

/** Slot's bit in the match mask (0 for untracked slots ≥ 32). */
function slotBit(slot: number): number {
  return slot < MASK_SLOTS ? 1 << slot : 0;
}

/** Cost of probing a list of `length` postings once per candidate (galloping), in sequential posting reads. */
function probeCost(length: number, candidates: number): number {
  return candidates * PROBE_COST_POSTINGS * (1 + Math.log2(1 + length / (candidates || 1)));
}

/** Histogram bucket of a partial sum (≥ 0; sums past the last bucket's edge go to the last bucket). */
function bucketOf(sum: number, scale: number): number {
  const x = sum * scale;
  return x >= LAST_BUCKET ? LAST_BUCKET : x | 0;
}

/**
 * List indices by decreasing bound, ties by index (so a term's layers keep their order). Queries have few
 * lists: an insertion sort, which spares a comparator closure per query; long queries use the library sort.
 */
function readOrderOf(listBound: readonly number[]): number[] {
  const count = listBound.length;
  if (count > INSERTION_SORT_MAX_LISTS) {
    return Array.from({ length: count }, (_, i) => i).sort((a, b) => listBound[b]! - listBound[a]! || a - b);
  }
  const order: number[] = [];
  for (let i = 0; i < count; i++) {
    const bound = listBound[i]!;
    order.push(i);
    let j = i;
    for (; j > 0 && listBound[order[j - 1]!]! < bound; j--) order[j] = order[j - 1]!;
    order[j] = i;
  }
  return order;
}

/**
 * One query's pruned search (see `searchMaxScore`): the plan (slots, lists, bounds) and the state the
 * phases hand on to each other. Hot loops copy the fields they use into locals and write back once.
 */
class MaxScoreSearch {
  private readonly index: Bm25Index;
  private readonly scratch: Scratch;
  private readonly k: number;
  private readonly float32: boolean;

  // The plan. A slot is a unique query term; a list is one layer of one slot's term.
  /** Term id per slot, in first-occurrence order. */
  private readonly slotTerm: number[];
  /** How often the slot's term occurs in the query: its impacts count that many times. */
  private readonly slotMult: number[];
  /** Slot of each query token, in query order. */
  private readonly tokenSlot: Int32Array;
  private readonly slotCount: number;
  /** Per list: layer, slot, bound U = multiplicity × the layer's largest impact. A slot's lists are adjacent. */
  private readonly listLayer: number[];
  private readonly listSlot: number[];
  private readonly listBound: number[];
  private readonly listCount: number;
  /** Lists by decreasing bound (a term's layers keep their order). */
  private readonly readOrder: number[];
  /** Bound of the slot's highest unread layer (0 once all are read or settled). */
  private readonly slotUnreadBound: Float64Array;
  private readonly slotLayersLeft: Int32Array;
  /** No partial sum exceeds Σ of the slots' top bounds. */
  private readonly sumCeiling: number;
  /** Bounds are multiplied by `widen` and thresholds by `narrow`: 1 ± ε, see `searchMaxScore`. */
  private readonly widen: number;
  private readonly narrow: number;
  /** Histogram buckets per unit of partial sum. */
  private readonly bucketScale: number;

  // The state handed from step to step.
  /** R: what a document can still gain from unread lists, Σ of `slotUnreadBound`. */
  private unreadBound: number;
  /** θ: a lower bound on the k-th best final score (never above it, by margins). */
  private threshold = 0;
  /** Position in `readOrder` of the next list to read. */
  private nextRank = 0;
  private touchedCount = 0;
  private candidateCount = 0;
  private candidatesSorted = false;
  /** Dense slots < 32 in slot order (`Scratch.denseSlot`...). */
  private denseSlotCount = 0;
  /** Bits of the dense slots whose every layer `settleDenseSlots` has resolved. */
  private settledSlots = 0;

  /** Plans the query: slots, lists, read order, bounds and margins. */
  constructor(index: Bm25Index, terms: readonly number[], k: number) {
    this.index = index;
    this.scratch = scratchFor(index);
    this.k = k;
    this.float32 = index.params.precision === 'float32';
    const { termLayers, layerMaxImpact } = index;
    const m = terms.length;

    const slotTerm: number[] = [];
    const slotMult: number[] = [];
    const tokenSlot = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const t = terms[i]!;
      let u = slotTerm.indexOf(t);
      if (u < 0) {
        u = slotTerm.length;
        slotTerm.push(t);
        slotMult.push(0);
      }
      slotMult[u]!++;
      tokenSlot[i] = u;
    }
    const slotCount = slotTerm.length;

    const listLayer: number[] = [];
    const listSlot: number[] = [];
    const listBound: number[] = [];
    for (let u = 0; u < slotCount; u++) {
      const t = slotTerm[u]!;
      for (let l = termLayers[t]!; l < termLayers[t + 1]!; l++) {
        listLayer.push(l);
        listSlot.push(u);
        listBound.push(slotMult[u]! * layerMaxImpact[l]!);
      }
    }
    const listCount = listLayer.length;
    const slotUnreadBound = new Float64Array(slotCount);
    for (let i = listCount - 1; i >= 0; i--) slotUnreadBound[listSlot[i]!] = listBound[i]!; // first layer of each slot
    const slotLayersLeft = new Int32Array(slotCount);
    for (let i = 0; i < listCount; i++) slotLayersLeft[listSlot[i]!]!++;

    this.slotTerm = slotTerm;
    this.slotMult = slotMult;
    this.tokenSlot = tokenSlot;
    this.slotCount = slotCount;
    this.listLayer = listLayer;
    this.listSlot = listSlot;
    this.listBound = listBound;
    this.listCount = listCount;
    this.readOrder = readOrderOf(listBound);
    this.slotUnreadBound = slotUnreadBound;
    this.slotLayersLeft = slotLayersLeft;
    this.unreadBound = this.sumOfUnreadBounds();
    this.sumCeiling = this.unreadBound;
    const eps = (m + 2) * (this.float32 ? 2 ** -23 : 2 ** -50);
    this.widen = 1 + eps;
    this.narrow = 1 - eps;
    this.bucketScale = HIST_BUCKETS / this.sumCeiling;
  }

  /** Σ of the slots' unread bounds, in slot order: a sum of non-negative terms (no cancellation). */
  private sumOfUnreadBounds(): number {
    const bounds = this.slotUnreadBound;
    let sum = 0;
    for (let u = 0; u < this.slotCount; u++) sum += bounds[u]!;
    return sum;
  }

  /** Marks a list read: its slot's next layer (if any) becomes the slot's bound, and R follows. */
  private markListRead(list: number): void {
    const slot = this.listSlot[list]!;
    this.slotUnreadBound[slot] = --this.slotLayersLeft[slot]! > 0 ? this.listBound[list + 1]! : 0;
    this.unreadBound = this.sumOfUnreadBounds();
  }

  /** θ only ever rises: every estimate is a lower bound on the k-th best final score. */
  private raiseThreshold(estimate: number): void {
    if (estimate > this.threshold) this.threshold = estimate;
  }

  /** True once no untouched document can reach the top k: R (widened) is below θ (narrowed). */
  private untouchedAreOut(): boolean {
    return this.unreadBound * this.widen < this.threshold * this.narrow;
  }

  /** Fills `Scratch.denseSlot`... with the query's dense slots (< 32), in slot order. */
  collectDenseSlots(): void {
    const { denseSlot, denseSlotColumn, denseSlotMult } = this.scratch;
    const denseColumn = this.index.denseColumn;
    let count = 0;
    for (let u = 0; u < this.slotCount && u < MASK_SLOTS; u++) {
      const column = denseColumn[this.slotTerm[u]!]!;
      if (column < 0) continue;
      denseSlot[count] = u;
      denseSlotColumn[count] = column;
      denseSlotMult[count] = this.slotMult[u]!;
      count++;
    }
    this.denseSlotCount = count;
  }

  /**
   * Phase 1: every posting of the lists in read order, until untouched documents cannot reach the top k
   * (returns true; the remaining lists are for candidates only) or every list is read (false). Guarantees:
   * every touched document's partial sum holds each read list it lies in, except lists that met it first
   * while it could no longer reach θ (see `accumulateList`); the histogram counts the touched partial sums.
   */
  readWholeLists(): boolean {
    const { listLayer, listSlot, listBound, slotUnreadBound, slotLayersLeft, readOrder, listCount, k, widen, narrow } = this;
    const layerOffsets = this.index.layerOffsets;
    this.scratch.histogram.fill(0);
    while (this.nextRank < listCount) {
      const list = readOrder[this.nextRank]!;
      const layer = listLayer[list]!;
      const slot = listSlot[list]!;
      const length = layerOffsets[layer + 1]! - layerOffsets[layer]!;
      if (this.denseSlotCount > 0 && this.touchedCount >= k && length > this.touchedCount * CODE_THETA_LIST_RATIO) {
        // Before a list longer than the touched set: θ from the touched documents' partial sums plus their
        // dense codes' lower bounds (k documents score at least that). Often enough to stop reading here.
        this.raiseThreshold(this.touchedCodeLowerBoundThreshold());
        if (this.untouchedAreOut()) return true;
      }
      // A document first met in this list can gain at most R' (R after this list) later. If even w + R'
      // stays below θ, it scores below k documents already touched and can never be returned: leave it
      // untouched. Should a later list meet it again, it restarts without this list's weight and bit; its
      // partial sum and rescoring are then underestimates, which keep it out all the same.
      const unreadAfter = this.unreadBound - slotUnreadBound[slot]! + (slotLayersLeft[slot]! > 1 ? listBound[list + 1]! : 0);
      const cut = this.threshold * narrow;
      this.accumulateList(list, unreadAfter, this.threshold > 0 && unreadAfter * widen < cut ? cut : -Infinity);
      this.markListRead(list);
      this.nextRank++;
      if (this.nextRank === listCount) break;
      if (this.touchedCount >= k) {
        this.raiseThreshold(histogramEdge(this.scratch.histogram, k, this.bucketScale));
        if (this.untouchedAreOut()) return true;
      }
    }
    return false;
  }

  /**
   * Adds one list's weighted impacts to the partial sums, sets the slot's bit, touches new documents and
   * keeps the histogram current. A new document whose weight plus `unreadAfter` (widened) stays below
   * `admitCut` is skipped (−∞: every document is admitted, and the loop skips the bound arithmetic).
   */
  private accumulateList(list: number, unreadAfter: number, admitCut: number): void {
    const { postingDocs, postingImpacts, layerOffsets } = this.index;
    const { partialSums, matchedSlots, touched, histogram } = this.scratch;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const scale = this.bucketScale;
    const widen = this.widen;
    const screenNew = admitCut !== -Infinity;
    let touchedCount = this.touchedCount;
    const end = layerOffsets[layer + 1]!;
    for (let j = layerOffsets[layer]!; j < end; j++) {
      const doc = postingDocs[j]!;
      const sum = partialSums[doc]!;
      const weight = mult * postingImpacts[j]!;
      if (sum === 0) {
        if (screenNew && (weight + unreadAfter) * widen < admitCut) continue;
        touched[touchedCount++] = doc;
      } else {
        histogram[bucketOf(sum, scale)]!--;
      }
      const newSum = sum + weight;
      partialSums[doc] = newSum;
      histogram[bucketOf(newSum, scale)]!++;
      matchedSlots[doc] = matchedSlots[doc]! | bit;
    }
    this.touchedCount = touchedCount;
  }

  /** The k-th largest of (partial sum + the unmatched dense slots' code lower bounds) over the touched set. */
  private touchedCodeLowerBoundThreshold(): number {
    const { partialSums, matchedSlots, touched, lowerBounds, denseSlot, denseSlotColumn, denseSlotMult } = this.scratch;
    const { denseCodes, denseCodeLow, docCount: n } = this.index;
    const denseCount = this.denseSlotCount;
    const touchedCount = this.touchedCount;
    for (let q = 0; q < touchedCount; q++) {
      const doc = touched[q]!;
      const matched = matchedSlots[doc]!;
      let low = partialSums[doc]!;
      for (let j = 0; j < denseCount; j++) {
        if ((matched & (1 << denseSlot[j]!)) !== 0) continue;
        const column = denseSlotColumn[j]!;
        low += denseSlotMult[j]! * denseCodeLow[column * DENSE_CODES + denseCodes[column * n + doc]!]!;
      }
      lowerBounds[q] = low;
    }
    return kthLargestBounded(lowerBounds, touchedCount, this.k, this.sumCeiling, this.scratch.work);
  }

  /** The touched documents become the candidates (in touch order). */
  takeTouchedAsCandidates(): void {
    this.scratch.candidates.set(this.scratch.touched.subarray(0, this.touchedCount));
    this.candidateCount = this.touchedCount;
    this.candidatesSorted = false;
  }

  /**
   * Phase 2: the remaining lists, for candidates only. Dense slots are settled together at their first
   * unread layer; every other list is scanned (long list, many candidates) or probed once per candidate.
   * Guarantees: afterwards every list is read or settled, and each candidate left has its exact float64
   * partial sum over all its terms (or underestimates that keep it out, as in phase 1); candidates that
   * cannot reach θ were dropped (partial sum −∞).
   */
  readListsForCandidates(): void {
    const { listLayer, listSlot, slotTerm, slotUnreadBound, readOrder, listCount } = this;
    const { layerOffsets, denseColumn } = this.index;
    const { denseSlot } = this.scratch;
    let denseUnsettled = false;
    for (let j = 0; j < this.denseSlotCount; j++) if (slotUnreadBound[denseSlot[j]!]! > 0) denseUnsettled = true;
    for (; this.nextRank < listCount; this.nextRank++) {
      const list = readOrder[this.nextRank]!;
      const slot = listSlot[list]!;
      if ((this.settledSlots & slotBit(slot)) !== 0) continue;
      // A dense column holds the term's impact whatever the layer: only usable when the mask can tell
      // whether the document already matched another layer of the term (slots < 32).
      const column = slot < MASK_SLOTS ? denseColumn[slotTerm[slot]!]! : -1;
      if (denseUnsettled && column >= 0) {
        denseUnsettled = false;
        this.settleDenseSlots();
        continue;
      }
      const layer = listLayer[list]!;
      const length = layerOffsets[layer + 1]! - layerOffsets[layer]!;
      const candidates = this.candidateCount;
      const probe = column >= 0 ? candidates <= 2 * length : probeCost(length, candidates) < length;
      if (probe) this.probeListForCandidates(list, column);
      else this.scanListForCandidates(list);
      this.markListRead(list);
    }
  }

  /**
   * Settles every dense slot with unread layers at once. Each candidate gets an upper bound from its codes,
   * slot by slot (a cut as soon as it falls below θ), and a lower bound; θ rises to the k-th lower bound,
   * and only candidates whose upper bound still reaches θ read exact impacts from the dense columns. A
   * candidate's codes are one byte per slot, from columns that stay in cache. Guarantees: those slots are
   * fully accounted for in every surviving candidate's partial sum, and R drops to the other slots' bounds.
   */
  private settleDenseSlots(): void {
    const settling = this.orderSlotsToSettle();
    const otherBound = this.scratch.settleRest[settling]!;
    this.boundCandidatesByCodes(settling, otherBound);
    if (this.candidateCount >= this.k) {
      this.raiseThreshold(kthLargestBounded(this.scratch.lowerBounds, this.candidateCount, this.k, this.sumCeiling, this.scratch.work));
    }
    this.addDenseImpactsToSurvivors(settling);
    const { settleSlot } = this.scratch;
    for (let j = 0; j < settling; j++) {
      const slot = settleSlot[j]!;
      this.settledSlots |= 1 << slot;
      this.slotUnreadBound[slot] = 0;
      this.slotLayersLeft[slot] = 0;
    }
    this.unreadBound = otherBound;
  }

  /**
   * Fills `Scratch.settle*` with the dense slots (< 32) that have unread layers, by decreasing bound (the
   * most selective codes are read first), and settleRest[j] = what slots j.. and all others can still add
   * (a sum of non-negative terms, no subtraction; settleRest[count] is the other slots' R). Returns the count.
   */
  private orderSlotsToSettle(): number {
    const { settleSlot, settleColumn, settleMult, settleBound, settleRest } = this.scratch;
    const { slotTerm, slotMult, slotUnreadBound } = this;
    const denseColumn = this.index.denseColumn;
    let count = 0;
    let otherBound = 0;
    for (let v = 0; v < this.slotCount; v++) {
      const column = v < MASK_SLOTS ? denseColumn[slotTerm[v]!]! : -1;
      const bound = slotUnreadBound[v]!;
      if (column < 0 || !(bound > 0)) {
        otherBound += bound;
        continue;
      }
      // insertion by decreasing bound (equal bounds keep slot order)
      let j = count++;
      for (; j > 0 && settleBound[j - 1]! < bound; j--) {
        settleSlot[j] = settleSlot[j - 1]!;
        settleColumn[j] = settleColumn[j - 1]!;
        settleMult[j] = settleMult[j - 1]!;
        settleBound[j] = settleBound[j - 1]!;
      }
      settleSlot[j] = v;
      settleColumn[j] = column;
      settleMult[j] = slotMult[v]!;
      settleBound[j] = bound;
    }
    settleRest[count] = otherBound;
    for (let j = count - 1; j >= 0; j--) settleRest[j] = settleRest[j + 1]! + settleBound[j]!;
    return count;
  }

  /**
   * First pass of a settle: drops (−∞) candidates whose code upper bound falls below θ and records, for the
   * rest in candidate order, lower bounds (partial sum + code lows) and upper bounds (+ code highs + the
   * other slots' R). Guarantees: no dropped candidate can reach θ; kept ones are unchanged.
   */
  private boundCandidatesByCodes(settling: number, otherBound: number): void {
    const { partialSums, matchedSlots, candidates, lowerBounds, upperBounds } = this.scratch;
    const { settleSlot, settleColumn, settleMult, settleRest } = this.scratch;
    const { denseCodes, denseCodeLow, denseCodeHigh, docCount: n } = this.index;
    const widen = this.widen;
    const cut = this.threshold * this.narrow;
    const everything = settleRest[0]!;
    const count = this.candidateCount;
    let kept = 0;
    for (let q = 0; q < count; q++) {
      const doc = candidates[q]!;
      const sum = partialSums[doc]!;
      if ((sum + everything) * widen < cut) {
        partialSums[doc] = -Infinity;
        continue;
      }
      const matched = matchedSlots[doc]!;
      let low = sum;
      let high = sum;
      let j = 0;
      for (; j < settling; j++) {
        if ((matched & (1 << settleSlot[j]!)) !== 0) continue;
        const code = settleColumn[j]! * DENSE_CODES + denseCodes[settleColumn[j]! * n + doc]!;
        low += settleMult[j]! * denseCodeLow[code]!;
        high += settleMult[j]! * denseCodeHigh[code]!;
        if ((high + settleRest[j + 1]!) * widen < cut) break;
      }
      if (j < settling) {
        partialSums[doc] = -Infinity;
        continue;
      }
      lowerBounds[kept] = low;
      upperBounds[kept] = high + otherBound;
      candidates[kept++] = doc;
    }
    this.candidateCount = kept;
  }

  /**
   * Second pass of a settle (θ raised in between): candidates whose upper bound still reaches θ add their
   * exact dense impacts. Guarantees: every kept candidate has each settled slot's weight and bit, once.
   */
  private addDenseImpactsToSurvivors(settling: number): void {
    const { partialSums, matchedSlots, candidates, upperBounds, settleSlot, settleColumn, settleMult } = this.scratch;
    const { denseImpacts, docCount: n } = this.index;
    const widen = this.widen;
    const cut = this.threshold * this.narrow;
    const count = this.candidateCount;
    let kept = 0;
    for (let q = 0; q < count; q++) {
      const doc = candidates[q]!;
      if (upperBounds[q]! * widen < cut) {
        partialSums[doc] = -Infinity;
        continue;
      }
      let sum = partialSums[doc]!;
      let matched = matchedSlots[doc]!;
      for (let j = 0; j < settling; j++) {
        const bit = 1 << settleSlot[j]!;
        if ((matched & bit) !== 0) continue;
        const impact = denseImpacts[settleColumn[j]! * n + doc]!;
        if (impact !== 0) {
          sum += settleMult[j]! * impact;
          matched |= bit;
        }
      }
      partialSums[doc] = sum;
      matchedSlots[doc] = matched;
      candidates[kept++] = doc;
    }
    this.candidateCount = kept;
  }

  /** Reads a whole list. Guarantees: every candidate in it has the slot's weight and bit, added once. */
  private scanListForCandidates(list: number): void {
    const { postingDocs, postingImpacts, layerOffsets } = this.index;
    const { partialSums, matchedSlots } = this.scratch;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const end = layerOffsets[layer + 1]!;
    for (let j = layerOffsets[layer]!; j < end; j++) {
      const doc = postingDocs[j]!;
      const sum = partialSums[doc]!;
      // Untouched (0) and pruned (−∞) documents are skipped, and so are those that already took this
      // term's weight from its dense column during an earlier layer's visit.
      if (sum > 0 && (matchedSlots[doc]! & bit) === 0) {
        partialSums[doc] = sum + mult * postingImpacts[j]!;
        matchedSlots[doc] = matchedSlots[doc]! | bit;
      }
    }
  }

  /**
   * Visits a list once per candidate: from the slot's dense column (`column` ≥ 0) or by galloping search
   * in candidate order. With more than k candidates, each is first pruned against θ and what its unread
   * slots can add, and the new sums are histogrammed to raise θ. Guarantees: every kept candidate in the
   * list has the slot's weight and bit, added once; dropped ones (−∞) cannot reach θ.
   */
  private probeListForCandidates(list: number, column: number): void {
    const { postingDocs, postingImpacts, layerOffsets, denseImpacts, docCount: n } = this.index;
    const { partialSums, matchedSlots, candidates, histogram } = this.scratch;
    const { slotUnreadBound, widen, k } = this;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const start = layerOffsets[layer]!;
    const end = layerOffsets[layer + 1]!;
    const count = this.candidateCount;
    const prune = count > k;
    const cut = this.threshold * this.narrow;
    const unread = this.unreadBound;
    const scale = this.bucketScale;
    let open = 0; // slots (< 32) with unread layers: a match there rules the rest of that slot out
    for (let v = 0; v < this.slotCount && v < MASK_SLOTS; v++) if (slotUnreadBound[v]! > 0) open |= 1 << v;
    if (prune) histogram.fill(0);
    if (column < 0 && !this.candidatesSorted) {
      candidates.subarray(0, count).sort();
      this.candidatesSorted = true;
    }
    const base = column * n;
    let pos = start;
    let kept = 0;
    for (let q = 0; q < count; q++) {
      const doc = candidates[q]!;
      let sum = partialSums[doc]!;
      const matched = matchedSlots[doc]!;
      if (prune) {
        // R first (cheap); the tighter room only when a matched slot still has unread layers.
        let room = unread;
        if ((sum + room) * widen >= cut) {
          let openMatched = matched & open;
          while (openMatched !== 0) {
            const b = 31 - Math.clz32(openMatched);
            room -= slotUnreadBound[b]!;
            openMatched ^= 1 << b;
          }
        }
        if ((sum + room) * widen < cut) {
          partialSums[doc] = -Infinity;
          continue;
        }
      }
      if ((matched & bit) === 0) {
        if (column >= 0) {
          const impact = denseImpacts[base + doc]!;
          if (impact !== 0) {
            sum += mult * impact;
            partialSums[doc] = sum;
            matchedSlots[doc] = matched | bit;
          }
        } else if (pos < end) {
          pos = gallop(postingDocs, pos, end, doc);
          if (pos < end && postingDocs[pos] === doc) {
            sum += mult * postingImpacts[pos]!;
            partialSums[doc] = sum;
            matchedSlots[doc] = matched | bit;
          }
        }
      }
      candidates[kept++] = doc;
      if (prune) histogram[bucketOf(sum, scale)]!++;
    }
    this.candidateCount = kept;
    if (prune && kept >= k) this.raiseThreshold(histogramEdge(histogram, k, scale));
  }

  /**
   * Final cut with R = 0 and an exact θ (the k-th largest partial sum), then candidates in corpus order.
   * Guarantees: every document of the true top k survives, and few others do.
   */
  cutToExactThreshold(): void {
    const { partialSums, candidates, work } = this.scratch;
    const count = this.candidateCount;
    if (count > this.k) {
      this.threshold = kthLargestGathered(partialSums, candidates, count, this.k, this.sumCeiling, work);
      const widen = this.widen;
      const cut = this.threshold * this.narrow;
      let kept = 0;
      for (let q = 0; q < count; q++) {
        const doc = candidates[q]!;
        if (partialSums[doc]! * widen >= cut) candidates[kept++] = doc;
      }
      this.candidateCount = kept;
    }
    if (!this.candidatesSorted) candidates.subarray(0, this.candidateCount).sort();
    this.candidatesSorted = true;
  }

  /**
   * Phase 3: exact rescoring of the survivors in query-token order (float32 rounding per addition under
   * 'float32', as the reference), selected by (score desc, index asc). Leaves the scratch zeroed.
   */
  rescoreSurvivors(): Bm25Hits {
    const replay = this.replaySurvivorImpacts();
    this.clearScratch();
    const { candidates, heap } = this.scratch;
    const { tokenSlot, slotCount, float32 } = this;
    const count = this.candidateCount;
    const m = tokenSlot.length;
    heap.reset(Math.min(this.k, count));
    for (let q = 0; q < count; q++) {
      const row = q * slotCount;
      let score = 0;
      for (let x = 0; x < m; x++) {
        const w = replay[row + tokenSlot[x]!]!;
        if (w !== 0) score = float32 ? Math.fround(score + w) : score + w;
      }
      heap.push(candidates[q]!, score);
    }
    return drainHits(this.index, heap);
  }

  /**
   * Guarantees: replay[q · slots + u] is survivor q's impact for slot u (0 where it lacks the term), read
   * from the slot's dense column or by galloping through each layer in survivor (corpus) order.
   */
  private replaySurvivorImpacts(): Float64Array {
    const s = this.scratch;
    const { postingDocs, postingImpacts, layerOffsets, denseColumn, denseImpacts, docCount: n } = this.index;
    const { listLayer, listSlot, slotTerm, slotCount, listCount } = this;
    const { candidates, matchedSlots } = s;
    const count = this.candidateCount;
    if (s.replay.length < count * slotCount) s.replay = new Float64Array(Math.max(count * slotCount, s.replay.length * 2));
    const replay = s.replay;
    replay.fill(0, 0, count * slotCount);
    for (let u = 0; u < slotCount; u++) {
      const column = denseColumn[slotTerm[u]!]!;
      if (column < 0) continue;
      const base = column * n;
      for (let q = 0; q < count; q++) replay[q * slotCount + u] = denseImpacts[base + candidates[q]!]!;
    }
    for (let i = 0; i < listCount; i++) {
      const slot = listSlot[i]!;
      if (denseColumn[slotTerm[slot]!]! >= 0) continue;
      const layer = listLayer[i]!;
      const tracked = slot < MASK_SLOTS;
      const bit = slotBit(slot);
      const end = layerOffsets[layer + 1]!;
      let pos = layerOffsets[layer]!;
      for (let q = 0; q < count && pos < end; q++) {
        const doc = candidates[q]!;
        if (tracked && (matchedSlots[doc]! & bit) === 0) continue; // no layer of this term holds doc
        pos = gallop(postingDocs, pos, end, doc);
        if (pos < end && postingDocs[pos] === doc) replay[q * slotCount + slot] = postingImpacts[pos]!;
      }
    }
    return replay;
  }

  /** Zeroes the partial sums and masks of every touched document (by fill when most of the corpus was touched). */
  private clearScratch(): void {
    const { partialSums, matchedSlots, touched } = this.scratch;
    const touchedCount = this.touchedCount;
    if (touchedCount > this.index.docCount / RESET_FILL_FRACTION) {
      partialSums.fill(0);
      matchedSlots.fill(0);
    } else {
      for (let i = 0; i < touchedCount; i++) {
        const doc = touched[i]!;
        partialSums[doc] = 0;
        matchedSlots[doc] = 0;
      }
    }
  }
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
