/**
 * Encode worker: a thin comlink adapter over `src/encoders/encoder.ts`, run as a dedicated module worker.
 * Picks WebGPU only when an adapter is actually granted (else WASM, with the reason), loads models from
 * a hub-compatible host or from a local folder the page picked and registered (`registerLocalModel`: its
 * bytes are served to transformers.js from memory, see src/lab/local-model.ts), and transfers vectors
 * back instead of copying them.
 *
 * The ONNX Runtime wasm binary and its JS glue are served from the app's own origin (emitted by Vite
 * through `?url`); transformers.js would otherwise point onnxruntime-web at a public CDN.
 */
import { expose, transfer } from 'comlink';
import { installErrorTransfer } from '../src/lab/errors.ts';
import { env } from '@huggingface/transformers';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortGlueUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import {
  loadEncoder,
  planModelDownload,
  planProblem,
  type DownloadPlan,
  type EncodedBatch,
  type LoadedEncoder,
} from '../src/encoders/encoder.ts';
import { BATCH_PLAN_BY_DEVICE, DEFAULT_BATCH_PLAN, encodeWithCache, type EncodeProgress, type LazyEncoder } from '../src/encoders/job.ts';
import type { BatchPlan } from '../src/encoders/batching.ts';
import { MODEL_CONFIG_FILES, MODEL_FILE_CACHE, type EncoderConfig, type EncoderDtype } from '../src/encoders/presets.ts';
import type { StoredVector } from '../src/encoders/pooling.ts';
import { EmbeddingStore } from '../src/store/embeddings.ts';
import { AnswerStore } from '../src/store/answers.ts';
import { answerKey, templateName, type ReaderTask, type ReaderTemplate } from '../src/core/answers/prompt.ts';
import { etaMs } from '../src/core/progress.ts';
import { loadReader, ReaderError, type LoadedReader } from '../src/encoders/reader.ts';
import type { ReaderConfig } from '../src/encoders/reader-presets.ts';
import { ensureSpace, estimateVectorBytes } from '../src/store/quota.ts';
// The same onnxruntime-web module transformers.js uses (Vite dedupes it), so one wasm and one env.
import * as ort from 'onnxruntime-web/webgpu';
import { denseTopKOnnx, type OrtLike } from '../src/encoders/dense-onnx.ts';
import { guardNetwork } from '../src/lab/network-guard.ts';
import { problemOf, withProblem, type Problem } from '../src/lab/problems.ts';
import { adapterName, isSoftwareAdapter } from '../src/encoders/adapter.ts';
import {
  LOCAL_MODEL_ROOT,
  LocalModelError,
  ONNX_FILE_BY_DTYPE,
  asBlob,
  createLocalModelCache,
  validateRegisteredModel,
  type LocalModelFile,
} from '../src/lab/local-model.ts';

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
  /** Set when the device failed mid-job and the rest ran on WASM. */
  readonly fallback?: string;
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
  | { readonly kind: 'plan'; readonly plan: DownloadPlan }
  | { readonly kind: 'download'; readonly file: string; readonly loaded: number; readonly total: number };
export type ModelCallback = (event: ModelEvent) => unknown;
type DownloadProgress = { readonly file: string; readonly loaded: number; readonly total: number };

/** Byte progress at most every 200 ms per file (and always its last chunk): one message per network chunk would flood the page. */
function throttled(send: ModelCallback): (p: DownloadProgress) => void {
  const last = new Map<string, number>();
  return (p) => {
    const now = performance.now();
    const finished = p.total > 0 && p.loaded >= p.total;
    if (!finished && now - (last.get(p.file) ?? -Infinity) < 200) return;
    last.set(p.file, now);
    void send({ kind: 'download', ...p });
  };
}

/** Loads of the same model the same way share a key (the weights' folder is found again, the same). */
const loadKey = (config: EncoderConfig, options: WorkerLoadOptions) =>
  JSON.stringify([config, { ...options, onnxFolder: undefined, externalData: undefined }]);

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
  readonly dtype: EncoderDtype;
  readonly model: string;
}

