/**
 * Partial top-k selection over typed score arrays, shared by BM25 and dense exact search.
 *
 * Order: score descending, then index ascending; equal scores go to the lower index (the RAGFlip
 * reference sorts touched documents by `(-score, index)`). NaN scores are never selected.
 *
 * A bounded heap of size k keeps the current worst kept candidate at the root; a candidate that does not
 * beat the root costs one comparison, so selecting k of n costs O(n + m·log k) for m replacements, with
 * no allocation proportional to n. Only the k results are sorted.
 */

export type ScoreArray = Float32Array | Float64Array;

/** A ranked selection: `indices[i]` has `scores[i]`; best first. */
export interface TopK<S extends ScoreArray = Float64Array> {
  readonly indices: Uint32Array;
  readonly scores: S;
}

/** True when (sa, ia) ranks strictly after (sb, ib). */
function worse(sa: number, ia: number, sb: number, ib: number): boolean {
  return sa < sb || (sa === sb && ia > ib);
}

/**
 * Reusable bounded heap: push candidates one by one, then `drain` them best first. Allocates its two
 * k-sized arrays once; `reset` reuses them for the next query.
 */
export class TopKHeap {
  private readonly idx: Uint32Array;
  private readonly val: Float64Array;
  private size = 0;
  private k: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`top-k capacity must be a positive integer, got ${capacity}`);
    this.idx = new Uint32Array(capacity);
    this.val = new Float64Array(capacity);
    this.k = capacity;
  }

  /** Empties the heap and keeps at most `k` (≤ capacity) candidates from now on. */
  reset(k = this.capacity): void {
    if (!Number.isInteger(k) || k < 0 || k > this.capacity) throw new RangeError(`k must be an integer in [0, ${this.capacity}], got ${k}`);
    this.size = 0;
    this.k = k;
  }

  get length(): number {
    return this.size;
  }

  /** The score a candidate must reach to enter once the heap is full (−Infinity before). */
  threshold(): number {
    return this.size < this.k ? -Infinity : this.val[0]!;
  }

  push(index: number, score: number): void {
    const k = this.k;
    if (score !== score) return; // NaN never ranks
    const val = this.val;
    const idx = this.idx;
    if (this.size < k) {
      // sift up
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const ps = val[parent]!;
        const pi = idx[parent]!;
        if (!worse(score, index, ps, pi)) break;
        val[i] = ps;
        idx[i] = pi;
        i = parent;
      }
      val[i] = score;
      idx[i] = index;
      return;
    }
    if (k === 0 || !worse(val[0]!, idx[0]!, score, index)) return;
    this.siftDownFromRoot(index, score);
  }

  private siftDownFromRoot(index: number, score: number): void {
    const val = this.val;
    const idx = this.idx;
    const n = this.size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      let cs = val[l]!;
      let ci = idx[l]!;
      const r = l + 1;
      if (r < n) {
        const rs = val[r]!;
        const ri = idx[r]!;
        if (worse(rs, ri, cs, ci)) {
          c = r;
          cs = rs;
          ci = ri;
        }
      }
      if (!worse(cs, ci, score, index)) break;
      val[i] = cs;
      idx[i] = ci;
      i = c;
    }
    val[i] = score;
    idx[i] = index;
  }

  /** The kept candidates, best first, into fresh arrays of the given score type; empties the heap. */
  drain<S extends ScoreArray>(make: (n: number) => S): TopK<S> {
    const n = this.size;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const val = this.val;
    const idx = this.idx;
    order.sort((a, b) => val[b]! - val[a]! || idx[a]! - idx[b]!);
    const indices = new Uint32Array(n);
    const scores = make(n);
    for (let i = 0; i < n; i++) {
      const o = order[i]!;
      indices[i] = idx[o]!;
      scores[i] = val[o]!;
    }
    this.size = 0;
    return { indices, scores };
  }
}

function makeLike<S extends ScoreArray>(scores: S): (n: number) => S {
  return (scores instanceof Float32Array ? (n: number) => new Float32Array(n) : (n: number) => new Float64Array(n)) as (n: number) => S;
}

/**
 * The k best of `scores` restricted to `candidates[0..count)` (all indices of `scores` when omitted),
 * ordered by score descending then index ascending. Candidates must be distinct. The returned scores
 * have the input's element type.
 */
