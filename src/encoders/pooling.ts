/**
 * Pooling of transformer outputs into retrieval vectors. Pure functions over flat row-major Float32Arrays
 * ([batch, sequence, width]) and the attention mask, so they run in workers, pages and Node alike and are
 * testable against values computed independently from a model's raw outputs.
 */

/** A SPLADE vector: vocabulary ids ascending, with their weights. */
export interface SparseVector {
  readonly indices: Uint32Array;
  readonly values: Float32Array;
}

/** One text's vector as the encoders produce it and the cache stores it: dense or sparse, with its token count. */
export interface StoredVector {
  readonly dense?: Float32Array;
  readonly sparse?: SparseVector;
  readonly tokens: number;
}

export interface Dims3 {
  readonly batch: number;
  readonly seq: number;
  readonly width: number;
}

/** Attention mask as numbers (transformers.js hands int64 tensors over as BigInt64Array). */
export type Mask = ArrayLike<number> | BigInt64Array;

const maskAt = (mask: Mask, i: number): boolean => Number(mask[i]) !== 0;

/** CLS pooling (BGE): the hidden state of the first token. */
export function clsPool(hidden: Float32Array, d: Dims3): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < d.batch; b++) out.push(hidden.slice(b * d.seq * d.width, b * d.seq * d.width + d.width));
  return out;
}

/** Mean pooling over the attention mask (E5): Σ_t m_t·h_t / Σ_t m_t, accumulated in float64. */
export function meanPool(hidden: Float32Array, mask: Mask, d: Dims3): Float32Array[] {
  const out: Float32Array[] = [];
  const acc = new Float64Array(d.width);
  for (let b = 0; b < d.batch; b++) {
    acc.fill(0);
    let count = 0;
    for (let t = 0; t < d.seq; t++) {
      if (!maskAt(mask, b * d.seq + t)) continue;
      count++;
      const base = (b * d.seq + t) * d.width;
      for (let j = 0; j < d.width; j++) acc[j]! += hidden[base + j]!;
    }
    const v = new Float32Array(d.width);
    for (let j = 0; j < d.width; j++) v[j] = count > 0 ? acc[j]! / count : 0;
    out.push(v);
  }
  return out;
}

/** In-place L2 normalization (a zero vector stays zero). */
export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let j = 0; j < v.length; j++) sum += v[j]! * v[j]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let j = 0; j < v.length; j++) v[j]! /= norm;
  return v;
}

/**
 * SPLADE pooling (Formal et al. 2021/2022): w_v = max over non-padding positions t of log(1 + ReLU(logit_{t,v})),
 * then keep the `topK` largest positive weights (ties: lower vocabulary id), or every positive weight when
 * topK is null. Returned with indices ascending. A NaN logit gives a NaN weight, kept (see `sparsify`).
 */
export function spladePool(logits: Float32Array, mask: Mask, d: Dims3, topK: number | null): SparseVector[] {
  const out: SparseVector[] = [];
  const w = new Float32Array(d.width);
  for (let b = 0; b < d.batch; b++) {
    w.fill(0);
    for (let t = 0; t < d.seq; t++) {
      if (!maskAt(mask, b * d.seq + t)) continue;
      const base = (b * d.seq + t) * d.width;
      for (let v = 0; v < d.width; v++) {
        const x = logits[base + v]!;
        // NaN is kept (and sticks), never dropped as "not positive": the job refuses a vector that holds one.
        if (x > 0 || x !== x) {
          const s = Math.log1p(x);
          if (s > w[v]! || s !== s) w[v] = s;
        }
      }
    }
    out.push(sparsify(w, topK));
  }
  return out;
}

/**
 * A pooled weight row as a SPLADE vector: the `topK` largest positive weights (ties: lower vocabulary id), or
 * every positive one when topK is null, indices ascending. What `spladePool` does after pooling, and what a
 * row pooled on the device (`onnx-pooling.ts`) goes through.
 */
export function sparsify(w: Float32Array, topK: number | null): SparseVector {
  const positive: number[] = [];
  // A NaN weight counts as the largest: kept, so the vector shows it (the corpus job refuses it), never dropped.
  for (let v = 0; v < w.length; v++) if (w[v]! > 0 || Number.isNaN(w[v]!)) positive.push(v);
  let kept = positive;
  if (topK !== null && positive.length > topK) {
    const key = (v: number) => (Number.isNaN(w[v]!) ? Infinity : w[v]!);
    kept = positive
      .sort((a, c) => key(c) - key(a) || a - c)
      .slice(0, topK)
      .sort((a, c) => a - c);
  }
  return { indices: Uint32Array.from(kept), values: Float32Array.from(kept, (v) => w[v]!) };
}
