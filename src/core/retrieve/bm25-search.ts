/**
 * What both BM25 searches share (the per-index scratch buffers, the query's term ids, hit lists, galloping
 * search), and the reference algorithm itself: `searchExhaustive`, every posting of every query token in
 * query order into a score buffer of the index's precision, then selection by (score desc, index asc).
 * The pruned search (`bm25-maxscore.ts`) must return exactly what this returns.
 */
import { tokenize } from '../text/tokenize.ts';
import type { Bm25Index } from './bm25-index.ts';
import { BM25_MAX_DEPTH } from './bm25-params.ts';
import { TopKHeap } from './topk.ts';

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

/**
 * Query slots (unique terms) with a bit in the pruned search's per-document match mask. Later slots use no
 * dense column, no per-slot room and no settling, and rescoring searches their lists for every survivor.
 */
export const MASK_SLOTS = 32;
/** Histogram resolution of the pruned search's θ estimates (θ is only ever under-estimated, by ≤ max/HIST_BUCKETS). */
export const HIST_BUCKETS = 1024;

/** Per-index reusable buffers, kept outside the index so the index stays plain data. */
export interface Scratch {
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

export function scratchFor(index: Bm25Index): Scratch {
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

export function checkDepth(depth: number): void {
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

export function emptyHits(index: Bm25Index): Bm25Hits {
  return { docs: new Uint32Array(0), scores: index.params.precision === 'float32' ? new Float32Array(0) : new Float64Array(0) };
}

export function drainHits(index: Bm25Index, heap: TopKHeap): Bm25Hits {
  const r = index.params.precision === 'float32' ? heap.drain((n) => new Float32Array(n)) : heap.drain((n) => new Float64Array(n));
  return { docs: r.indices, scores: r.scores };
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

/** The reference algorithm: every posting of every query token, in query order, into the score buffer. */
export function searchExhaustive(index: Bm25Index, terms: readonly number[], k: number): Bm25Hits {
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
