/**
 * Exact sparse retrieval for SPLADE vectors: an inverted index (term → documents, weights) and the full
 * dot product over every document sharing a term with the query; top-k with ties to the lower index.
 */
import { selectTopK, type TopK } from './topk.ts';

export interface SparseVectorLike {
  readonly indices: Uint32Array;
  readonly values: Float32Array;
}

export interface SparseIndex {
  readonly docs: number;
  /** postings of term t: docIds[offsets[t], offsets[t+1]) with weights at the same positions. */
  readonly offsets: Uint32Array;
  readonly docIds: Uint32Array;
  readonly weights: Float32Array;
}

export function buildSparseIndex(vectors: readonly SparseVectorLike[], vocabSize: number): SparseIndex {
  const counts = new Uint32Array(vocabSize + 1);
  for (const v of vectors) {
    for (const t of v.indices) {
      if (t >= vocabSize) throw new RangeError(`term id ${t} outside the vocabulary of ${vocabSize}`);
      counts[t + 1]!++;
    }
  }
  for (let t = 0; t < vocabSize; t++) counts[t + 1]! += counts[t]!;
  const offsets = counts.slice();
  const cursor = counts.slice(0, vocabSize);
  const docIds = new Uint32Array(offsets[vocabSize]!);
  const weights = new Float32Array(offsets[vocabSize]!);
  vectors.forEach((v, d) => {
    for (let i = 0; i < v.indices.length; i++) {
      const pos = cursor[v.indices[i]!]!++;
      docIds[pos] = d;
      weights[pos] = v.values[i]!;
    }
  });
  return { docs: vectors.length, offsets, docIds, weights };
}

/** Reusable per-index scratch (score accumulator + touched list), so a query allocates nothing of size N. */
const scratch = new WeakMap<SparseIndex, { acc: Float64Array; touched: Uint32Array; seen: Uint8Array }>();

export function sparseSearch(index: SparseIndex, query: SparseVectorLike, k: number): TopK<Float64Array> {
  let s = scratch.get(index);
  if (!s)
    scratch.set(index, (s = { acc: new Float64Array(index.docs), touched: new Uint32Array(index.docs), seen: new Uint8Array(index.docs) }));
  const { acc, touched, seen } = s;
  let n = 0;
  const vocab = index.offsets.length - 1;
  for (let i = 0; i < query.indices.length; i++) {
    const t = query.indices[i]!;
    if (t >= vocab) continue;
    const w = query.values[i]!;
    for (let p = index.offsets[t]!; p < index.offsets[t + 1]!; p++) {
      const d = index.docIds[p]!;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched[n++] = d;
      }
      acc[d]! += w * index.weights[p]!;
    }
  }
  // Every document sharing a query term is ranked (like BM25); the others score 0 and are never returned.
  const result = selectTopK(acc, k, touched, n);
  for (let i = 0; i < n; i++) {
    acc[touched[i]!] = 0;
    seen[touched[i]!] = 0;
  }
  return result;
}
