/**
 * The encoder configurations the e2e test compares between Node and the browser: the paper's presets
 * pointed at the generated tiny models (shared by the test page and the Node side of the test).
 */
import { PRESETS, type EncoderConfig, type EncoderDtype } from '../../../src/encoders/presets.ts';

export type TestKind = 'cls' | 'mean' | 'splade';

export function testConfig(kind: TestKind, model: string): EncoderConfig {
  switch (kind) {
    case 'cls':
      return { ...PRESETS['bge-large'], id: `e2e-cls-${model}`, model };
    case 'mean':
      return { ...PRESETS['e5-large'], id: `e2e-mean-${model}`, model };
    case 'splade':
      return { ...PRESETS.splade, id: `e2e-splade-${model}`, model, sparseTopK: 16 };
  }
}

/** Plain-array results (what crosses from the page to the test through playwright). */
export interface PlainEncodeResult {
  readonly device: 'webgpu' | 'wasm';
  readonly reason: string | null;
  /** The weights actually loaded (onnx/model.onnx for fp32, onnx/model_fp16.onnx for fp16). */
  readonly dtype: EncoderDtype;
  readonly adapterInfo: unknown;
  readonly dense?: number[][];
  readonly sparse?: { indices: number[]; values: number[] }[];
  readonly tokens: number[];
  /** How the dense vectors arrived in the page (constructor names), to show they are typed arrays. */
  readonly denseTypes?: string[];
  /** SPLADE's weights were pooled in the model's session (one row per text came back, not its logits). */
  readonly pooledOnDevice: boolean;
  /** Initializers the worker handed the runtime as external data (0: the model went in as one buffer). */
  readonly externalWeights: number;
  /** The runtime read those weights from the stored file as it needed them (lazy-weights.ts). */
  readonly lazyWeights: boolean;
  readonly workerStarts: number;
  readonly elapsedMs: number;
}

export interface PlainError {
  readonly error: { readonly name: string; readonly message: string };
  readonly elapsedMs: number;
  readonly workerStarts: number;
}

/** A whole-collection job through the worker's IndexedDB cache (test page's encodeCorpus). */
export interface PlainCorpusResult {
  /** Vectors found in IndexedDB, and encoded by this call. */
  readonly cached: number;
  readonly encoded: number;
  /** 'cache': every vector came from IndexedDB and no model was loaded. */
  readonly device: 'webgpu' | 'wasm' | 'cache';
  readonly fallback: string | null;
  readonly dense: number[][];
}

/** What an embedding database holds, read straight from IndexedDB. */
export interface StoredVectorsInfo {
  /** Records in the `vectors` store. */
  readonly vectors: number;
  /** Per encoding: the vector count and bytes the store accounted for. */
  readonly encodings: readonly { readonly count: number; readonly bytes: number }[];
}
