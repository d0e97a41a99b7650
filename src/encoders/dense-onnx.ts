/**
 * Exact dense top-k on ONNX Runtime: MatMul + TopK (scripts/graphs/dense-topk.ts) over document blocks,
 * merged with the core's top-k heap. This is the fast path: onnxruntime-web's WASM (SIMD, threads when
 * the page is cross-origin isolated) or WebGPU in browsers, onnxruntime-node natively. ONNX TopK and our
 * merge both break ties by the lower index, so the ranking equals the JS path's whenever the float32 sums
 * agree (they differ only in accumulation order).
 */
import type { DenseMatrix } from '../core/retrieve/dense.ts';
import { TopKHeap, type TopK } from '../core/retrieve/topk.ts';

/** The serialized graph (341 bytes); a unit test checks it equals what the generator writes. */
export const DENSE_TOPK_ONNX_BASE64 =
  // eslint-disable-next-line max-len -- data, not prose
  'CAgSB2ZsaXBsYWIaATEyEWV4YWN0IGRlbnNlIHRvcC1rOq0CCikKB3F1ZXJpZXMKBmRvY3NfdBIGc2NvcmVzGgZzY29yZXMiBk1hdE11bApdCgZzY29yZXMKAWsSBnZhbHVlcxIHaW5kaWNlcxoEdG9wayIEVG9wSyoUCgRheGlzGP///////////wGgAQIqDgoHbGFyZ2VzdBgBoAECKg0KBnNvcnRlZBgBoAECEhJmbGlwbGFiX2RlbnNlX3RvcGtaHQoHcXVlcmllcxISChAIARIMCgMSAXEKBRIDZGltWhwKBmRvY3NfdBISChAIARIMCgUSA2RpbQoDEgFuWg8KAWsSCgoICAcSBAoCCAFiHgoGdmFsdWVzEhQKEggBEg4KAxIBcQoHEgVrX291dGIfCgdpbmRpY2VzEhQKEggHEg4KAxIBcQoHEgVrX291dEICEBE=';

/** Documents scored per ONNX call: bounds the [queries × block] score matrix the runtime allocates. */
export const DOC_BLOCK_ROWS = 65_536;
/** Queries per call. */
export const QUERY_BLOCK_ROWS = 256;

/** The slice of the onnxruntime API this needs; both onnxruntime-web and onnxruntime-node provide it. */
export interface OrtLike {
  InferenceSession: { create(model: Uint8Array, options?: object): Promise<OrtSession> };
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: readonly number[]) => unknown;
}
interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  release(): Promise<void>;
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Rows [d0, d0 + n) of a row-major matrix as a [dim, n] row-major block. */
function transposeRows(m: DenseMatrix, d0: number, n: number): Float32Array {
  const { dim, data } = m;
  const out = new Float32Array(dim * n);
  for (let r = 0; r < n; r++) {
    const src = (d0 + r) * dim;
    for (let j = 0; j < dim; j++) out[j * n + r] = data[src + j]!;
  }
  return out;
}

export interface OnnxDenseOptions {
  readonly sessionOptions?: object;
  readonly docBlockRows?: number;
  readonly queryBlockRows?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

export async function denseTopKOnnx(
  ort: OrtLike,
  docs: DenseMatrix,
  queries: DenseMatrix,
  k: number,
  options: OnnxDenseOptions = {},
): Promise<TopK<Float32Array>[]> {
  if (docs.dim !== queries.dim) throw new RangeError(`query dimension ${queries.dim} differs from document dimension ${docs.dim}`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const session = await ort.InferenceSession.create(decodeBase64(DENSE_TOPK_ONNX_BASE64), options.sessionOptions ?? {});
  const docBlock = options.docBlockRows ?? DOC_BLOCK_ROWS;
  const queryBlock = options.queryBlockRows ?? QUERY_BLOCK_ROWS;
  const dim = docs.dim;
  const kk = Math.min(k, docs.rows);
  const out: TopK<Float32Array>[] = [];
  const heaps: TopKHeap[] = [];
  const transposed: Float32Array[] = [];
  try {
    for (let q0 = 0; q0 < queries.rows; q0 += queryBlock) {
      const qn = Math.min(queryBlock, queries.rows - q0);
      const qTensor = new ort.Tensor('float32', queries.data.subarray(q0 * dim, (q0 + qn) * dim), [qn, dim]);
      for (let i = 0; i < qn; i++) (heaps[i] ??= new TopKHeap(kk)).reset(kk);
      for (let b = 0, d0 = 0; d0 < docs.rows; b++, d0 += docBlock) {
        options.signal?.throwIfAborted();
        const dn = Math.min(docBlock, docs.rows - d0);
        const kb = Math.min(kk, dn);
        const result = await session.run({
          queries: qTensor,
          docs_t: new ort.Tensor('float32', (transposed[b] ??= transposeRows(docs, d0, dn)), [dim, dn]),
          k: new ort.Tensor('int64', BigInt64Array.of(BigInt(kb)), [1]),
        });
        const values = result.values!.data as Float32Array;
        const indices = result.indices!.data as BigInt64Array;
        for (let i = 0; i < qn; i++) {
          const h = heaps[i]!;
          // + 0 turns a -0 (e.g. -1 × 0) into 0, as the JS path sums it.
          for (let j = 0; j < kb; j++) h.push(d0 + Number(indices[i * kb + j]!), values[i * kb + j]! + 0);
        }
      }
      for (let i = 0; i < qn; i++) out.push(heaps[i]!.drain((n) => new Float32Array(n)));
      options.onProgress?.(q0 + qn, queries.rows);
    }
  } finally {
    await session.release();
  }
  return out;
}
