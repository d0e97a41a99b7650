/**
 * The postings every BM25 scorer is searched through (the paper's, `bm25-index.ts`; Anserini's,
 * `bm25-anserini-index.ts`), as Lucene keeps one postings format under every `Similarity` and bm25s one impact
 * matrix for every variant: term → (document, impact) lists in column-compressed typed arrays, the impact
 * being what the posting adds to a score for a query weight of 1, computed by the scorer when it indexes
 * (bm25s-style precomputed impacts, bm25s `bm25s/__init__.py`). Impacts are float64 so that either scorer's
 * numbers pass through unrounded: the paper's weights are float64, Lucene's float scores are stored exactly.
 * The scorer numbers the documents so that "lower number first" is its tie rule.
 *
 * Two layouts speed up the pruned search (`bm25-maxscore.ts`) and never change a result:
 * - impact layers (Anh & Moffat's impact tiers): each long list is split into layers of decreasing impact,
 *   each in document order, each with its own bound; a document lies in exactly one layer of each of its terms;
 * - dense columns for the most common terms: every document's impact (0 where it lacks the term), and an
 *   8-bit code per document bracketing that impact between the least and largest real impact with the code.
 * Lookups (`gallop`, `findPosting`) serve the search and both scorers' explanations.
 */
import { BM25_MAX_DEPTH } from './bm25-params.ts';
import { kthLargestBounded } from './topk.ts';

/** Impact postings with their layers and dense columns: plain data (typed arrays and numbers). */
export interface Bm25Postings {
  /** N: documents, numbered 0..N − 1 by the scorer. */
  readonly docCount: number;
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
  /** Document numbers, ascending within each layer. */
  readonly postingDocs: Uint32Array;
  /** The posting's impact, float64 (see the module comment). */
  readonly postingImpacts: Float64Array;
  /**
   * Dense impact columns for the most common terms: column `denseColumn[t]` (−1: none) holds t's impact in
   * d at `denseImpacts[column · N + d]`, 0 where d lacks t. "What does t add to candidate d" becomes one load
   * instead of a search in a long list. 8·N bytes per column, ≤ 8 / `denseMinShare` bytes per posting of it.
   */
  readonly denseColumn: Int32Array;
  readonly denseImpacts: Float64Array;
  /**
   * The same dense columns as 8-bit impact codes, `denseCodes[column · N + d]` (a column is 1/8 the size of
   * its impact column, so it stays in cache while the candidates are bounded). Code 0: d lacks the term; code
   * q > 0 brackets the impact: `denseCodeLow[column · 256 + q]` ≤ impact ≤ `denseCodeHigh[column · 256 + q]`
   * (the smallest and largest real impact given that code). The pruned search bounds candidates with these
   * before it reads any exact impact.
   */
  readonly denseCodes: Uint8Array;
  readonly denseCodeLow: Float64Array;
  readonly denseCodeHigh: Float64Array;
}

/**
 * Layout knobs: they change speed and memory only, never results (tests set them low to exercise every code
 * path on small corpora).
 */