// Minimal WebGPU typings: TypeScript's DOM lib does not ship them.
interface GpuAdapterLike {
  readonly features?: { has(feature: string): boolean };
  readonly info?: Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & { isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

type Detection = { device: 'webgpu'; adapter: GpuAdapterLike } | { device: 'wasm'; reason: string };

async function detectWebGpu(): Promise<Detection> {
  const gpu = (navigator as Navigator & { gpu?: GpuLike }).gpu;
  if (gpu === undefined) return { device: 'wasm', reason: 'navigator.gpu missing (WebGPU not supported in this browser or context)' };
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (adapter === null) return { device: 'wasm', reason: 'no WebGPU adapter granted (requestAdapter() returned null)' };
    return { device: 'webgpu', adapter };
  } catch (error) {
    return { device: 'wasm', reason: `WebGPU adapter request failed: ${String(error)}` };
  }
}

function describeAdapter(adapter: GpuAdapterLike): AdapterInfo {
  const info = adapter.info ?? {};
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
  };
}

interface OrtWebEnv {
  wasm: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean };
  webgpu?: { adapter?: unknown };
}
// transformers.js exposes onnxruntime-web's own env objects here (a shallow copy: nested objects are shared).
const ortEnv = (): OrtWebEnv => (env.backends as unknown as { onnx: OrtWebEnv }).onnx;

function configureRuntime(opts: WorkerInitOptions): void {
  const ort = ortEnv();
  ort.wasm.wasmPaths = { wasm: new URL(ortWasmUrl, self.location.href).href, mjs: new URL(ortGlueUrl, self.location.href).href };
  ort.wasm.numThreads = opts.numThreads ?? 1;
  ort.wasm.proxy = false;
  env.useBrowserCache = opts.useBrowserCache ?? true;
  if (opts.allowOrigins !== undefined) guardNetwork(opts.allowOrigins);
  // transformers.js bound the original fetch at import time, which would bypass guardNetwork: route its
  // requests through the current global fetch. Paths under the local-model root never leave the worker:
  // a file a picked folder lacks is a 404 here, not a request to the app's server.
  env.fetch = (input: string | URL, init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input.href;
    const url = new URL(href, self.location.href);
    if (url.origin === self.location.origin && url.pathname.startsWith(LOCAL_MODEL_ROOT)) {
      return Promise.resolve(new Response(null, { status: 404, statusText: 'Not in the picked model folder' }));
    }
    return fetch(input, init);
  };
}

/** Local model folders registered by the page (name → path → bytes); served through transformers.js's custom cache. */
const localModels = new Map<string, Map<string, Blob>>();
const localCache = createLocalModelCache(localModels);

/** True when a load of `config.model` reads a registered local folder (the local-model root, no remote). */
function isLocalLoad(source: WorkerLoadOptions['source']): boolean {
  return source.localModelPath !== undefined && new URL(source.localModelPath, self.location.href).pathname === LOCAL_MODEL_ROOT;
}

/**
 * After a failed load only: which required files the model host does not serve, e.g.
 * "not found: config.json (HTTP 404), onnx/model.onnx (HTTP 404)", or that the host could not be reached
 * at all (offline, or no answer: then nothing is "not found"); null when they all answer.
 */
async function findMissingFiles(
  config: EncoderConfig,
  dtype: EncoderDtype,
  source: WorkerLoadOptions['source'],
): Promise<{ readonly text: string; readonly problem: Problem } | null> {
  const files = [...MODEL_CONFIG_FILES, ONNX_FILE_BY_DTYPE[dtype]];
  if (isLocalLoad(source)) {
    const have = localModels.get(config.model);
    if (have === undefined) return { text: `no local model folder registered as ${config.model}`, problem: 'not-found' };
    const missing = files.filter((f) => !have.has(f));
    return missing.length === 0 ? null : { text: `missing from the picked folder: ${missing.join(', ')}`, problem: 'not-found' };
  }
  let base: string;
  if (source.allowRemote !== false && source.remoteHost !== undefined) {
    const host = source.remoteHost.endsWith('/') ? source.remoteHost : `${source.remoteHost}/`;
    base = `${host}${config.model}/resolve/${encodeURIComponent(config.revision)}/`;
  } else if (source.localModelPath !== undefined) {
    base = `${source.localModelPath.endsWith('/') ? source.localModelPath : `${source.localModelPath}/`}${config.model}/`;
  } else {
    return null;
  }
  const answers = await Promise.all(
    files.map(async (file) => {
      try {
        const response = await fetch(new URL(file, new URL(base, self.location.href)), {
          headers: { Range: 'bytes=0-0' },
          cache: 'no-store',
        });
        await response.body?.cancel();
        return response.ok ? null : { file, status: response.status };
      } catch (error) {
        return { file, error };
      }
    }),
  );
  // A request that got no answer means the host is unreachable (or blocked, or the browser is offline):
  // that is what to say, not that the files are missing.
  const unanswered = answers.find((a) => a !== null && 'error' in a);
  if (unanswered && 'error' in unanswered) {
    const problem = problemOf(unanswered.error) ?? 'unreachable';
    const host = new URL(base, self.location.href).origin;
    const why = problem === 'offline' ? 'this browser is offline' : problem === 'blocked' ? String(unanswered.error) : 'no answer';
    return { text: `could not reach ${host} (${why})`, problem };
  }
  const missing = answers.filter((a): a is { file: string; status: number } => a !== null && 'status' in a);
  if (missing.length === 0) return null;
  const text = `not found: ${missing.map((m) => `${m.file} (HTTP ${m.status})`).join(', ')}`;
  return { text, problem: missing.every((m) => m.status === 404) ? 'not-found' : 'http' };
}

