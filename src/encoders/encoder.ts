/**
 * A loaded encoder: transformers.js tokenizer + ONNX model + our pooling. Runs unchanged in a module
 * worker (onnxruntime-web: WebGPU or WASM) and in Node (onnxruntime-node: CPU or CUDA), which is what lets
 * the CLI and the browser produce the same vectors.
 */
import { AutoModel, AutoModelForMaskedLM, AutoTokenizer, env, ModelRegistry, type PreTrainedTokenizer } from '@huggingface/transformers';
import {
  encoderInput,
  MODEL_CONFIG_FILES,
  ONNX_FILE_NAME,
  PRESET_NOTES,
  WEIGHTS_FOLDERS,
  weightsPath,
  type EncoderConfig,
  type EncoderDtype,
  type WeightsFolder,
} from './presets.ts';
import { clsPool, l2Normalize, meanPool, sparsify, spladePool, type Dims3, type SparseVector } from './pooling.ts';
import { appendPooling, pooledOutput, type SessionPooling } from './onnx-pooling.ts';
import { externalizeWeights, WEIGHTS_FILE, type ExternalizedModel } from './onnx-weights.ts';
import { modelShape, type ModelShape } from './device-plan.ts';
import { errorMessage } from '../core/error-message.ts';

export type EncoderDevice = 'wasm' | 'webgpu' | 'cpu' | 'cuda';

/** Where model files come from. Nothing else is ever contacted. */
export interface ModelSource {
  /** Hub-compatible host, e.g. https://huggingface.co/ or a mirror with the same URL layout. */
  readonly remoteHost?: string;
  /** Local models root (a URL path in browsers, a directory in Node); tried before the host. */
  readonly localModelPath?: string;
  readonly allowRemote?: boolean;
  /** Node only: where downloaded model files are kept between runs. */
  readonly cacheDir?: string;
  /**
   * Consulted before any fetch (transformers.js `env.customCache`), e.g. the files of a local model folder
   * picked in the browser. Replaces the browser/file cache for this load only.
   */
  readonly customCache?: ModelFileCacheLike;
}

/** What transformers.js needs of a custom cache (a subset of the Web Cache API). */
export interface ModelFileCacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
}

/** Where models come from when the caller names no host. */
export { DEFAULT_REMOTE_HOST } from './remote-host.ts';
import { DEFAULT_REMOTE_HOST } from './remote-host.ts';

export interface LoadOptions {
  readonly device: EncoderDevice;
  readonly dtype?: EncoderDtype;
  readonly source?: ModelSource;
  readonly onDownload?: DownloadCallback;
  /** Where the ONNX weights sit: `onnx/` (transformers.js's layout, the default) or the repo's root. */
  readonly onnxFolder?: WeightsFolder;
  /** The weights have an external-data file (`model.onnx_data`). */
  readonly externalData?: boolean;
  /**
   * The ONNX Runtime module transformers.js runs on. Given, sessions made from bytes are prepared
   * (`prepareSessions`): the weights go to the runtime without a second whole copy, and a SPLADE model is
   * pooled in its own session (only one vector per input leaves the device, not its tokens × width outputs).
   */
  readonly ort?: SessionFactory;
  /** With `ort`: the registry of the `lazyWeightsCache` in `source.customCache` (lazy-weights.ts). */
  readonly lazyWeights?: WeightsToMount;
}

/** Weights kept out of the tab's memory, mounted as external data under `location` (lazy-weights.ts). */
export interface MountableWeights {
  readonly location: string;
  /** What the runtime reads them through: a `Uint8Array` to it. */
  readonly data: Uint8Array;
  readonly tensors: number;
  readonly bytes: number;
  /** The whole file, in memory: what is mounted instead when the runtime cannot read it through `data`. */
  read(): Promise<Uint8Array>;
}

/** Where a session hook finds the weights a load's cache handed out graphs for (`LazyWeightsRegistry`). */
export interface WeightsToMount {
  /** The pending entries `model` refers to (by their location), removed; without `model`, all of them. */
  take(model?: Uint8Array): MountableWeights[];
}

/** The part of an ONNX Runtime module a session hook needs (onnxruntime-web and -node both have it). */
export interface SessionFactory {
  readonly InferenceSession: { create: (...args: never[]) => Promise<unknown> };
}