export interface Bm25LayoutOptions {
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

const LAYER_MIN_DF = 4096;
const LAYER_TOP_SHARES: readonly number[] = [1 / 8];
const DENSE_MIN_SHARE = 1 / 8;
const DENSE_MIN_DF = 256;
/** Codes per dense column in `denseCodes` (0 = absent, 1..255 = impact bins). */
export const DENSE_CODES = 256;

/** The layer shares, checked (a scorer checks them before its long pass, not after it). */
export function checkLayout(options: Bm25LayoutOptions): readonly number[] {
  const topShares = options.layerTopShares ?? LAYER_TOP_SHARES;
  if (topShares.some((x, i) => !(x > 0 && x < 1) || (i > 0 && !(x > topShares[i - 1]!)))) {
    throw new RangeError(`layerTopShares must increase strictly within (0, 1), got [${topShares.join(', ')}]`);
  }
  return topShares;
}

/**
 * Lays out term-major postings (term t's are [termOffsets[t], termOffsets[t + 1]), documents ascending) as
 * `Bm25Postings`: dense columns and codes for the common terms, then impact layers. `docs`, `impacts` and
 * `carried` (per-posting data the scorer keeps beside the impacts: Anserini's term frequencies) are reordered
 * in place, together.
 */
export function layOutPostings(
  docCount: number,
  termOffsets: Uint32Array,
  docs: Uint32Array,
  impacts: Float64Array,
  options: Bm25LayoutOptions = {},
  carried: Uint32Array | null = null,
): Bm25Postings {
  const topShares = checkLayout(options);
  const n = docCount;
  const termCount = termOffsets.length - 1;
  const denseColumn = new Int32Array(termCount).fill(-1);
  let columns = 0;
  const denseMin = Math.max(options.denseMinDf ?? DENSE_MIN_DF, Math.ceil(n * (options.denseMinShare ?? DENSE_MIN_SHARE)), 1);
  for (let t = 0; t < termCount; t++) if (termOffsets[t + 1]! - termOffsets[t]! >= denseMin) denseColumn[t] = columns++;
  const { denseImpacts, denseCodes, denseCodeLow, denseCodeHigh } = denseColumnsOf(termOffsets, docs, impacts, denseColumn, columns, n);
  const layers = splitLayers(termOffsets, docs, impacts, carried, {
    minDf: Math.max(2, options.layerMinDf ?? LAYER_MIN_DF),
    topShares,
    topMin: Math.max(1, options.layerTopMin ?? BM25_MAX_DEPTH),
  });
  return {
    docCount: n,
    ...layers,
    postingDocs: docs,
    postingImpacts: impacts,
    denseColumn,
    denseImpacts,
    denseCodes,
    denseCodeLow,
    denseCodeHigh,
  };
}

/** First position p in [lo, hi) with docs[p] ≥ target, or hi; exponential then binary search. */
export function gallop(docs: Uint32Array, lo: number, hi: number, target: number): number {
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

/** The position of document `doc`'s posting of term `term` (searching each of its layers), or −1. */
export function findPosting(postings: Bm25Postings, term: number, doc: number): number {
  const { termLayers, layerOffsets, postingDocs } = postings;
  for (let l = termLayers[term]!; l < termLayers[term + 1]!; l++) {
    const end = layerOffsets[l + 1]!;
    const at = gallop(postingDocs, layerOffsets[l]!, end, doc);
    if (at < end && postingDocs[at] === doc) return at;
  }
  return -1;
}

/**
 * The dense columns (see `Bm25Postings.denseImpacts`) and their codes (`denseCodes`): 255 equal-width bins
 * between the term's least and largest impact.
 */
function denseColumnsOf(
  termOffsets: Uint32Array,
  docs: Uint32Array,
  imp: Float64Array,
  denseColumn: Int32Array,
  columns: number,
  n: number,
): { denseImpacts: Float64Array; denseCodes: Uint8Array; denseCodeLow: Float64Array; denseCodeHigh: Float64Array } {
  const dense = {
    denseImpacts: new Float64Array(columns * n),
    denseCodes: new Uint8Array(columns * n),
    denseCodeLow: new Float64Array(columns * DENSE_CODES),
    denseCodeHigh: new Float64Array(columns * DENSE_CODES),
  };
  // One call per column: a function called many times is optimized early in the first build.
  for (let t = 0; t < denseColumn.length; t++) {
    const col = denseColumn[t]!;
    if (col >= 0) fillDenseColumn(dense, col, n, docs, imp, termOffsets[t]!, termOffsets[t + 1]!);
  }
  return dense;
}

function fillDenseColumn(
  dense: { denseImpacts: Float64Array; denseCodes: Uint8Array; denseCodeLow: Float64Array; denseCodeHigh: Float64Array },
  col: number,
  n: number,
  docs: Uint32Array,
  imp: Float64Array,
  start: number,
  end: number,
): void {
  const { denseImpacts, denseCodes, denseCodeLow, denseCodeHigh } = dense;
  const bins = DENSE_CODES - 1;
  const base = col * n;
  let min = Infinity;
  let max = 0;
  for (let i = start; i < end; i++) {
    const w = imp[i]!;
    denseImpacts[base + docs[i]!] = w;
    if (w < min) min = w;
    if (w > max) max = w;
  }
  const scale = max > min ? bins / (max - min) : 0;
  const tb = col * DENSE_CODES;
  denseCodeLow.fill(Infinity, tb + 1, tb + DENSE_CODES);
  for (let i = start; i < end; i++) {
    const w = imp[i]!;
    // Any code in [1, 255] is sound: the bounds below are the real extremes of each code. (x ≥ 0: | 0 floors.)
    const x = ((w - min) * scale) | 0;
    const q = x >= bins ? bins : x > 0 ? x + 1 : 1;
    denseCodes[base + docs[i]!] = q;
    if (w < denseCodeLow[tb + q]!) denseCodeLow[tb + q] = w;
    if (w > denseCodeHigh[tb + q]!) denseCodeHigh[tb + q] = w;
  }
  for (let q = 1; q < DENSE_CODES; q++) if (denseCodeLow[tb + q] === Infinity) denseCodeLow[tb + q] = 0;
}

/**
 * Impact layers: each long list is reordered in place (with its carried array) into layers of decreasing
 * impact, each in document order. The pruned search treats each layer as a list with its own bound, so a
 * query can take the best postings of a common term without reading the rest. Sums are unchanged: a
 * document lies in exactly one layer of each of its terms.
 */
function splitLayers(
  termOffsets: Uint32Array,
  docs: Uint32Array,
  imp: Float64Array,
  carried: Uint32Array | null,
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
  const out = {
    layerOffsets: new Uint32Array(termCount + split * (tiers - 1) + 1),
    layerMaxImpact: new Float64Array(termCount + split * (tiers - 1)),
  };
  const scratch: SplitScratch = {
    work: new Float64Array(longest),
    tmpDocs: new Uint32Array(tiers * longest),
    tmpImp: new Float64Array(tiers * longest),
    tmpCarried: new Uint32Array(carried === null ? 0 : tiers * longest),
    cuts: new Float64Array(tiers),
    counts: new Int32Array(tiers),
    maxes: new Float64Array(tiers),
    longest,
  };
  let l = 0;
  for (let t = 0; t < termCount; t++) {
    termLayers[t] = l;
    const start = termOffsets[t]!;
    const end = termOffsets[t + 1]!;
    if (end - start < cfg.minDf) {
      out.layerOffsets[l] = start;
      out.layerMaxImpact[l++] = largest(imp, start, end);
    } else {
      l = splitList(docs, imp, carried, start, end, cfg, scratch, out, l);
    }
  }
  termLayers[termCount] = l;
  out.layerOffsets[l] = termOffsets[termCount]!;
  return { termLayers, layerOffsets: out.layerOffsets.slice(0, l + 1), layerMaxImpact: out.layerMaxImpact.slice(0, l) };
}

interface SplitScratch {
  readonly work: Float64Array;
  /** Tier z's postings gather at [z · longest, z · longest + counts[z]) of these, then go back in tier order. */
  readonly tmpDocs: Uint32Array;
  readonly tmpImp: Float64Array;
  readonly tmpCarried: Uint32Array;
  readonly cuts: Float64Array;
  readonly counts: Int32Array;
  readonly maxes: Float64Array;
  readonly longest: number;
}

function largest(values: Float64Array, start: number, end: number): number {
  let max = 0;
  for (let i = start; i < end; i++) if (values[i]! > max) max = values[i]!;
  return max;
}

/** Splits the list [start, end) into its layers from layer number `l`; returns the next layer number. */
function splitList(
  docs: Uint32Array,
  imp: Float64Array,
  carried: Uint32Array | null,
  start: number,
  end: number,
  cfg: { topShares: readonly number[]; topMin: number },
  scratch: SplitScratch,
  out: { readonly layerOffsets: Uint32Array; readonly layerMaxImpact: Float64Array },
  l: number,
): number {
  const { work, tmpDocs, tmpImp, tmpCarried, cuts, counts, maxes, longest } = scratch;
  const tiers = cuts.length;
  const len = end - start;
  // Impacts ≥ cuts[z] go to a layer ≤ z; the last layer takes the rest.
  const values = imp.subarray(start, end);
  const max = largest(imp, start, end);
  for (let z = 0; z < tiers - 1; z++) {
    const want = Math.max(z === 0 ? cfg.topMin : 1, Math.ceil(len * cfg.topShares[z]!));
    cuts[z] = kthLargestBounded(values, len, Math.min(want, len), max, work);
  }
  cuts[tiers - 1] = -Infinity;
  counts.fill(0);
  maxes.fill(0);
  // A stable partition by layer in one pass; empty layers are dropped.
  if (carried === null) partition(docs, imp, start, end, scratch);
  else partitionCarrying(docs, imp, carried, start, end, scratch);
  let o = start;
  for (let z = 0; z < tiers; z++) {
    const count = counts[z]!;
    if (count === 0) continue;
    out.layerOffsets[l] = o;
    out.layerMaxImpact[l++] = maxes[z]!;
    const from = z * longest;
    docs.set(tmpDocs.subarray(from, from + count), o);
    imp.set(tmpImp.subarray(from, from + count), o);
    if (carried !== null) carried.set(tmpCarried.subarray(from, from + count), o);
    o += count;
  }
  return l;
}

/** Gathers each posting of [start, end) at the end of its tier's part of the scratch buffers. */
function partition(docs: Uint32Array, imp: Float64Array, start: number, end: number, scratch: SplitScratch): void {
  const { tmpDocs, tmpImp, cuts, counts, maxes, longest } = scratch;
  for (let i = start; i < end; i++) {
    const w = imp[i]!;
    let z = 0;
    while (w < cuts[z]!) z++;
    const at = z * longest + counts[z]!++;
    tmpDocs[at] = docs[i]!;
    tmpImp[at] = w;
    if (w > maxes[z]!) maxes[z] = w;
  }
}

/** `partition` with the carried array (its own copy of the loop, so the paper's never has the branch). */
function partitionCarrying(
  docs: Uint32Array,
  imp: Float64Array,
  carried: Uint32Array,
  start: number,
  end: number,
  scratch: SplitScratch,
): void {
  const { tmpDocs, tmpImp, tmpCarried, cuts, counts, maxes, longest } = scratch;
  for (let i = start; i < end; i++) {
    const w = imp[i]!;
    let z = 0;
    while (w < cuts[z]!) z++;
    const at = z * longest + counts[z]!++;
    tmpDocs[at] = docs[i]!;
    tmpImp[at] = w;
    tmpCarried[at] = carried[i]!;
    if (w > maxes[z]!) maxes[z] = w;
  }
}