export function selectTopK<S extends ScoreArray>(
  scores: S,
  k: number,
  candidates?: Uint32Array | readonly number[],
  count: number = candidates ? candidates.length : scores.length,
  heap?: TopKHeap,
): TopK<S> {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  const kk = Math.min(k, count);
  if (kk === 0) return { indices: new Uint32Array(0), scores: makeLike(scores)(0) };
  const h = heap && heap.capacity >= kk ? heap : new TopKHeap(kk);
  h.reset(kk);
  if (candidates) {
    for (let i = 0; i < count; i++) {
      const d = candidates[i]!;
      h.push(d, scores[d]!);
    }
  } else {
    for (let d = 0; d < count; d++) h.push(d, scores[d]!);
  }
  return h.drain(makeLike(scores));
}

/**
 * The k-th largest of `values[0..n)` (1-based k, 1 ≤ k ≤ n), by in-place quickselect: `values` is
 * reordered. Expected O(n). NaN must not occur.
 */
export function kthLargest(values: Float64Array, n: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`k must be in [1, ${n}], got ${k}`);
  // k-th largest = element at position k-1 in descending order.
  const target = k - 1;
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    // median of three as pivot, descending partition (Hoare)
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!;
    const b = values[mid]!;
    const c = values[hi]!;
    const pivot = a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}

/** Buckets of the histogram pass in `kthLargestGathered`. */
const SELECT_BUCKETS = 1024;
const selectHistogram = new Int32Array(SELECT_BUCKETS);

/**
 * The k-th largest of `values[list[i]]` for i in [0, n) (1-based k, 1 ≤ k ≤ n), where every such value
 * lies in [0, max]. One histogram pass finds the bucket holding the k-th largest; only values from that
 * bucket up are gathered into `work` and quickselected. Cheaper than quickselect over all n when n ≫ k,
 * and `values` is left untouched. Values below 0 (e.g. −∞ marks) are never the answer unless fewer than
 * k values are ≥ 0.
 */
export function kthLargestGathered(values: Float64Array, list: Uint32Array, n: number, k: number, max: number, work: Float64Array): number {
  if (k < 1 || k > n) throw new RangeError(`k must be in [1, ${n}], got ${k}`);
  if (!(max > 0) || n <= 4 * k) {
    for (let i = 0; i < n; i++) work[i] = values[list[i]!]!;
    return kthLargest(work, n, k);
  }
  const hist = selectHistogram;
  hist.fill(0);
  const last = SELECT_BUCKETS - 1;
  const scale = SELECT_BUCKETS / max;
  for (let i = 0; i < n; i++) {
    const v = values[list[i]!]! * scale;
    // v ≥ last also catches values a rounding step above max; NaN and negatives land in bucket 0.
    const b = v >= last ? last : v > 0 ? v | 0 : 0;
    hist[b]!++;
  }
  let b = last;
  let above = 0;
  for (; b > 0; b--) {
    if (above + hist[b]! >= k) break;
    above += hist[b]!;
  }
  if (b === 0) {
    for (let i = 0; i < n; i++) work[i] = values[list[i]!]!;
    return kthLargest(work, n, k);
  }
  let g = 0;
  for (let i = 0; i < n; i++) {
    const v = values[list[i]!]!;
    // The same bucket test as above, so exactly `above + hist[b]` values are gathered.
    const x = v * scale;
    const bx = x >= last ? last : x > 0 ? x | 0 : 0;
    if (bx >= b) work[g++] = v;
  }
  return kthLargest(work, g, k);
}

/**
 * The k-th largest of `values[0..n)` (1-based k, 1 ≤ k ≤ n), every value in [0, max]: `kthLargestGathered`
 * without the index list. `values` is left untouched; `work` (length ≥ n) is scratch.
 */
export function kthLargestBounded(values: Float64Array, n: number, k: number, max: number, work: Float64Array): number {
  if (k < 1 || k > n) throw new RangeError(`k must be in [1, ${n}], got ${k}`);
  if (!(max > 0) || n <= 4 * k) {
    work.set(values.subarray(0, n));
    return kthLargest(work, n, k);
  }
  const hist = selectHistogram;
  hist.fill(0);
  const last = SELECT_BUCKETS - 1;
  const scale = SELECT_BUCKETS / max;
  for (let i = 0; i < n; i++) {
    const v = values[i]! * scale;
    hist[v >= last ? last : v > 0 ? v | 0 : 0]!++;
  }
  let b = last;
  let above = 0;
  for (; b > 0; b--) {
    if (above + hist[b]! >= k) break;
    above += hist[b]!;
  }
  if (b === 0) {
    work.set(values.subarray(0, n));
    return kthLargest(work, n, k);
  }
  let g = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const x = v * scale;
    const bx = x >= last ? last : x > 0 ? x | 0 : 0;
    if (bx >= b) work[g++] = v;
  }
  return kthLargest(work, g, k);
}
