/**
 * Turn encoded passages and queries into a Run by exact search: the bridge between encoders and the
 * metrics/flips, shared by the CLI and the workers.
 */
import type { Corpus, QueryId, RankedList, Run } from '../types.ts';
import { denseMatrix, denseTopK, type DenseMatrix } from './dense.ts';
import type { TopK } from './topk.ts';
import { buildSparseIndex, sparseSearch, type SparseVectorLike } from './sparse.ts';

export interface VectorLike {
  readonly dense?: Float32Array;
  readonly sparse?: SparseVectorLike;
}

/** An exact dense top-k implementation (the JS one by default; the ONNX one where a runtime is at hand). */
export type DenseSearch = (docs: DenseMatrix, queries: DenseMatrix, k: number) => TopK<Float32Array>[] | Promise<TopK<Float32Array>[]>;

export interface VectorRunOptions {
  readonly depth: number;
  readonly denseSearch?: DenseSearch;
  readonly name: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

export async function vectorRun(
  corpus: Corpus,
  passages: readonly VectorLike[],
  queryIds: readonly QueryId[],
  queries: readonly VectorLike[],
  options: VectorRunOptions,
): Promise<Run> {
  if (passages.length !== corpus.ids.length) throw new RangeError(`${passages.length} passage vectors for ${corpus.ids.length} documents`);
  if (queries.length !== queryIds.length) throw new RangeError(`${queries.length} query vectors for ${queryIds.length} queries`);
  const byQuery = new Map<QueryId, RankedList>();
  const toList = (indices: Uint32Array, scores: ArrayLike<number>): RankedList => ({
    docs: Array.from(indices, (i) => corpus.ids[i]!),
    scores: Float64Array.from(scores),
  });
  if (passages.every((p) => p.dense)) {
    if (!queries.every((q) => q.dense)) throw new RangeError('dense passages need dense query vectors');
    const docs = denseMatrix(passages.map((p) => p.dense!));
    const qs = denseMatrix(
      queries.map((q) => q.dense!),
      docs.dim,
    );
    const hits = options.denseSearch
      ? await options.denseSearch(docs, qs, options.depth)
      : denseTopK(docs, qs, options.depth, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        });
    hits.forEach((h, i) => byQuery.set(queryIds[i]!, toList(h.indices, h.scores)));
  } else if (passages.every((p) => p.sparse)) {
    if (!queries.every((q) => q.sparse)) throw new RangeError('sparse passages need sparse query vectors');
    let vocab = 0;
    for (const v of [...passages, ...queries]) for (const t of v.sparse!.indices) vocab = Math.max(vocab, t + 1);
    const index = buildSparseIndex(
      passages.map((p) => p.sparse!),
      vocab,
    );
    queries.forEach((q, i) => {
      options.signal?.throwIfAborted();
      const h = sparseSearch(index, q.sparse!, options.depth);
      byQuery.set(queryIds[i]!, toList(h.indices, h.scores));
      options.onProgress?.(i + 1, queries.length);
    });
  } else {
    throw new RangeError('passage vectors mix dense and sparse');
  }
  return { name: options.name, byQuery };
}
