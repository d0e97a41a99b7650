/**
 * Exact dense retrieval: inner product of every query with every document (never a candidate subset),
 * top-k per query, ties to the lower corpus index. This is the portable JS path and the oracle the faster
 * paths (WASM, WebGPU) are tested against.
 *
 * Scores are summed in float64 and rounded once to float32 (the stored precision), so the result does not
 * depend on the blocking.
 */
import { TopKHeap, type TopK } from './topk.ts';

/** Row-major vectors: row i is data[i·dim, (i+1)·dim). */
export interface DenseMatrix {
  readonly data: Float32Array;
  readonly rows: number;
  readonly dim: number;
}

export function denseMatrix(rows: readonly Float32Array[], dim = rows[0]?.length ?? 0): DenseMatrix {
  const data = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => {
    if (r.length !== dim) throw new RangeError(`vector ${i} has ${r.length} dimensions, expected ${dim}`);
    data.set(r, i * dim);
  });
  return { data, rows: rows.length, dim };
}

/** Queries scored together per pass over the documents (each document row is loaded once per block). */
const QUERY_BLOCK = 4;

export interface DenseSearchOptions {
  /** Called after each query block with the number of queries done. */
  readonly onProgress?: (done: number, total: number) => void;
  readonly signal?: AbortSignal;
}

export function denseTopK(docs: DenseMatrix, queries: DenseMatrix, k: number, options: DenseSearchOptions = {}): TopK<Float32Array>[] {
  if (docs.dim !== queries.dim) throw new RangeError(`query dimension ${queries.dim} differs from document dimension ${docs.dim}`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const { dim } = docs;
  const kk = Math.min(k, docs.rows);
  const heaps = Array.from({ length: QUERY_BLOCK }, () => new TopKHeap(kk));
  const out: TopK<Float32Array>[] = [];
  const D = docs.data;
  const Qd = queries.data;
  for (let q0 = 0; q0 < queries.rows; q0 += QUERY_BLOCK) {
    options.signal?.throwIfAborted();
    const m = Math.min(QUERY_BLOCK, queries.rows - q0);
    heaps.forEach((h) => h.reset(kk));
    // Missing queries in a short last block reuse query 0's row; their heaps are never read.
    const a = q0 * dim;
    const b = (q0 + (m > 1 ? 1 : 0)) * dim;
    const c = (q0 + (m > 2 ? 2 : 0)) * dim;
    const e = (q0 + (m > 3 ? 3 : 0)) * dim;
    for (let d = 0; d < docs.rows; d++) {
      const off = d * dim;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < dim; j++) {
        const x = D[off + j]!;
        s0 += x * Qd[a + j]!;
        s1 += x * Qd[b + j]!;
        s2 += x * Qd[c + j]!;
        s3 += x * Qd[e + j]!;
      }
      heaps[0]!.push(d, Math.fround(s0));
      if (m > 1) heaps[1]!.push(d, Math.fround(s1));
      if (m > 2) heaps[2]!.push(d, Math.fround(s2));
      if (m > 3) heaps[3]!.push(d, Math.fround(s3));
    }
    for (let i = 0; i < m; i++) out.push(heaps[i]!.drain((n) => new Float32Array(n)));
    options.onProgress?.(q0 + m, queries.rows);
  }
  return out;
}
