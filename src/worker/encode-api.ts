/**
 * The encode worker's API: models (encoders and readers) on ONNX Runtime behind comlink calls. Building it is
 * separate from exposing it, so workers/encode.worker.ts exposes one on its global scope (onnxruntime-web:
 * WebGPU or WASM) and tests expose one on a MessageChannel port in Node (onnxruntime-node). It picks WebGPU
 * only when an adapter is actually granted (else WASM, with the reason), loads models from a hub-compatible
 * host or from a local folder the page picked and registered (`registerLocalModel`: its bytes are served to
 * transformers.js from memory, see local-model.ts), runs the cache-first jobs (vectors: `encodeWithCache`;
 * answers: `answerWithCache`) against IndexedDB, and transfers vectors back instead of copying them.
 */
import { transfer } from 'comlink';
import { errorMessage } from '../core/error-message.ts';
import { answerWithCache } from '../encoders/answer-job.ts';
import { denseTopKOnnx, type OrtLike } from '../encoders/dense-onnx.ts';
import { loadEncoder, planModelDownload, planProblem, type EncodedBatch, type LoadedEncoder } from '../encoders/encoder.ts';
import {
  BATCH_PLAN_BY_DEVICE,
  DEFAULT_BATCH_PLAN,
  encodeWithCache,
  type EncodeProgress,
  type Exclusive,
  type LazyEncoder,
} from '../encoders/job.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncoderConfig } from '../encoders/presets.ts';
import { loadReader, type LoadedReader } from '../encoders/reader.ts';
import { AnswerStore } from '../store/answers.ts';
import { EmbeddingStore } from '../store/embeddings.ts';
import { ensureSpace, estimateVectorBytes } from '../store/quota.ts';
import type {
  AnswerCallback,
  AnswerProgress,
  AnswerRequest,
  AnswerResult,
  CorpusProgress,
  CorpusRequest,
  CorpusResult,
  DenseRows,
  DenseSearchResult,
  ModelCallback,
  VectorsCallback,
  WorkerDevice,
  WorkerInitOptions,
  WorkerLoadOptions,
  WorkerLoadResult,
} from '../lab/encode-types.ts';
import { asBlob, createLocalModelCache, LocalModelError, validateRegisteredModel, type LocalModelFile } from '../lab/local-model.ts';
import { findMissingFiles, inBrowserCache, isLocalLoad } from './model-files.ts';
import { configureRuntime, loseWebGpuDevice, pickDevice, pickSearchDevice, type OrtWasmPaths } from './onnx-runtime.ts';
import { problemOf, withFailure, withProblem } from '../lab/problems.ts';

export interface EncodeApiOptions {
  /** ONNX Runtime for `denseSearch`: onnxruntime-web in the worker (the module transformers.js uses), onnxruntime-node in Node. */
  readonly ort?: OrtLike;
  /** Where onnxruntime-web's wasm and its JS glue are served (the app's own origin); Node needs none. */
  readonly wasmPaths?: OrtWasmPaths;
  /**
   * What the contract's 'wasm' device is called by this runtime: 'wasm' for onnxruntime-web (default), 'cpu'
   * for onnxruntime-node, which has no wasm backend.
   */
  readonly cpuDevice?: 'wasm' | 'cpu';
}

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

/** The buffers behind the batch's vectors; each is owned by exactly one vector, so transferring is safe. */
function transferables(batch: EncodedBatch): ArrayBuffer[] {
  const views: ArrayBufferView[] = [...(batch.dense ?? []), ...(batch.sparse ?? []).flatMap((s) => [s.indices, s.values])];
  const buffers = new Set<ArrayBuffer>();
  for (const v of views) {
    if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) buffers.add(v.buffer);
  }
  return [...buffers];
}

const vectorBuffers = (vectors: readonly StoredVector[]): ArrayBuffer[] =>
  vectors.flatMap((v) =>
    transferables({ ...(v.dense ? { dense: [v.dense] } : {}), ...(v.sparse ? { sparse: [v.sparse] } : {}), tokens: [] }),
  );

