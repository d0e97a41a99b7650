/**
 * The models an encode worker holds: one encoder and one reader at a time (a load of something else frees the
 * last), the ONNX Runtime settings they run under, and the model folders the page picked and registered
 * (name → path → bytes, served to transformers.js from memory through its custom cache: local-model.ts).
 */
import { errorMessage } from '../core/error-message.ts';
import { loadEncoder, planModelDownload, type LoadedEncoder, type ModelFileCacheLike, type SessionFactory } from '../encoders/encoder.ts';
import { checkLazyContract, type LazyContractCheck, type SelfTestRuntime } from '../encoders/lazy-contract.ts';
import {
  fileReaderSync,
  hubFileOf,
  lazyWeightsCache,
  LazyWeightsRegistry,
  type LazyWeightsCache,
  type ReadSync,
} from '../encoders/lazy-weights.ts';
import { MODEL_FILE_CACHE } from '../encoders/presets.ts';
import type { EncoderConfig } from '../encoders/presets.ts';
import { loadReader, type LoadedReader } from '../encoders/reader.ts';
import { loadJudge, type LoadedJudge } from '../encoders/judge.ts';
import type { JudgeConfig, JudgeDtype } from '../encoders/judge-presets.ts';
import type { ReaderConfig } from '../encoders/reader-presets.ts';
import type { ModelCallback, WorkerDevice, WorkerInitOptions, WorkerLoadOptions, WorkerLoadResult } from '../lab/encode-types.ts';
import {
  asBlob,
  createLocalModelCache,
  LocalModelError,
  resolveLocalKey,
  validateRegisteredModel,
  type LocalModelFile,
} from '../lab/local-model.ts';
import { problemOf, withFailure, withProblem } from '../lab/problems.ts';
import { findMissingFiles, isLocalLoad } from './model-files.ts';
import { configureRuntime, pickDevice, type OrtWasmPaths } from './onnx-runtime.ts';
import { runtimeFacts } from './runtime-facts.ts';

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

export class WorkerModels {
  readonly #cpuDevice: 'wasm' | 'cpu';
  readonly #wasmPaths: OrtWasmPaths | undefined;
  readonly #ort: (SessionFactory & SelfTestRuntime) | undefined;
  readonly #readSync: ReadSync | null;
  /** The lazy path's self-test (lazy-contract.ts), run at its first use and kept. */
  #lazyContract: Promise<LazyContractCheck> | undefined;
  /** Loads (encoders and readers) one at a time: transformers.js's env, which each load sets, is the worker's. */
  #loads: Promise<unknown> = Promise.resolve();
  #initialized = false;
  #useBrowserCache = true;
  #encoder: { key: string; encoder: LoadedEncoder; result: WorkerLoadResult } | undefined;
  #reader: { key: string; reader: LoadedReader } | undefined;
  #judge: { key: string; judge: LoadedJudge } | undefined;
  readonly #local = new Map<string, Map<string, Blob>>();
  readonly #localCache = createLocalModelCache(this.#local);

  /**
   * `cpuDevice`: what the contract's 'wasm' is called by this runtime ('cpu' for onnxruntime-node). `ort`: the
   * ONNX Runtime module transformers.js runs on, so SPLADE models pool in their session (encoder.ts).
   * `readSync`: how this thread reads a Blob synchronously, for the lazy path (default: `FileReaderSync`,
   * which only a worker has; tests give their own).
   */
  constructor(
    options: {
      readonly cpuDevice?: 'wasm' | 'cpu';
      readonly wasmPaths?: OrtWasmPaths;
      readonly ort?: SessionFactory & SelfTestRuntime;
      readonly readSync?: ReadSync | null;
    } = {},
  ) {
    this.#cpuDevice = options.cpuDevice ?? 'wasm';
    this.#wasmPaths = options.wasmPaths;
    this.#ort = options.ort;
    this.#readSync = options.readSync === undefined ? fileReaderSync() : options.readSync;
  }