interface HookedSession {
  run(feeds: unknown, fetches?: unknown, options?: unknown): Promise<Record<string, unknown>>;
}

/** What a session hook did to the model it was handed. */
export interface SessionPreparation {
  /** Initializers handed to the runtime as external data (onnx-weights.ts), and their bytes. */
  readonly externalTensors: number;
  readonly externalBytes: number;
  /** The pooling was appended (onnx-pooling.ts). */
  readonly pooled: boolean;
  /** The weights were read from the stored file as the runtime asked for them (lazy-weights.ts). */
  readonly lazy: boolean;
  /** Why weights that were to be read from the stored file were read into memory instead (`lazy` is then false). */
  readonly lazyFallback?: string;
}

/** The pooling a session can do in its own graph for `config`. */
export function sessionPooling(config: EncoderConfig): SessionPooling {
  return config.pooling === 'splade-max' ? 'splade' : config.pooling;
}

/**
 * `load` (a transformers.js `from_pretrained`, given the session options to pass on as its `session_options`)
 * with `prepareSessions` holding when `options.ort` is given, and what it did to the first session made (null:
 * nothing, as in Node, where the runtime gets a path).
 */
export async function withPreparedSessions<T>(
  options: { readonly ort?: SessionFactory; readonly lazyWeights?: WeightsToMount },
  pooling: SessionPooling | null,
  load: (sessionOptions: object | undefined) => Promise<T>,
): Promise<{ value: T; prepared: SessionPreparation | null }> {
  let prepared: SessionPreparation | null = null;
  const hook = options.ort
    ? prepareSessions(options.ort, {
        pooling,
        onPrepared: (p) => (prepared ??= p),
        ...(options.lazyWeights ? { lazyWeights: options.lazyWeights } : {}),
      })
    : null;
  try {
    return { value: await load(hook?.sessionOptions), prepared };
  } finally {
    hook?.release();
  }
}

/** Models at least this big are loaded without weight prepacking (`withoutPrepacking`). */
export const NO_PREPACKING_BYTES = 256 * 2 ** 20;

/**
 * Session options with weight prepacking off (ONNX Runtime's `session.disable_prepacking`): a prepacked
 * MatMul keeps a second, reordered copy of its weights, and on WASM the heap that held both never shrinks, so
 * a big model would need room for its weights twice. Measured on BGE-large (docs/benchmarks.md): ~500 MB less
 * at peak, and no slower in fp32. Small models keep it (quantized kernels gain most from prepacked weights).
 */
function withoutPrepacking(options: unknown): unknown {
  const given = (options ?? {}) as { extra?: { session?: Record<string, unknown> } };
  return { ...given, extra: { ...given.extra, session: { disable_prepacking: '1', ...given.extra?.session } } };
}

type Create = (model: unknown, options?: unknown) => Promise<HookedSession>;
/** A load's preparation of one session made with its options; `create` is the runtime's own. */
type SessionHandler = (model: unknown, options: Record<PropertyKey, unknown>, create: Create) => Promise<HookedSession>;

/** Where a load's session options carry its handler (`prepareSessions`); taken out before the runtime sees them. */
const SESSION_HOOK = Symbol('fliplab.sessionHook');

/** The dispatcher installed on a runtime's `InferenceSession`, the `create` it replaced, and the loads holding it. */
const installed = new WeakMap<object, { readonly dispatcher: Create; readonly original: Create; holds: number }>();

/**
 * Puts a dispatcher in place of `sessions.create` (once, however many loads hold it): a call whose options carry
 * a handler goes to that handler, with the options without it; any other call (a dense search's, transformers.js's
 * own small sessions) goes to the original `create` untouched. The returned function lets go; the last to let
 * go puts the original back. So a load prepares exactly the sessions made with its own options, whatever else is
 * loading or searching meanwhile: the hook is the load's, not the process's.
 */