/** Is this model file in transformers.js's Cache Storage (keyed by its remote URL)? */
async function inBrowserCache(config: EncoderConfig, source: WorkerLoadOptions['source'], path: string): Promise<boolean> {
  if (typeof caches === 'undefined' || source.remoteHost === undefined) return false;
  const host = source.remoteHost.replace(/\/+$/, '');
  const url = `${host}/${config.model}/resolve/${encodeURIComponent(config.revision)}/${path}`;
  return (await (await caches.open(MODEL_FILE_CACHE)).match(url)) !== undefined;
}

let initialized = false;
let current: { key: string; encoder: LoadedEncoder; result: WorkerLoadResult } | undefined;
let currentReader: { key: string; reader: LoadedReader } | undefined;

/** The buffers behind the batch's vectors; each is owned by exactly one vector, so transferring is safe. */
function transferables(batch: EncodedBatch): ArrayBuffer[] {
  const views: ArrayBufferView[] = [...(batch.dense ?? []), ...(batch.sparse ?? []).flatMap((s) => [s.indices, s.values])];
  const buffers = new Set<ArrayBuffer>();
  for (const v of views) {
    if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) buffers.add(v.buffer);
  }
  return [...buffers];
}

/** The device a load gets: WebGPU only when an adapter is granted and fits the weights (else WASM, with the reason). */
async function pickDevice(
  options: Pick<WorkerLoadOptions, 'device' | 'avoidSoftwareAdapter'>,
  dtype: string,
): Promise<{ device: WorkerDevice; reason: string | null; adapterInfo: AdapterInfo | null }> {
  if (options.device !== 'webgpu') return { device: 'wasm', reason: null, adapterInfo: null };
  let found = await detectWebGpu();
  // fp16 weights (fp16, and q4f16's half-precision scales) need the adapter's shader-f16 feature (SwiftShader,
  // for one, lacks it).
  if (found.device === 'webgpu' && (dtype === 'fp16' || dtype === 'q4f16') && found.adapter.features?.has('shader-f16') === false) {
    found = { device: 'wasm', reason: `the WebGPU adapter lacks shader-f16, which ${dtype} weights need` };
  }
  if (found.device === 'webgpu' && options.avoidSoftwareAdapter === true && isSoftwareAdapter(describeAdapter(found.adapter))) {
    found = {
      device: 'wasm',
      reason:
        `the only WebGPU adapter is a software renderer (${adapterName(describeAdapter(found.adapter))}), slower than ` +
        'WASM; choose WebGPU in Settings to use it anyway',
    };
  }
  if (found.device !== 'webgpu') return { device: 'wasm', reason: found.reason, adapterInfo: null };
  const webgpu = ortEnv().webgpu;
  // Hand ORT the adapter we checked, so it cannot pick a different one (ORT fixes it at first use).
  if (webgpu && webgpu.adapter === undefined) webgpu.adapter = found.adapter;
  return { device: 'webgpu', reason: null, adapterInfo: describeAdapter(found.adapter) };
}