  /** `load` once every load asked for before it has settled. */
  #oneAtATime<T>(load: () => Promise<T>): Promise<T> {
    const turn = this.#loads.then(load);
    this.#loads = turn.catch(() => {});
    return turn;
  }

  /** Runtime settings; a load before any call applies the defaults. */
  init(options: WorkerInitOptions = {}): void {
    configureRuntime(options, this.#wasmPaths);
    this.#useBrowserCache = options.useBrowserCache ?? true;
    this.#initialized = true;
  }

  ready(): void {
    if (!this.#initialized) this.init();
  }

  /** The runtime's name for a contract device. */
  runtimeDevice(device: WorkerDevice): 'wasm' | 'cpu' | 'webgpu' {
    return device === 'wasm' ? this.#cpuDevice : device;
  }

  /** A source as transformers.js takes it: a registered folder is read from memory and nothing else. */
  sourceFor(source: WorkerLoadOptions['source']) {
    return isLocalLoad(source) ? { ...source, allowRemote: false, customCache: this.#localCache } : source;
  }

  /** The loaded encoder, when it is `config` loaded this way. */
  encoderFor(config: EncoderConfig, load: WorkerLoadOptions): LoadedEncoder | undefined {
    return this.#encoder?.key === loadKey(config, load) ? this.#encoder.encoder : undefined;
  }

  /** The loaded encoder, whatever it is. */
  get encoder(): LoadedEncoder | undefined {
    return this.#encoder?.encoder;
  }

  /** Load (or keep, when identical) the encoder for `config`; reports the device actually used. */
  loadEncoder(config: EncoderConfig, load: WorkerLoadOptions, onDownload?: ModelCallback): Promise<WorkerLoadResult> {
    return this.#oneAtATime(() => this.#loadEncoder(config, load, onDownload));
  }

  async #loadEncoder(config: EncoderConfig, load: WorkerLoadOptions, onDownload?: ModelCallback): Promise<WorkerLoadResult> {
    this.ready();
    const key = loadKey(config, load);
    if (this.#encoder?.key === key) return this.#encoder.result;
    await this.dispose();

    const dtype = load.dtype ?? config.dtype;
    const { device, reason, adapterInfo, limits } = await pickDevice(load, dtype);
    const local = isLocalLoad(load.source);
    if (local) {
      // Checked before loading: transformers.js would report a missing file obscurely (or not at all).
      const problem = await this.missingFiles(config, dtype, load.source);
      if (problem !== null) {
        const registered = this.#local.has(config.model);
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
    let lazyNotes: { declined: string | null; untested: string | null };
    try {
      const source = this.sourceFor(load.source);
      // A load without a plan (a calibration batch) finds the weights' folder itself.
      const plan = load.onnxFolder !== undefined || local ? null : await planModelDownload(config, dtype, source);
      const onnxFolder = load.onnxFolder ?? plan?.onnxFolder ?? undefined;
      const externalData = load.externalData ?? plan?.externalData ?? false;
      const { notes, ...sessionOptions } = await this.#sessionOptions(load.source, onDownload);
      lazyNotes = notes;
      encoder = await loadEncoder(config, {
        device: this.runtimeDevice(device),
        dtype,
        ...sessionOptions,
        ...(onnxFolder === undefined ? {} : { onnxFolder }),
        ...(externalData ? { externalData } : {}),
      });
    } catch (error) {
      // The UI shows this message as is: say what was being loaded, on what, from where.
      const from = local ? 'a picked folder' : (load.source.remoteHost ?? load.source.localModelPath ?? 'the default hub');
      // transformers.js reports a missing repo as e.g. "Cannot read properties of undefined (reading
      // 'tokenizer_class')": find out which required files the host does not serve.
      const missing = await this.missingFiles(config, dtype, load.source);
      const detail = missing === null ? errorMessage(error) : `${missing.text} (${errorMessage(error)})`;
      // `device` rides along (errors keep their fields across workers): the page offers WASM after a WebGPU load failed.
      throw withFailure(
        withProblem(
          Object.assign(
            new Error(`Could not load ${config.model}@${config.revision} (${dtype}, ${device}) from ${from}: ${detail}`, { cause: error }),
            { device },
          ),
          missing?.problem ?? problemOf(error),
        ),
        'model-load',
      );
    }
    const prepared = encoder.prepared ?? null;
    // why the weights were read into memory although the stored file was there, or what is unusual about the lazy read
    const why = prepared?.lazyFallback ?? lazyNotes.declined ?? (prepared?.lazy ? lazyNotes.untested : null);
    const externalWeights =
      prepared === null
        ? null
        : {
            tensors: prepared.externalTensors,
            bytes: prepared.externalBytes,
            lazy: prepared.lazy,
            ...(why === null ? {} : { reason: why }),
          };
    const runtime = runtimeFacts();
    const result: WorkerLoadResult = { device, reason, adapterInfo, limits, externalWeights, dtype, model: config.model, runtime };
    this.#encoder = { key, encoder, result };
    return result;
  }

  /**
   * What a model load (encoder or reader) is given: its source, with the lazy cache where it can work (the
   * model file then stays on disk), its byte progress, and the runtime whose sessions are prepared; and, for the
   * load result, why the lazy path was declined and whether the runtime is an untested version (null: neither).
   */
  async #sessionOptions(loadSource: WorkerLoadOptions['source'], onModel: ModelCallback | undefined) {
    const local = isLocalLoad(loadSource);
    const source = this.sourceFor(loadSource);
    const progress = onModel ? throttled(onModel) : undefined;
    // downloads here only for loads from a host alone (a local path is looked at first; allowRemote: false never fetches)
    const download = !local && loadSource.localModelPath === undefined && loadSource.allowRemote !== false;
    const found = await this.#lazyWeights(local, download, progress);
    const lazy = found !== null && 'cache' in found ? found : null;
    const declined = found !== null && 'declined' in found ? found.declined : null;
    return {
      source: lazy === null ? source : { ...source, customCache: lazy.cache },
      // transformers.js reports the graph of a file the lazy cache serves; the cache reports the file
      ...(progress ? { onDownload: lazy === null ? progress : (p: DownloadProgress) => lazy.cache.served.has(p.file) || progress(p) } : {}),
      ...(this.#ort ? { ort: this.#ort } : {}),
      ...(lazy === null ? {} : { lazyWeights: lazy.registry }),
      notes: { declined, untested: lazy?.untested ?? null },
    };
  }

  /**
   * The cache that keeps a model file on disk while the runtime loads it (lazy-weights.ts): over
   * the browser's Cache Storage, or a picked folder's files. Null where it cannot work: no session hook (Node),
   * no synchronous Blob reads (not a worker), or the browser cache turned off (nothing to keep the file in).
   * Before its first use the runtime is self-tested (lazy-contract.ts): when it fails, only why comes back, and
   * the model file is read into memory, as where the lazy path cannot work; `untested` notes a passing runtime of
   * another version than the one tested.
   */
  async #lazyWeights(
    local: boolean,
    download: boolean,
    onDownload: ((p: DownloadProgress) => void) | undefined,
  ): Promise<{ cache: LazyWeightsCache; registry: LazyWeightsRegistry; untested: string | null } | { declined: string } | null> {
    const readSync = this.#readSync;
    const ort = this.#ort;
    if (ort === undefined || readSync === null) return null;
    let inner: ModelFileCacheLike = this.#localCache;
    if (!local) {
      if (!this.#useBrowserCache || typeof caches === 'undefined') return null;
      try {
        inner = await caches.open(MODEL_FILE_CACHE);
      } catch {
        return null; // storage refused (an opaque origin, say): transformers.js goes without a cache too
      }
    }
    const check = await (this.#lazyContract ??= checkLazyContract(ort, readSync, { executionProviders: [this.#cpuDevice] }));
    if (!check.ok) return { declined: check.reason ?? 'the runtime failed the lazy-weights self-test' };
    const registry = new LazyWeightsRegistry();
    const cache = lazyWeightsCache({
      inner,
      readSync,
      registry,
      ...(local
        ? { fileOf: (key: string) => resolveLocalKey(this.#local, key)?.path ?? hubFileOf(key) }
        : download
          ? { fetch: (url: string) => fetch(url) }
          : {}),
      ...(onDownload ? { onDownload } : {}),
    });
    return { cache, registry, untested: check.reason };
  }

  /** Load (or keep) a reader on the device `load` asks for; says the device it got and why it differs. */
  loadReader(
    config: ReaderConfig,
    load: WorkerLoadOptions,
    dtype: ReaderConfig['dtype'],
    onModel?: ModelCallback,
  ): Promise<{ reader: LoadedReader; device: WorkerDevice; reason: string | null }> {
    return this.#oneAtATime(() => this.#loadReader(config, load, dtype, onModel));
  }

  async #loadReader(
    config: ReaderConfig,
    load: WorkerLoadOptions,
    dtype: ReaderConfig['dtype'],
    onModel?: ModelCallback,
  ): Promise<{ reader: LoadedReader; device: WorkerDevice; reason: string | null }> {
    this.ready();
    const { device, reason } = await pickDevice(load, dtype);
    const key = JSON.stringify([config, dtype, device, load.source]);
    if (this.#reader?.key !== key) {
      await this.#reader?.reader.dispose();
      this.#reader = undefined;
      const { notes: _, ...sessionOptions } = await this.#sessionOptions(load.source, onModel);
      const reader = await loadReader(config, { device: this.runtimeDevice(device), dtype, ...sessionOptions });
      this.#reader = { key, reader };
    }
    return { reader: this.#reader.reader, device, reason };
  }

  /** Load (or keep) a judge on the device `load` asks for; says the device it got and why it differs. */
  loadJudge(
    config: JudgeConfig,
    load: WorkerLoadOptions,
    dtype: JudgeDtype,
    onModel?: ModelCallback,
  ): Promise<{ judge: LoadedJudge; device: WorkerDevice; reason: string | null }> {
    return this.#oneAtATime(async () => {
      this.ready();
      const { device, reason } = await pickDevice(load, dtype as ReaderConfig['dtype']);
      const key = JSON.stringify([config, dtype, device, load.source]);
      if (this.#judge?.key !== key) {
        await this.#judge?.judge.dispose();
        this.#judge = undefined;
        const { notes: _, ...sessionOptions } = await this.#sessionOptions(load.source, onModel);
        const judge = await loadJudge(config, { device: this.runtimeDevice(device), dtype, ...sessionOptions });
        this.#judge = { key, judge };
      }
      return { judge: this.#judge.judge, device, reason };
    });
  }

  /** Which files a load of `config` would lack, in words (null: none). */
  missingFiles(config: EncoderConfig, dtype: EncoderConfig['dtype'], source: WorkerLoadOptions['source']) {
    return findMissingFiles(config, dtype, source, this.#local);
  }

  /** Make a picked folder loadable as `name`; registering a name again replaces its files. */
  async register(name: string, files: readonly LocalModelFile[]): Promise<void> {
    validateRegisteredModel(
      name,
      files.map((f) => f.path),
    );
    if (this.#encoder?.result.model === name) await this.dispose();
    this.#local.set(name, new Map(files.map((f) => [f.path, asBlob(f.bytes)])));
  }

  async unregister(name: string): Promise<boolean> {
    if (this.#encoder?.result.model === name) await this.dispose();
    return this.#local.delete(name);
  }

  localNames(): string[] {
    return [...this.#local.keys()];
  }

  async dispose(): Promise<void> {
    const encoder = this.#encoder;
    this.#encoder = undefined;
    await encoder?.encoder.dispose();
    const reader = this.#reader;
    this.#reader = undefined;
    await reader?.reader.dispose();
    const judge = this.#judge;
    this.#judge = undefined;
    await judge?.judge.dispose();
  }
}