/** The encode worker's calls, with their own models in memory (one encoder and one reader at a time). */
/**
 * One encoder per encoding in the whole browser: Web Locks are shared by every tab and worker of the origin
 * and let go when a tab closes or crashes. Undefined where the browser has none (each tab then encodes on
 * its own, as before).
 */
const webLocks: Exclusive | undefined =
  typeof navigator !== 'undefined' && 'locks' in navigator && navigator.locks !== undefined
    ? async (name, job, onWait, signal) => {
        const busy = Symbol('busy');
        const first = await navigator.locks.request(name, { ifAvailable: true }, (lock) => (lock === null ? busy : job()));
        if (first !== busy) return first as Awaited<ReturnType<typeof job>>;
        onWait();
        return navigator.locks.request(name, signal === undefined ? {} : { signal }, () => job());
      }
    : undefined;

export function createEncodeApi(options: EncodeApiOptions = {}) {
  const cpuDevice = options.cpuDevice ?? 'wasm';
  /** The runtime's name for a contract device. */
  const runtimeDevice = (device: WorkerDevice) => (device === 'wasm' ? cpuDevice : device);
  let initialized = false;
  let current: { key: string; encoder: LoadedEncoder; result: WorkerLoadResult } | undefined;
  let currentReader: { key: string; reader: LoadedReader } | undefined;
  /** Local model folders registered by the page (name → path → bytes); served through transformers.js's custom cache. */
  const localModels = new Map<string, Map<string, Blob>>();
  const localCache = createLocalModelCache(localModels);
  const sourceFor = (source: WorkerLoadOptions['source']) =>
    isLocalLoad(source) ? { ...source, allowRemote: false, customCache: localCache } : source;

  const api = {
    /** Optional: runtime settings. Calling `load` first applies the defaults. */
    async init(opts: WorkerInitOptions = {}): Promise<void> {
      configureRuntime(opts, options.wasmPaths);
      initialized = true;
    },

    /** Load (or keep, when identical) the encoder for `config`; reports the device actually used. */
    async load(config: EncoderConfig, load: WorkerLoadOptions, onDownload?: ModelCallback): Promise<WorkerLoadResult> {
      if (!initialized) await api.init();
      const key = loadKey(config, load);
      if (current?.key === key) return current.result;
      await api.dispose();

      const dtype = load.dtype ?? config.dtype;
      const { device, reason, adapterInfo } = await pickDevice(load, dtype);
      const local = isLocalLoad(load.source);
      if (local) {
        // Checked before loading: transformers.js would report a missing file obscurely (or not at all).
        const problem = await findMissingFiles(config, dtype, load.source, localModels);
        if (problem !== null) {
          const registered = localModels.has(config.model);
          throw withFailure(
            new LocalModelError(
              `Could not load ${config.model} (${dtype}, ${device}) from a picked folder: ` +
                `${problem.text}${registered ? '' : ' (register the folder first)'}`,
            ),
            registered ? 'model-load' : 'folder-not-registered',
          );
        }
      }
      let encoder: LoadedEncoder;
      try {
        const source = sourceFor(load.source);
        // A load without a plan (a calibration batch) finds the weights' folder itself.
        const plan = load.onnxFolder !== undefined || local ? null : await planModelDownload(config, dtype, source);
        const onnxFolder = load.onnxFolder ?? plan?.onnxFolder ?? undefined;
        const externalData = load.externalData ?? plan?.externalData ?? false;
        encoder = await loadEncoder(config, {
          device: runtimeDevice(device),
          dtype,
          source,
          ...(onnxFolder === undefined ? {} : { onnxFolder }),
          ...(externalData ? { externalData } : {}),
          ...(onDownload ? { onDownload: throttled(onDownload) } : {}),
        });
      } catch (error) {
        // The UI shows this message as is: say what was being loaded, on what, from where.
        const from = local ? 'a picked folder' : (load.source.remoteHost ?? load.source.localModelPath ?? 'the default hub');
        // transformers.js reports a missing repo as e.g. "Cannot read properties of undefined (reading
        // 'tokenizer_class')": find out which required files the host does not serve.
        const missing = await findMissingFiles(config, dtype, load.source, localModels);
        const detail = missing === null ? errorMessage(error) : `${missing.text} (${errorMessage(error)})`;
        throw withFailure(
          withProblem(
            new Error(`Could not load ${config.model}@${config.revision} (${dtype}, ${device}) from ${from}: ${detail}`, { cause: error }),
            missing?.problem ?? problemOf(error),
          ),
          'model-load',
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
          let loadOptions = request.load;
          if (current?.key !== loadKey(request.config, loadOptions) && !isLocalLoad(loadOptions.source)) {
            if (!initialized) await api.init();
            // Sizes before bytes: the page sees the files (and may ask the user) before any weights move.
            const plan = await planModelDownload(request.config, dtype, loadOptions.source, {
              isCached: (path) => inBrowserCache(request.config, loadOptions.source, path),
            });
            const problem = planProblem(plan);
            if (problem !== null)
              throw withFailure(withProblem(new Error(`Could not load ${request.config.model}: ${problem}`), 'not-found'), 'model-load');
            await onModel?.({ kind: 'plan', plan });
            if (plan.onnxFolder !== null) loadOptions = { ...loadOptions, onnxFolder: plan.onnxFolder, externalData: plan.externalData };
          }
          load = await api.load(request.config, loadOptions, onModel);
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
          ...(webLocks === undefined ? {} : { exclusive: webLocks }),
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
        return transfer({ vectors, cached, encoded, load }, vectorBuffers(vectors));
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
      /** The device the reader got, and why it differs from the request; stays null when no reader loads. */
      const used: { device: WorkerDevice | null; reason: string | null } = { device: null, reason: null };
      const load = async (): Promise<LoadedReader> => {
        if (!initialized) await api.init();
        const { device, reason } = await pickDevice(request.load, dtype);
        used.device = device;
        used.reason = reason;
        const readerKey = JSON.stringify([request.reader, dtype, device, request.load.source]);
        if (currentReader?.key !== readerKey) {
          await currentReader?.reader.dispose();
          currentReader = undefined;
          const reader = await loadReader(request.reader, {
            device: runtimeDevice(device),
            dtype,
            source: sourceFor(request.load.source),
            ...(onModel ? { onDownload: throttled(onModel) } : {}),
          });
          currentReader = { key: readerKey, reader };
        }
        return currentReader.reader;
      };
      const store = await AnswerStore.open(request.dbName);
      try {
        const result = await answerWithCache({ load }, store, request.tasks, {
          identity: { model: request.reader.model, revision: request.reader.revision, dtype },
          template: request.template,
          k: request.k,
          // Fire and forget, as for vectors: the page's callback is a comlink proxy.
          onProgress: (p) => void onProgress?.({ ...p, device: p.device === null ? null : used.device }),
          ...(onAnswer ? { onAnswer } : {}),
        });
        return { cached: result.cached, generated: result.generated, refused: result.refused, ...used };
      } finally {
        store.close();
      }
    },

    /** Test hook: destroy ONNX Runtime's WebGPU device, as a driver reset or GPU process crash would. */
    loseWebGpuDeviceForTesting(): Promise<boolean> {
      return loseWebGpuDevice();
    },

    /**
     * Exact dense top-k (MatMul + TopK on ONNX Runtime) on WebGPU when an adapter is granted, else WASM.
     * Rows are row-major float32; results come back transferred.
     */
    async denseSearch(docs: DenseRows, queries: DenseRows, k: number, device: WorkerDevice): Promise<DenseSearchResult> {
      if (!initialized) await api.init();
      if (options.ort === undefined) throw new Error('denseSearch needs an ONNX Runtime (createEncodeApi({ ort }))');
      const { device: used, reason } = await pickSearchDevice(device);
      const executionProviders = [runtimeDevice(used)];
      const hits = await denseTopKOnnx(options.ort, docs, queries, k, { sessionOptions: { executionProviders } });
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
  return api;
}

export type EncodeApi = ReturnType<typeof createEncodeApi>;
