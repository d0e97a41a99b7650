/**
 * The encode worker's contract: the plain data its calls take and return (`createEncodeApi` in encode-api.ts
 * builds the calls; workers/encode.worker.ts exposes them). The page imports these through
 * src/app/bridge/encode-bridge.ts, never from workers/.
 */
import type { ReaderTask, ReaderTemplate } from '../core/answers/prompt.ts';
import type { AgreementReport, AgreementSample } from '../encoders/agreement.ts';
import type { BatchPlan } from '../encoders/batching.ts';
import type { DownloadPlan } from '../encoders/encoder.ts';
import type { EncodeProgress } from '../encoders/job.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { DeviceLimits } from '../encoders/device-plan.ts';
import type { EncoderConfig, EncoderDtype } from '../encoders/presets.ts';
import type { ReaderConfig } from '../encoders/reader-presets.ts';
import type { JudgeConfig } from '../encoders/judge-presets.ts';
import type { JudgeJobProgress, JudgmentRecord, PairTask } from '../encoders/judge-job.ts';

export type WorkerDevice = 'webgpu' | 'wasm';

/** A reader job: answer each task from its passages, cache first (src/store/answers.ts). */
export interface AnswerRequest {
  readonly reader: ReaderConfig;
  readonly load: WorkerLoadOptions;
  readonly template: ReaderTemplate;
  readonly k: number;
  readonly tasks: readonly ReaderTask[];
  /** IndexedDB database of the answers (default "fliplab-answers"). */
  readonly dbName?: string;
}

/** A judging job: a verdict for each (query, passage), cache first (src/store/verdicts.ts). */
export interface JudgeRequest {
  readonly judge: JudgeConfig;
  readonly load: WorkerLoadOptions;
  readonly tasks: readonly PairTask[];
  /** IndexedDB database of the verdicts (default "fliplab-verdicts"). */
  readonly dbName?: string;
  /** Take what the cache holds and load no judge for the rest (a layer restored on reopening). */
  readonly cacheOnly?: boolean;
}

export type JudgeProgress = JudgeJobProgress;

/** Verdicts as soon as they are known: from the cache, or just judged (and already stored). */
export type VerdictsCallback = (records: readonly JudgmentRecord[], from: 'cache' | 'judge') => unknown;

export interface JudgeResult {
  readonly cached: number;
  readonly judged: number;
  /** Device used and why it differs from the request; null when every verdict came from the cache. */
  readonly device: WorkerDevice | null;
  readonly reason: string | null;
  /** The judge's identity, as every verdict's key and the recipes name it. */
  readonly identity: string;
}

export interface AnswerProgress {
  readonly done: number;
  readonly total: number;
  readonly cached: number;
  readonly etaMs: number | null;
  readonly tokensPerSecond: number | null;
  readonly device: WorkerDevice | null;
}

/** One answer, as soon as it is known: from the cache, or just generated (and already stored). */
export type AnswerCallback = (queryId: string, prediction: string, from: 'cache' | 'reader') => unknown;

export interface AnswerResult {
  readonly cached: number;
  readonly generated: number;
  /** Questions the reader refused (a prompt past its context): not answered, the job went on. */
  readonly refused: readonly { readonly queryId: string; readonly reason: string }[];
  /** Device used and why it differs from the request; null when every answer came from the cache. */
  readonly device: WorkerDevice | null;
  readonly reason: string | null;
  /** How the reader's weights reached the runtime (as `WorkerLoadResult.externalWeights`); null when none loaded. */
  readonly externalWeights?: WorkerLoadResult['externalWeights'];
}

export interface CorpusRequest {
  readonly config: EncoderConfig;
  readonly load: WorkerLoadOptions;
  readonly texts: readonly string[];
  readonly role: 'query' | 'passage';
  readonly plan?: BatchPlan;
  /** IndexedDB database holding the embedding cache (default "fliplab"). */
  readonly dbName?: string;
  /** Send the vectors back in the result (default true); false when a `onVectors` callback consumes them. */
  readonly returnVectors?: boolean;
  /**
   * A sample of the collection (agreement.ts `agreementSample`): before encoding on any path but the reference
   * (WASM, fp32 weights), the worker encodes it on both and refuses a path that disagrees (DisagreementError).
   * The lab always sends one; without it the job runs unchecked (the NaN guard still holds).
   */
  readonly agreement?: AgreementSample;
  /**
   * Keep the job's dense vectors in the worker as the matrix of this id, for `denseSearch(id, …)`: each vector is
   * written into the search's blocks as it arrives (cache hits and encoded batches alike), so with
   * `returnVectors: false` the page never holds the matrix. It replaces the matrix kept before when the job
   * starts, and is kept only once the job has every vector.
   */
  readonly keepDense?: string;
}

/**
 * A corpus job's progress as the page receives it: the job's own (its phase, counts, device) and, once the
 * model is loaded, the load's result (device, why it differs from the one asked for, adapter), so the page
 * names the device that is encoding while it encodes.
 */
