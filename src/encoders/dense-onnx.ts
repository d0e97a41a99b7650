/**
 * Exact dense top-k on ONNX Runtime: MatMul + TopK (scripts/graphs/dense-topk.ts) over document blocks,
 * merged with the core's top-k heap. The documents are a `DenseIndex` (transposed blocks, made once and kept
 * across searches) and the session is made once for any number of searches. This is the fast path:
 * onnxruntime-web's WASM (SIMD, threads when the page is cross-origin isolated) or WebGPU in browsers,
 * onnxruntime-node natively. ONNX TopK and our
 * merge both break ties by the lower index, so the ranking equals the JS path's whenever the float32 sums
 * agree (they differ only in accumulation order).
 */
import type { DenseMatrix } from '../core/retrieve/dense.ts';
import { TopKHeap, type TopK } from '../core/retrieve/topk.ts';

/** The serialized graph (341 bytes); a unit test checks it equals what the generator writes. */
export const DENSE_TOPK_ONNX_BASE64 =
  // eslint-disable-next-line max-len -- data, not prose
  'CAgSB2ZsaXBsYWIaATEyEWV4YWN0IGRlbnNlIHRvcC1rOq0CCikKB3F1ZXJpZXMKBmRvY3NfdBIGc2NvcmVzGgZzY29yZXMiBk1hdE11bApdCgZzY29yZXMKAWsSBnZhbHVlcxIHaW5kaWNlcxoEdG9wayIEVG9wSyoUCgRheGlzGP///////////wGgAQIqDgoHbGFyZ2VzdBgBoAECKg0KBnNvcnRlZBgBoAECEhJmbGlwbGFiX2RlbnNlX3RvcGtaHQoHcXVlcmllcxISChAIARIMCgMSAXEKBRIDZGltWhwKBmRvY3NfdBISChAIARIMCgUSA2RpbQoDEgFuWg8KAWsSCgoICAcSBAoCCAFiHgoGdmFsdWVzEhQKEggBEg4KAxIBcQoHEgVrX291dGIfCgdpbmRpY2VzEhQKEggHEg4KAxIBcQoHEgVrX291dEICEBE=';

/**
 * Documents scored per ONNX call: bounds the [queries × block] score matrix the runtime allocates and the block
 * it copies into its heap for the call (64 MB at 1,024 dimensions; on WASM that heap never shrinks).
 */
export const DOC_BLOCK_ROWS = 16_384;
/** Queries per call. */
export const QUERY_BLOCK_ROWS = 256;

/** The slice of the onnxruntime API this needs; both onnxruntime-web and onnxruntime-node provide it. */
export interface OrtLike {
  InferenceSession: { create(model: Uint8Array, options?: object): Promise<OrtSession> };
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: readonly number[]) => unknown;
}
export interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  release(): Promise<void>;
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * A document matrix as the search reads it: [dim, n] blocks of at most `blockRows` documents (the transpose the
 * MatMul wants), filled once — from a whole row-major matrix (`from`), rows at a time as they arrive (`setRows`,
 * `setRow`: the caller never needs the row-major matrix whole, and rows may come in any order) — and kept for
 * every search after. Holds the vectors once, and knows which rows it has: a search over an index with a row
 * missing is refused (`checkComplete`), never answered with zeros.
 */
export class DenseIndex {
  readonly blocks: readonly Float32Array[];
  readonly #filled: Uint8Array;
  #filledRows = 0;