function holdDispatcher(sessions: { create: Create }): () => void {
  let entry = installed.get(sessions);
  if (entry === undefined) {
    const original = sessions.create;
    const dispatcher: Create = (model, options) => {
      const handler = (options as { [SESSION_HOOK]?: unknown } | undefined)?.[SESSION_HOOK];
      if (typeof handler !== 'function') return original.call(sessions, model, options);
      const rest: Record<PropertyKey, unknown> = { ...(options as object) };
      delete rest[SESSION_HOOK];
      return (handler as SessionHandler)(model, rest, (m, o) => original.call(sessions, m, o));
    };
    entry = { dispatcher, original, holds: 0 };
    installed.set(sessions, entry);
    sessions.create = dispatcher;
  }
  const held = entry;
  held.holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--held.holds > 0) return;
    installed.delete(sessions);
    // Replaced since by someone else: leave theirs (the dispatcher under it passes unmarked calls through).
    if (sessions.create === held.dispatcher) sessions.create = held.original;
  };
}

/** A load's session hook (`prepareSessions`). */
export interface SessionHook {
  /**
   * Options for the load's sessions (transformers.js's `session_options`): exactly the sessions made with them
   * are prepared. They hold a symbol-keyed handler, which the runtime never sees.
   */
  readonly sessionOptions: object;
  /** The load is done: once no load holds it, the runtime's own `create` is back in place. */
  release(): void;
}

/**
 * Until `release`, every session `ort` creates from model bytes with `sessionOptions` (the browser's path: Node
 * hands the runtime a file path, which is left as is):
 * - gets its weights as external data pointing into the bytes it was given (`externalizeWeights`), so the
 *   runtime copies each weight once into its tensor instead of the whole file into its heap and parsing it
 *   (and, for a model of `NO_PREPACKING_BYTES` or more, keeps no prepacked second copy);
 * - with `lazyWeights`, mounts the stored files its graph names (lazy-weights.ts); should the runtime fail to
 *   make the session from them, the same graph is made again with each file read into memory, and
 *   `lazyFallback` says why (an upgrade that broke the mounted-file contract fails no load);
 * - with `pooling`, gets that pooling appended (SPLADE's max, CLS or mean), and a run that names no outputs
 *   (transformers.js's) fetches the pooled rows alone, [batch, width], handed back under the name the model
 *   class keeps (`logits` for SPLADE's masked LM, `last_hidden_state` for an encoder): `encode` tells pooled
 *   rows (2 dimensions) from raw outputs (3). A model the pooling cannot extend (no such output, say) is
 *   loaded as it is, and pooled on the CPU.
 * Sessions made without `sessionOptions` (another load's, a dense search's) are not touched. `onPrepared`
 * hears what was done to each.
 */
export function prepareSessions(
  ort: SessionFactory,
  options: {
    readonly pooling: SessionPooling | null;
    readonly onPrepared?: (p: SessionPreparation) => void;
    /** Weights a `lazyWeightsCache` served graphs for: mounted, on disk, with the next session. */
    readonly lazyWeights?: WeightsToMount;
  },
): SessionHook {
  const handler: SessionHandler = async (model, sessionOptions, create) => {
    if (!(model instanceof Uint8Array)) return create(model, sessionOptions);
    let external: ExternalizedModel | null = null;
    try {
      external = externalizeWeights(model);
    } catch {
      // not a protobuf message: the runtime's own error says more
    }
    const graph = external?.graph ?? model;
    const pooledGraph = options.pooling === null ? null : appendPooling(graph, options.pooling);
    const lazy = options.lazyWeights?.take(model) ?? [];
    const given = sessionOptions as { externalData?: readonly unknown[] };
    const lazyTensors = lazy.reduce((n, w) => n + w.tensors, 0);
    const lazyBytes = lazy.reduce((n, w) => n + w.bytes, 0);
    const big = model.length + lazyBytes >= NO_PREPACKING_BYTES;
    const own = external === null ? [] : [{ path: WEIGHTS_FILE, data: external.weights }];
    /** The session with `mounts` as its files: pooled when the graph takes the pooling, else the model as it is. */
    const attempt = async (mounts: readonly { path: string; data: Uint8Array }[]) => {
      const all = [...own, ...mounts];
      const withWeights = all.length === 0 ? sessionOptions : { ...given, externalData: [...(given.externalData ?? []), ...all] };
      const createWith = (bytes: Uint8Array) => create(bytes, big ? withoutPrepacking(withWeights) : withWeights);
      if (pooledGraph === null) return { session: await createWith(graph), pooled: false };
      try {
        return { session: await createWith(pooledGraph), pooled: true };
      } catch (error) {
        // the model as it is; if that fails too, the pooling was not the problem: say what failed first
        const session = await createWith(graph).catch(() => {
          throw error;
        });
        return { session, pooled: false };
      }
    };
    let lazyFallback: string | undefined;
    let made: { session: HookedSession; pooled: boolean };
    try {
      made = await attempt(lazy.map((w) => ({ path: w.location, data: w.data })));
    } catch (error) {
      if (lazy.length === 0) throw error;
      // The runtime could not read the stored file through the view (lazy-contract.ts): its bytes in memory.
      lazyFallback = `the runtime could not read the weights from the stored file (${errorMessage(error)}): read into memory instead`;
      made = await attempt(await Promise.all(lazy.map(async (w) => ({ path: w.location, data: await w.read() }))));
    }
    const { session, pooled } = made;
    options.onPrepared?.({
      externalTensors: (external?.tensors ?? 0) + lazyTensors,
      externalBytes: (external?.bytes ?? 0) + lazyBytes,
      pooled,
      lazy: lazy.length > 0 && lazyFallback === undefined,
      ...(lazyFallback === undefined ? {} : { lazyFallback }),
    });
    if (pooled && options.pooling !== null) {
      const output = pooledOutput(options.pooling);
      const as = options.pooling === 'splade' ? 'logits' : 'last_hidden_state';
      const run = session.run.bind(session);
      session.run = async (feeds, fetches, runOptions) => {
        if (fetches !== undefined) return run(feeds, fetches, runOptions);
        const out = await run(feeds, [output]);
        return { [as]: out[output] };
      };
    }
    return session;
  };
  const release = holdDispatcher(ort.InferenceSession as unknown as { create: Create });
  return { sessionOptions: { [SESSION_HOOK]: handler }, release };
}