export interface CorpusProgress extends EncodeProgress {
  readonly load?: WorkerLoadResult;
}

/** Receives vectors as they become known: cache hits first, then each committed batch. */
export type VectorsCallback = (positions: readonly number[], vectors: readonly StoredVector[], from: 'cache' | 'encoder') => unknown;

export interface CorpusResult {
  readonly vectors: StoredVector[];
  /** Vectors found in the cache, and encoded by this call. */
  readonly cached: number;
  readonly encoded: number;
  /** The model the call loaded; null when every vector came from the cache and no model was loaded. */
  readonly load: WorkerLoadResult | null;
  /** Set when the device failed mid-job and the rest ran on another (the bridge never does that on its own). */
  readonly fallback?: string;
}

/** What ran a model: ONNX Runtime's and transformers.js's names and versions, and the wasm threads (null: Node's own choice). */
export interface RuntimeFacts {
  readonly onnxRuntime: string;
  readonly transformers: string;
  readonly threads: number | null;
}

export interface WorkerInitOptions {
  /** ORT wasm threads; needs a cross-origin-isolated page for more than 1. Default 1. */
  readonly numThreads?: number;
  /** Keep model files in Cache Storage between sessions (transformers.js `useBrowserCache`). Default true. */
  readonly useBrowserCache?: boolean;
  /** When set, fetches to any other origin (than these and the app's) are refused in this worker. */
  readonly allowOrigins?: readonly string[];
}

export interface WorkerLoadOptions {
  /** Requested device; WebGPU falls back to WASM when no adapter is granted. */
  readonly device: WorkerDevice;
  /**
   * With device 'webgpu': use WASM instead when the only adapter is a software renderer (Settings "Auto").
   * Settings "WebGPU" leaves it false: any adapter is used.
   */
  readonly avoidSoftwareAdapter?: boolean;
  readonly dtype?: EncoderDtype;
  readonly source: { readonly remoteHost?: string; readonly localModelPath?: string; readonly allowRemote?: boolean };
  /** Where the repo's ONNX weights sit (found by the download plan): `onnx/` (default) or its root. */
  readonly onnxFolder?: 'onnx' | '';
  /** The weights have an `.onnx_data` file (found by the download plan). */
  readonly externalData?: boolean;
}

/**
 * What a load tells the page before and while it downloads: the plan (files, sizes, what is cached) before
 * any weights are fetched — the page may hold the load there for a confirmation, or abort it — then bytes
 * per file.
 */
export type ModelEvent =
  /** `purpose: 'reference'`: the fp32 weights the agreement check loads on WASM before the path asked for. */
  | { readonly kind: 'plan'; readonly plan: DownloadPlan; readonly purpose?: 'reference' }
  | { readonly kind: 'download'; readonly file: string; readonly loaded: number; readonly total: number };
export type ModelCallback = (event: ModelEvent) => unknown;

export interface AdapterInfo {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly isFallbackAdapter: boolean;
}

export interface WorkerLoadResult {
  /** The device the model actually runs on. */
  readonly device: WorkerDevice;
  /** Why the device differs from the one requested; null when it does not. */
  readonly reason: string | null;
  readonly adapterInfo: AdapterInfo | null;
  /** The WebGPU buffer limits the model runs under (null on WASM): what sizes its batches. */
  readonly limits?: DeviceLimits | null;
  /**
   * The weights the runtime took as external data (no second whole copy of the model in the tab): how many
   * initializers and bytes, and whether they were read from the file kept in Cache Storage (or a picked
   * folder) as the runtime asked for them, so the file was never whole in the tab. Null when the load went
   * another way.
   */
  readonly externalWeights?: {
    readonly tensors: number;
    readonly bytes: number;
    /** Read from the stored file as the runtime asked for them: the file was never whole in the tab. */
    readonly lazy: boolean;
    /**
     * Why they were read into memory although the stored file was there (the runtime failed the lazy path's
     * self-test or could not load from it: lazy-contract.ts), or, when lazy, that the runtime's version is not
     * the one tested; absent otherwise.
     */
    readonly reason?: string;
  } | null;
  readonly dtype: EncoderDtype;
  readonly model: string;
  /** The runtime the model runs on (versions, threads): recorded in the run's recipe and the cache. */
  readonly runtime?: RuntimeFacts;
  /**
   * A corpus job's check of this path against the reference (WASM, fp32), when one ran: its numbers, passed.
   * Absent when none was asked for or the path is the reference itself.
   */
  readonly agreement?: AgreementReport;
  /** Why the check asked for could not run (the reference's fp32 weights are not there): the run is unchecked. */
  readonly agreementUnchecked?: string;
}

/** Row-major float32 rows, as `denseSearch` takes them. */
export interface DenseRows {
  data: Float32Array;
  rows: number;
  dim: number;
}

export interface DenseSearchResult {
  indices: Uint32Array[];
  scores: Float32Array[];
  device: WorkerDevice;
  reason: string | null;
}