  constructor(
    readonly rows: number,
    readonly dim: number,
    readonly blockRows = DOC_BLOCK_ROWS,
  ) {
    if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(dim) || dim < 1) {
      throw new RangeError(`a dense index needs rows ≥ 0 and dim ≥ 1, got ${rows} × ${dim}`);
    }
    this.blocks = Array.from(
      { length: Math.ceil(rows / blockRows) },
      (_, b) => new Float32Array(dim * Math.min(blockRows, rows - b * blockRows)),
    );
    this.#filled = new Uint8Array(rows);
  }

  /** The index of a row-major matrix. */
  static from(docs: DenseMatrix, blockRows = DOC_BLOCK_ROWS): DenseIndex {
    const index = new DenseIndex(docs.rows, docs.dim, blockRows);
    index.setRows(0, docs.data.subarray(0, docs.rows * docs.dim));
    return index;
  }

  /** Rows given at least once. */
  get filledRows(): number {
    return this.#filledRows;
  }

  /** Refuses an index with a row never given (a job that stopped early, a piece that never arrived). */
  checkComplete(name = 'the dense index'): void {
    if (this.#filledRows !== this.rows) {
      throw new Error(`${name} holds ${this.#filledRows.toLocaleString('en-US')} of its ${this.rows.toLocaleString('en-US')} rows`);
    }
  }

  /** Rows [first, first + data.length/dim) of the matrix, row-major, written into their blocks transposed. */
  setRows(first: number, data: Float32Array): void {
    const { dim } = this;
    const count = data.length / dim;
    if (!Number.isInteger(count) || first < 0 || first + count > this.rows) {
      throw new RangeError(`rows ${first}…${first + count} (${data.length} values of ${dim}) do not fit a ${this.rows}-row index`);
    }
    for (let r = 0; r < count; r++) this.#write(first + r, data, r * dim);
  }

  /** One row (a vector of `dim` values) at `row`. */
  setRow(row: number, vector: Float32Array): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.rows) throw new RangeError(`row ${row} is outside a ${this.rows}-row index`);
    if (vector.length !== this.dim) throw new RangeError(`row ${row} has ${vector.length} values; the index is ${this.dim} wide`);
    this.#write(row, vector, 0);
  }

  /** Row `row` as it was given (read back out of its block). */
  row(row: number): Float32Array {
    if (!Number.isInteger(row) || row < 0 || row >= this.rows) throw new RangeError(`row ${row} is outside a ${this.rows}-row index`);
    const { dim, blockRows } = this;
    const block = this.blocks[Math.floor(row / blockRows)]!;
    const n = block.length / dim;
    const col = row % blockRows;
    const out = new Float32Array(dim);
    for (let j = 0; j < dim; j++) out[j] = block[j * n + col]!;
    return out;
  }

  #write(row: number, data: Float32Array, src: number): void {
    const { dim, blockRows } = this;
    const block = this.blocks[Math.floor(row / blockRows)]!;
    const n = block.length / dim;
    const col = row % blockRows;
    for (let j = 0; j < dim; j++) block[j * n + col] = data[src + j]!;
    if (this.#filled[row] === 0) {
      this.#filled[row] = 1;
      this.#filledRows++;
    }
  }
}

export interface OnnxDenseOptions {
  readonly sessionOptions?: object;
  readonly docBlockRows?: number;
  readonly queryBlockRows?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

/** A search's arguments, refused before any work: the queries' width and a positive whole k. */
function checkSearch(dim: number, queries: DenseMatrix, k: number): void {
  if (dim !== queries.dim) throw new RangeError(`query dimension ${queries.dim} differs from document dimension ${dim}`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

/** The MatMul + TopK session, to run any number of searches (release it when done). */
export function denseSession(ort: OrtLike, sessionOptions: object = {}): Promise<OrtSession> {
  return ort.InferenceSession.create(decodeBase64(DENSE_TOPK_ONNX_BASE64), sessionOptions);
}

/** Exact top-k of each query over an index, on a session made by `denseSession`. */
export async function searchDenseIndex(
  ort: OrtLike,
  session: OrtSession,
  index: DenseIndex,
  queries: DenseMatrix,
  k: number,
  options: Omit<OnnxDenseOptions, 'sessionOptions' | 'docBlockRows'> = {},
): Promise<TopK<Float32Array>[]> {
  checkSearch(index.dim, queries, k);
  const queryBlock = options.queryBlockRows ?? QUERY_BLOCK_ROWS;
  const dim = index.dim;
  const kk = Math.min(k, index.rows);
  const out: TopK<Float32Array>[] = [];
  const heaps: TopKHeap[] = [];
  for (let q0 = 0; q0 < queries.rows; q0 += queryBlock) {
    const qn = Math.min(queryBlock, queries.rows - q0);
    const qTensor = new ort.Tensor('float32', queries.data.subarray(q0 * dim, (q0 + qn) * dim), [qn, dim]);
    for (let i = 0; i < qn; i++) (heaps[i] ??= new TopKHeap(kk)).reset(kk);
    for (let b = 0, d0 = 0; b < index.blocks.length; b++, d0 += index.blockRows) {
      options.signal?.throwIfAborted();
      const block = index.blocks[b]!;
      const dn = block.length / dim;
      const kb = Math.min(kk, dn);
      const result = await session.run({
        queries: qTensor,
        docs_t: new ort.Tensor('float32', block, [dim, dn]),
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
  return out;
}

/** One search over a row-major matrix: index it, make a session, search, release (the CLI's path). */
export async function denseTopKOnnx(
  ort: OrtLike,
  docs: DenseMatrix,
  queries: DenseMatrix,
  k: number,
  options: OnnxDenseOptions = {},
): Promise<TopK<Float32Array>[]> {
  checkSearch(docs.dim, queries, k); // before the index is built for nothing
  const index = DenseIndex.from(docs, options.docBlockRows);
  const session = await denseSession(ort, options.sessionOptions);
  try {
    return await searchDenseIndex(ort, session, index, queries, k, options);
  } finally {
    await session.release();
  }
}