const api = {
  /** Optional: runtime settings. Calling `load` first applies the defaults. */
  async init(opts: WorkerInitOptions = {}): Promise<void> {
    configureRuntime(opts);
    initialized = true;
  },

  /** Load (or keep, when identical) the encoder for `config`; reports the device actually used. */
  async load(config: EncoderConfig, options: WorkerLoadOptions, onDownload?: ModelCallback): Promise<WorkerLoadResult> {
    if (!initialized) await api.init();
    const key = loadKey(config, options);
    if (current?.key === key) return current.result;
    await api.dispose();

    const dtype = options.dtype ?? config.dtype;
    const { device, reason, adapterInfo } = await pickDevice(options, dtype);
    const local = isLocalLoad(options.source);
    if (local) {
      // Checked before loading: transformers.js would report a missing file obscurely (or not at all).
      const problem = await findMissingFiles(config, dtype, options.source);
      if (problem !== null) {
        throw new LocalModelError(
          `Could not load ${config.model} (${dtype}, ${device}) from a picked folder: ` +
            `${problem.text}${localModels.has(config.model) ? '' : ' (register the folder first)'}`,
        );
      }
    }
    let encoder: LoadedEncoder;
    try {
      const source = local ? { ...options.source, allowRemote: false, customCache: localCache } : options.source;
      // A load without a plan (a calibration batch) finds the weights' folder itself.
      const plan = options.onnxFolder !== undefined || local ? null : await planModelDownload(config, dtype, source);
      const onnxFolder = options.onnxFolder ?? plan?.onnxFolder ?? undefined;
      const externalData = options.externalData ?? plan?.externalData ?? false;
      encoder = await loadEncoder(config, {
        device,
        dtype,
        source,
        ...(onnxFolder === undefined ? {} : { onnxFolder }),
        ...(externalData ? { externalData } : {}),
        ...(onDownload ? { onDownload: throttled(onDownload) } : {}),
      });
    } catch (error) {
      // The UI shows this message as is: say what was being loaded, on what, from where.
      const from = local ? 'a picked folder' : (options.source.remoteHost ?? options.source.localModelPath ?? 'the default hub');
      const message = error instanceof Error ? error.message : String(error);
      // transformers.js reports a missing repo as e.g. "Cannot read properties of undefined (reading
      // 'tokenizer_class')": find out which required files the host does not serve.
      const missing = await findMissingFiles(config, dtype, options.source);
      const detail = missing === null ? message : `${missing.text} (${message})`;
      throw withProblem(
        new Error(`Could not load ${config.model}@${config.revision} (${dtype}, ${device}) from ${from}: ${detail}`, { cause: error }),
        missing?.problem ?? problemOf(error),
      );
    }
    const result: WorkerLoadResult = { device, reason, adapterInfo, dtype, model: config.model };
    current = { key, encoder, result };
    return result;
  },

  /**
   * Make a picked model folder loadable as `name` ("local/<folder>"): later loads with
   * `source: { localModelPath: LOCAL_MODEL_ROOT, allowRemote: false }` read these bytes and nothing else.
   * Paths are relative to the model folder ("config.json", "onnx/model.onnx"). Blobs/Files arrive without a
   * copy; raw ArrayBuffers may be transferred. Registering a name again replaces its files.
   */
  async registerLocalModel(name: string, files: readonly LocalModelFile[]): Promise<void> {
    validateRegisteredModel(
      name,
      files.map((f) => f.path),
    );
    if (current !== undefined && current.result.model === name) await api.dispose();
    localModels.set(name, new Map(files.map((f) => [f.path, asBlob(f.bytes)])));
  },

  /** Forget a registered folder (frees its bytes once no load holds them). */
  async unregisterLocalModel(name: string): Promise<boolean> {
    if (current !== undefined && current.result.model === name) await api.dispose();
    return localModels.delete(name);
  },

  /** Names of the registered local model folders. */
  async localModelNames(): Promise<string[]> {
    return [...localModels.keys()];
  },

  /** Encode with the loaded encoder; vectors are transferred to the caller, not copied. */
  async encode(texts: readonly string[], role: 'query' | 'passage'): Promise<EncodedBatch> {
    if (current === undefined) throw new Error('encode() called before load()');
    const batch = await current.encoder.encode(texts, role);
    return transfer(batch, transferables(batch));
  },

  /**
   * Encode a whole collection cache first: vectors already in IndexedDB are reused, the rest are encoded in
   * length-grouped batches, each committed before the next (a reload loses at most the batch in flight).
   * Device failures are handled by the bridge, which continues on WASM in a fresh worker: a failed run
   * poisons transformers.js's session chain in this one.
   */
  async encodeCorpus(
    request: CorpusRequest,
    onProgress?: (p: CorpusProgress) => void,
    onVectors?: VectorsCallback,
    onModel?: ModelCallback,
  ): Promise<CorpusResult> {
    // The model loads only if the cache lacks something: a fully cached run is rebuilt with no model at all.
    let load: WorkerLoadResult | null = null;
    const dtype = request.load.dtype ?? request.config.dtype;
    const lazy: LazyEncoder = {
      config: request.config,
      dtype,
      loaded: () => current?.key === loadKey(request.config, request.load),
      load: async () => {
        let options = request.load;
        if (current?.key !== loadKey(request.config, options) && !isLocalLoad(options.source)) {
          if (!initialized) await api.init();
          // Sizes before bytes: the page sees the files (and may ask the user) before any weights move.
          const plan = await planModelDownload(request.config, dtype, options.source, {
            isCached: (path) => inBrowserCache(request.config, options.source, path),
          });
          const problem = planProblem(plan);
          if (problem !== null) throw withProblem(new Error(`Could not load ${request.config.model}: ${problem}`), 'not-found');
          await onModel?.({ kind: 'plan', plan });
          if (plan.onnxFolder !== null) options = { ...options, onnxFolder: plan.onnxFolder, externalData: plan.externalData };
        }
        load = await api.load(request.config, options, onModel);
        return current!.encoder;
      },
    };
    const store = await EmbeddingStore.open(request.dbName);
    try {
      // Sized for the widest preset (1024 dims): a job that cannot fit fails before encoding anything.
      const shape = request.config.kind === 'dense' ? { dense: 1024 } : { sparseNonZeros: request.config.sparseTopK ?? 256 };
      let cached = 0;
      const delivered: Promise<unknown>[] = [];
      const vectors = await encodeWithCache(lazy, store, request.texts, {
        role: request.role,
        // A caller that consumes vectors batch by batch does not need them held until the end.
        keep: request.returnVectors !== false || onVectors === undefined,
        // Only what is not cached yet needs room: a resumed job is checked for the rest.
        beforeEncoding: async (toEncode) => void (await ensureSpace(estimateVectorBytes(toEncode, shape))),
        // Planned for the device asked for (the batch size adapts if that device runs out of memory).
        plan: request.plan ?? BATCH_PLAN_BY_DEVICE[request.load.device] ?? DEFAULT_BATCH_PLAN,
        onProgress: (p: EncodeProgress) => {
          cached = p.cached;
          const loaded: WorkerLoadResult | null = load;
          // Fire and forget: the page's callback is a comlink proxy; awaiting it would stall encoding.
          void onProgress?.(loaded !== null && p.phase === 'encoding' ? { ...p, load: loaded } : p);
        },
        ...(onVectors === undefined
          ? {}
          : {
              // Not awaited here either, but collected: the result must not overtake the last vectors (comlink
              // answers on another port than the callback's, so ordering across them is not guaranteed).
              onVectors: (positions: readonly number[], vectors: readonly StoredVector[], from: 'cache' | 'encoder') => {
                delivered.push(Promise.resolve(onVectors(positions, vectors, from)));
              },
            }),
      });
      await Promise.all(delivered);
      const encoded = request.texts.length - cached;
      if (request.returnVectors === false) return { vectors: [], cached, encoded, load };
      const result: CorpusResult = { vectors, cached, encoded, load };
      return transfer(
        result,
        vectors.flatMap((v) =>
          transferables({ ...(v.dense ? { dense: [v.dense] } : {}), ...(v.sparse ? { sparse: [v.sparse] } : {}), tokens: [] }),
        ),
      );
    } finally {
      store.close();
    }
  },

  /**
   * Answer questions with a reader, cache first: answers already in IndexedDB are delivered at once and the
   * reader (loaded only if something is missing) generates the rest, one question at a time, each answer
   * stored before the next question starts. Cancelling is the bridge's: it ends this worker.
   */
  async answerQuestions(
    request: AnswerRequest,
    onProgress?: (p: AnswerProgress) => void,
    onAnswer?: AnswerCallback,
    onModel?: ModelCallback,
  ): Promise<AnswerResult> {
    const dtype = request.load.dtype ?? request.reader.dtype;
    const template = templateName(request.template);
    const keyOf = (t: ReaderTask) =>
      answerKey({
        model: request.reader.model,
        revision: request.reader.revision,
        dtype,
        template,
        k: request.k,
        passageIds: t.passageIds,
        question: t.question,
      });
    const store = await AnswerStore.open(request.dbName);
    try {
      const keys = request.tasks.map(keyOf);
      const stored = await store.getMany(keys);
      const delivered: Promise<unknown>[] = [];
      const todo: { task: ReaderTask; key: string }[] = [];
      request.tasks.forEach((task, i) => {
        const hit = stored.get(keys[i]!);
        if (hit) delivered.push(Promise.resolve(onAnswer?.(task.queryId, hit.prediction, 'cache')));
        else todo.push({ task, key: keys[i]! });
      });
      const total = request.tasks.length;
      const cached = total - todo.length;
      void onProgress?.({ done: cached, total, cached, etaMs: todo.length === 0 ? 0 : null, tokensPerSecond: null, device: null });
      if (todo.length === 0) {
        await Promise.all(delivered);
        return { cached, generated: 0, refused: [], device: null, reason: null };
      }
      if (!initialized) await api.init();
      const { device, reason } = await pickDevice(request.load, dtype);
      const local = isLocalLoad(request.load.source);
      const source = local ? { ...request.load.source, allowRemote: false, customCache: localCache } : request.load.source;
      const readerKey = JSON.stringify([request.reader, dtype, device, request.load.source]);
      if (currentReader?.key !== readerKey) {
        await currentReader?.reader.dispose();
        currentReader = undefined;
        const reader = await loadReader(request.reader, { device, dtype, source, ...(onModel ? { onDownload: throttled(onModel) } : {}) });
        currentReader = { key: readerKey, reader };
      }
      const reader: LoadedReader = currentReader.reader;
      const started = performance.now();
      let tokens = 0;
      const refused: { queryId: string; reason: string }[] = [];
      for (let i = 0; i < todo.length; i++) {
        const { task, key } = todo[i]!;
        let answer;
        try {
          answer = await reader.answer(task.messages, request.template);
        } catch (error) {
          if (!(error instanceof ReaderError)) throw error;
          refused.push({ queryId: task.queryId, reason: error.message });
          continue;
        }
        tokens += answer.newTokens;
        await store.put({
          key,
          queryId: task.queryId,
          prediction: answer.text,
          model: request.reader.model,
          revision: request.reader.revision,
          dtype,
          template,
          k: request.k,
          passageIds: task.passageIds,
          question: task.question,
          device,
          newTokens: answer.newTokens,
          createdAt: Date.now(),
        });
        delivered.push(Promise.resolve(onAnswer?.(task.queryId, answer.text, 'reader')));
        const elapsed = performance.now() - started;
        void onProgress?.({
          done: cached + i + 1,
          total,
          cached,
          etaMs: etaMs(i + 1, todo.length, elapsed),
          tokensPerSecond: elapsed > 0 ? tokens / (elapsed / 1000) : null,
          device,
        });
      }
      await Promise.all(delivered);
      return { cached, generated: todo.length - refused.length, refused, device, reason };
    } finally {
      store.close();
    }
  },

  /** Test hook: destroy ONNX Runtime's WebGPU device, as a driver reset or GPU process crash would. */
  async loseWebGpuDeviceForTesting(): Promise<boolean> {
    const webgpu = ortEnv().webgpu as { device?: Promise<{ destroy(): void }> } | undefined;
    const device = await webgpu?.device;
    if (!device) return false;
    device.destroy();
    return true;
  },

  /**
   * Exact dense top-k (MatMul + TopK on ONNX Runtime) on WebGPU when an adapter is granted, else WASM.
   * Rows are row-major float32; results come back transferred.
   */
  async denseSearch(
    docs: { data: Float32Array; rows: number; dim: number },
    queries: { data: Float32Array; rows: number; dim: number },
    k: number,
    device: WorkerDevice,
  ): Promise<{ indices: Uint32Array[]; scores: Float32Array[]; device: WorkerDevice; reason: string | null }> {
    if (!initialized) await api.init();
    let used: WorkerDevice = 'wasm';
    let reason: string | null = null;
    if (device === 'webgpu') {
      const found = await detectWebGpu();
      if (found.device === 'webgpu') {
        used = 'webgpu';
        const webgpu = ortEnv().webgpu;
        if (webgpu && webgpu.adapter === undefined) webgpu.adapter = found.adapter;
      } else reason = found.reason;
    }
    const hits = await denseTopKOnnx(ort as unknown as OrtLike, docs, queries, k, { sessionOptions: { executionProviders: [used] } });
    const result = { indices: hits.map((h) => h.indices), scores: hits.map((h) => h.scores), device: used, reason };
    return transfer(
      result,
      hits.flatMap((h) => [h.indices.buffer as ArrayBuffer, h.scores.buffer as ArrayBuffer]),
    );
  },

  async dispose(): Promise<void> {
    const loaded = current;
    current = undefined;
    await loaded?.encoder.dispose();
    const reader = currentReader;
    currentReader = undefined;
    await reader?.reader.dispose();
  },
};

export type EncodeApi = typeof api;

installErrorTransfer();
expose(api);