/** One file a load reads: its size when the host (or the cache) says, and whether this machine has it already. */
export interface ModelFile {
  readonly path: string;
  readonly bytes: number | null;
  readonly cached: boolean;
  readonly exists: boolean;
  /** The probe got no answer (network failure, refusal): absent or not is unknown. */
  readonly unanswered?: boolean;
}

/** What loading a model will download, before any weights are fetched. */
export interface DownloadPlan {
  readonly model: string;
  readonly revision: string;
  readonly dtype: EncoderDtype;
  /** `onnx` or `` (weights at the repo's root); null when neither place has them. */
  readonly onnxFolder: WeightsFolder | null;
  /** The weights come with an `.onnx_data` file. */
  readonly externalData: boolean;
  readonly files: readonly ModelFile[];
  /** Bytes still to download (files not cached; unknown sizes count 0). */
  readonly downloadBytes: number;
  readonly cachedBytes: number;
}

/**
 * Why a plan cannot load, in words, when the host answers but lacks something (null when nothing is known to
 * be missing: an unreachable host makes every file look absent, and the load's own error says more then).
 */
export function planProblem(plan: DownloadPlan): string | null {
  const has = (path: string) => plan.files.some((f) => f.path === path && f.exists);
  // Only what the host answered counts: an unanswered probe leaves the load's own error to speak.
  if (!has('config.json') || plan.files.some((f) => f.unanswered)) return null;
  if (plan.onnxFolder === null) {
    const name = ONNX_FILE_NAME[plan.dtype];
    const note = PRESET_NOTES[plan.model];
    const where = `neither onnx/${name} nor ${name} at its root`;
    return `${plan.model}@${plan.revision} has no ONNX weights for ${plan.dtype}: ${where}${note ? `. ${note}` : ''}`;
  }
  const missing = MODEL_CONFIG_FILES.filter((f) => !has(f));
  return missing.length === 0 ? null : `${plan.model}@${plan.revision} lacks ${missing.join(', ')} (the tokenizer transformers.js needs)`;
}

/**
 * The files a load of `config` in `dtype` reads, with sizes and cache state, from the host's metadata (a
 * one-byte range request per file, as transformers.js itself probes) or the browser's / Node's model cache.
 * Finds the weights under `onnx/` or, failing that, at the repo's root (several public conversions, e.g.
 * of SPLADE, are laid out that way), with their external-data file when there is one.
 */
export async function planModelDownload(
  config: EncoderConfig,
  dtype: EncoderDtype,
  source?: ModelSource,
  options: { readonly isCached?: (path: string) => Promise<boolean> } = {},
): Promise<DownloadPlan> {
  applySource(source);
  const revision = { revision: config.revision };
  const meta = async (path: string): Promise<ModelFile> => {
    let failed = false;
    const m = await ModelRegistry.get_file_metadata(config.model, path, revision).catch(() => {
      failed = true; // no answer (network, refusal): not known to be absent
      return { exists: false } as const;
    });
    // transformers.js keeps each answer for the process (keyed without the host): a long-lived worker asks
    // its cache itself, or a file downloaded since the first answer would still read "not cached".
    const fromCache = options.isCached ? await options.isCached(path) : (m as { fromCache?: boolean }).fromCache === true;
    return {
      path,
      exists: m.exists || fromCache,
      bytes: m.exists && typeof (m as { size?: unknown }).size === 'number' ? (m as { size: number }).size : null,
      cached: fromCache,
      ...(failed ? { unanswered: true } : {}),
    };
  };
  const files = await Promise.all(MODEL_CONFIG_FILES.map(meta));
  let onnxFolder: WeightsFolder | null = null;
  let externalData = false;
  // The layout rule of presets.ts (`locateWeights`), asked of the host one file at a time.
  for (const folder of WEIGHTS_FOLDERS) {
    const weights = await meta(weightsPath(ONNX_FILE_NAME[dtype], folder));
    if (!weights.exists) continue;
    onnxFolder = folder;
    files.push(weights);
    const data = await meta(`${weights.path}_data`);
    if (data.exists) files.push(data);
    externalData = data.exists;
    break;
  }
  if (onnxFolder === null) files.push({ path: weightsPath(ONNX_FILE_NAME[dtype], 'onnx'), exists: false, bytes: null, cached: false });
  const downloadBytes = files.filter((f) => f.exists && !f.cached).reduce((s, f) => s + (f.bytes ?? 0), 0);
  const cachedBytes = files.filter((f) => f.cached).reduce((s, f) => s + (f.bytes ?? 0), 0);
  return { model: config.model, revision: config.revision, dtype, onnxFolder, externalData, files, downloadBytes, cachedBytes };
}

export interface EncodedBatch {
  readonly dense?: Float32Array[];
  readonly sparse?: SparseVector[];
  /** The vectors were pooled in the model's session: one row per input came back, not its tokens' outputs. */
  readonly pooledOnDevice?: boolean;
  /** Real (unpadded) tokens per input after truncation. */
  readonly tokens: number[];
}

export interface LoadedEncoder {
  readonly config: EncoderConfig;
  readonly device: EncoderDevice;
  readonly dtype: EncoderDtype;
  /** The shapes that size the model's widest tensors (from its config.json); null or absent when unknown. */
  readonly shape?: ModelShape | null;
  /** What the session hook did to the model (absent when none ran: Node, or no runtime given). */
  readonly prepared?: SessionPreparation | null;
  /** Token counts after prefix and truncation, for batch planning and progress. */
  countTokens(texts: readonly string[], role: 'query' | 'passage'): number[];
  encode(texts: readonly string[], role: 'query' | 'passage'): Promise<EncodedBatch>;
  dispose(): Promise<void>;
}

/**
 * transformers.js's env is process-global: every load sets *all* of the source, so one load's local folder
 * or mirror never leaks into the next (a model found in an earlier load's local folder would otherwise
 * shadow the host this load names).
 */
export function applySource(source: ModelSource | undefined): void {
  const host = source?.remoteHost ?? DEFAULT_REMOTE_HOST;
  env.remoteHost = host.endsWith('/') ? host : `${host}/`;
  env.allowLocalModels = source?.localModelPath !== undefined;
  if (source?.localModelPath !== undefined) env.localModelPath = source.localModelPath;
  env.allowRemoteModels = source?.allowRemote ?? true;
  if (source?.cacheDir !== undefined) env.cacheDir = source.cacheDir;
  env.useCustomCache = source?.customCache !== undefined;
  env.customCache = source?.customCache ?? null;
}

interface TensorLike {
  data: Float32Array | BigInt64Array;
  dims: number[];
  dispose?: () => void;
}

/** Byte progress of one model file. */
export type DownloadCallback = (p: { file: string; loaded: number; total: number }) => void;

/** transformers.js's `progress_callback`, reduced to byte progress per file. */
export function downloadProgress(onDownload: DownloadCallback | undefined) {
  return (p: { status: string; file?: string; loaded?: number; total?: number }) => {
    // Weights at the repo's root (subfolder '') come as "/model.onnx".
    if (p.status === 'progress' && p.file) onDownload?.({ file: p.file.replace(/^\/+/, ''), loaded: p.loaded ?? 0, total: p.total ?? 0 });
  };
}

export async function loadEncoder(config: EncoderConfig, options: LoadOptions): Promise<LoadedEncoder> {
  applySource(options.source);
  const dtype = options.dtype ?? config.dtype;
  const common = { revision: config.revision, progress_callback: downloadProgress(options.onDownload) };
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.model, common);
  const Model = config.pooling === 'splade-max' ? AutoModelForMaskedLM : AutoModel;
  const subfolder = options.onnxFolder ?? 'onnx';
  const { value: model, prepared } = await withPreparedSessions(options, sessionPooling(config), (session_options) =>
    Model.from_pretrained(config.model, {
      ...common,
      dtype,
      device: options.device,
      subfolder,
      // Weights past 2 GB come as `<weights>.onnx_data` beside the graph (the plan finds it).
      ...(options.externalData ? { use_external_data_format: true } : {}),
      ...(session_options ? { session_options } : {}),
    }),
  );

  const tokenize = (texts: readonly string[], role: 'query' | 'passage', padding: boolean) =>
    tokenizer(
      texts.map((t) => encoderInput(config, role, t)),
      { padding, truncation: true, max_length: config.maxLength },
    ) as unknown as Record<string, TensorLike>;

  return {
    config,
    device: options.device,
    dtype,
    shape: modelShape((model.config ?? {}) as unknown as Record<string, unknown>, config.pooling === 'splade-max'),
    prepared,
    countTokens(texts, role) {
      return texts.map((t) => {
        const ids = tokenizer.encode(encoderInput(config, role, t));
        return Math.min(ids.length, config.maxLength);
      });
    },
    async encode(texts, role) {
      const inputs = tokenize(texts, role, true);
      const mask = inputs.attention_mask!;
      const [batch, seq] = mask.dims as [number, number];
      const maskData = mask.data as BigInt64Array;
      const tokens: number[] = [];
      for (let b = 0; b < batch; b++) {
        let n = 0;
        for (let t = 0; t < seq; t++) if (maskData[b * seq + t] !== 0n) n++;
        tokens.push(n);
      }
      const output = (await model(inputs)) as Record<string, TensorLike>;
      try {
        if (config.pooling === 'splade-max') {
          const logits = output.logits!;
          if (logits.dims.length === 2) {
            // pooled in the session (prepareSessions): one row of weights per input
            const width = logits.dims[1]!;
            const data = logits.data as Float32Array;
            const sparse = Array.from({ length: batch }, (_, b) => sparsify(data.subarray(b * width, (b + 1) * width), config.sparseTopK));
            return { sparse, tokens, pooledOnDevice: true };
          }
          const d: Dims3 = { batch, seq, width: logits.dims[2]! };
          return { sparse: spladePool(logits.data as Float32Array, maskData, d, config.sparseTopK), tokens };
        }
        const hidden = output.last_hidden_state!;
        const data = hidden.data as Float32Array;
        if (hidden.dims.length === 2) {
          // pooled in the session (prepareSessions): one row per input
          const width = hidden.dims[1]!;
          const dense = Array.from({ length: batch }, (_, b) => data.slice(b * width, (b + 1) * width));
          if (config.normalize) dense.forEach(l2Normalize);
          return { dense, tokens, pooledOnDevice: true };
        }
        const d: Dims3 = { batch, seq, width: hidden.dims[2]! };
        const pooled = config.pooling === 'cls' ? clsPool(data, d) : meanPool(data, maskData, d);
        if (config.normalize) pooled.forEach(l2Normalize);
        return { dense: pooled, tokens };
      } finally {
        for (const t of Object.values(output)) t.dispose?.();
      }
    },
    async dispose() {
      await model.dispose();
    },
  };
}
