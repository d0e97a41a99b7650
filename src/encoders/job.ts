/**
 * Encoding a collection, cache first: texts whose vectors are stored are never encoded again; the rest
 * are encoded in length-grouped batches, each committed to the cache before the next starts (a reload
 * loses at most the batch in flight), with progress, ETA and cancellation. A batch with a NaN or ∞ in any
 * vector stops the job before it is stored (NonFiniteVectorError). A failing accelerator (e.g. a
 * lost WebGPU device) hands over to a fallback encoder that continues from the last committed batch.
 */
import { encodingIdentity, encodingKey, textKeys, type EncodingIdentity } from './identity.ts';
import type { StoredVector } from './pooling.ts';
import { errorMessage } from '../core/error-message.ts';
import { etaMs } from '../core/progress.ts';
import { isFiniteVector, NonFiniteVectorError } from './agreement.ts';
import { planBatches, type BatchPlan } from './batching.ts';
import type { EncodedBatch, LoadedEncoder } from './encoder.ts';
import type { EncoderConfig, EncoderDtype } from './presets.ts';

/**
 * An encoder not loaded yet: what its vectors are called (config, dtype) and how to load it. The job loads it
 * only when something is missing from the cache, so a fully cached run needs no model at all.
 */
export interface LazyEncoder {
  readonly config: EncoderConfig;
  readonly dtype: EncoderDtype;
  load(): Promise<LoadedEncoder>;
  /** True when `load()` would return a model already in memory (no download, no session to create). */
  loaded?(): boolean;
}

const isLoaded = (e: LoadedEncoder | LazyEncoder): e is LoadedEncoder => 'encode' in e;

/** The device the last progress report names when every vector came from the cache (no model was loaded). */
export const CACHE_DEVICE = 'cache';

/**
 * What a job is doing, said by the job itself (never inferred from counts): looking its texts up in the cache
 * (`checked` of `total` so far, `cached` of them found), loading the model (only when something is missing),
 * or encoding the rest.
 */
/** `elsewhere`: another tab (or worker) holds this encoding's lock and encodes it; its vectors are picked up as they land. */
/** `agreement`: the path is being checked against the reference (WASM fp32) on a sample before it encodes (agreement.ts). */
export type EncodePhase = 'reading-cache' | 'elsewhere' | 'loading-model' | 'agreement' | 'encoding';

/**
 * Runs `job` once no other holder of `name` runs one (the lab: Web Locks, held across the browser's tabs and
 * workers, released when a tab closes or crashes). `onWait` is called first when another holds it.
 */
export type Exclusive = <T>(name: string, job: () => Promise<T>, onWait: () => void, signal?: AbortSignal) => Promise<T>;

/** How often a job waiting on another tab's encoding looks for the vectors it stored. */
const ELSEWHERE_POLL_MS = 1000;

/** What the job needs from a cache (EmbeddingStore in browsers; a Map in tests or the CLI). */
export interface VectorCache {
  get(encoding: string, textKeys: readonly string[]): Promise<(StoredVector | undefined)[]>;
  put(
    identity: EncodingIdentity,
    encoding: string,
    device: string,
    entries: readonly { text: string; vector: StoredVector }[],
  ): Promise<void>;
}

export interface EncodeProgress {
  readonly phase: EncodePhase;
  readonly total: number;
  /** Texts looked up in the cache so far (`total` once the lookup is over). */
  readonly checked: number;
  /** Vectors available so far (cached + encoded). */
  readonly done: number;
  /** Vectors found in the cache so far. */
  readonly cached: number;
  /** Real tokens encoded in this job. */
  readonly tokens: number;
  readonly elapsedMs: number;
  /**
   * Estimated time left from this job's encoding rate (the cache lookup and the model load excluded); null until
   * the first batch is done, 0 when nothing is left.
   */
  readonly etaMs: number | null;
  /** Texts encoded per second since encoding started; null until the first batch is done. */
  readonly perSecond: number | null;
  /**
   * The device encoding; null while no model is loaded (reading the cache, loading the model), and
   * CACHE_DEVICE in the last report of a job whose every vector came from the cache.
   */
  readonly device: string | null;
  /** Set when the job switched encoders, with the reason. */
  readonly fallback?: string;
  /** Batches encoded so far in this job. */
  readonly batches?: number;
  /**
   * Times a batch was split in two because the device ran out of memory (the last resort behind a plan made
   * from the device's limits); 0 when none.
   */
  readonly oomRetries?: number;
  /** The limit that sized the batches, in words ("logits (30,522 per token)"), when the device's limits did. */
  readonly planBoundBy?: string;
}

export interface EncodeJobOptions {
  readonly role: 'query' | 'passage';
  readonly plan?: BatchPlan;
  /**
   * The plan for the encoder once loaded (its device and shapes known), e.g. from the device's limits
   * (`planForLimits`); `plan` when absent. `boundBy` names the limit that decided it.
   */
  readonly planFor?: (encoder: LoadedEncoder) => BatchPlan & { readonly boundBy?: string | null };
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: EncodeProgress) => void;
  /** Vectors of each committed batch, by input position (for live partial analysis). */
  readonly onBatch?: (positions: readonly number[], vectors: readonly StoredVector[]) => void;
  /**
   * Every vector as soon as it is known: cache hits (per lookup window, before any encoding) and then each
   * committed batch. What a live consumer (the lab's partial runs) needs; `onBatch` reports new ones only.
   */
  readonly onVectors?: (positions: readonly number[], vectors: readonly StoredVector[], from: 'cache' | 'encoder') => void;
  /**
   * Keep every vector to return at the end (default true). False when `onVectors` consumes them: the job then
   * holds one batch at a time (a FiQA-sized corpus at 1024 dims is ~236 MB otherwise) and returns [].
   */
  readonly keep?: boolean;
  /**
   * What the cache records as the device of the vectors `encoder` makes (default: its device), e.g. the device
   * with its adapter, dtype, threads and runtime versions: what a vector pack made from the cache says.
   */
  readonly recordDevice?: (encoder: LoadedEncoder) => string;
  /** Called when the encoder fails mid-job; returns the encoder to continue with (e.g. WASM after WebGPU). */
  readonly fallback?: (error: unknown) => Promise<LoadedEncoder>;
  /**
   * Called once after the cache lookup with the number of texts still to encode, before any is encoded: the
   * place for a storage check sized by what will really be written (a resumed job needs room for the rest only).
   */
  readonly beforeEncoding?: (toEncode: number) => Promise<void>;
  /** How many cache lookups to make at once (bounds memory on large corpora). */
  readonly lookupWindow?: number;
  readonly now?: () => number;
  /**
   * One encoder per encoding across tabs: what is missing is encoded while holding the encoding's lock; a
   * job that finds it held waits (phase `elsewhere`), taking the other's vectors from the cache as they are
   * committed, and encodes only what is still missing when its turn comes.
   */
  readonly exclusive?: Exclusive;
}

export const DEFAULT_BATCH_PLAN: BatchPlan = { maxTokens: 8192, maxBatch: 32 };

/** Starting plans per device: a GPU amortises launches over wider batches; WASM gains little past ~8k tokens. */
export const BATCH_PLAN_BY_DEVICE: Readonly<Record<string, BatchPlan>> = {
  webgpu: { maxTokens: 32_768, maxBatch: 64 },
  cuda: { maxTokens: 65_536, maxBatch: 128 },
  wasm: DEFAULT_BATCH_PLAN,
  cpu: DEFAULT_BATCH_PLAN,
};

/** Errors that mean "this batch is too big for the device's memory", so a smaller one may pass. */
const OUT_OF_MEMORY = /out of memory|\boom\b|allocat|memory access out of bounds|Array buffer allocation failed|exceeds.*(limit|size)/i;
/** Small enough that a large corpus reports its lookup within the first second. */
const DEFAULT_LOOKUP_WINDOW = 1024;

function toStored(batch: EncodedBatch, i: number): StoredVector {
  const tokens = batch.tokens[i] ?? 0;
  if (batch.dense) return { dense: batch.dense[i]!, tokens };
  if (batch.sparse) return { sparse: batch.sparse[i]!, tokens };
  throw new Error('encoder returned neither dense nor sparse vectors');
}

/**
 * Encode `texts` (cache first) and return one vector per text, in input order. With a `LazyEncoder` the
 * model is loaded only if some text is not in the cache.
 */
export async function encodeWithCache(
  encoder: LoadedEncoder | LazyEncoder,
  cache: VectorCache,
  texts: readonly string[],
  options: EncodeJobOptions,
): Promise<StoredVector[]> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const role = options.role;
  const identity = encodingIdentity(encoder.config, role, encoder.dtype);
  const encoding = await encodingKey(identity);
  const keep = options.keep ?? true;
  const out = new Array<StoredVector | undefined>(keep ? texts.length : 0);
  const window = options.lookupWindow ?? DEFAULT_LOOKUP_WINDOW;

  const missing: number[] = [];
  let phase: EncodePhase = 'reading-cache';
  let checked = 0;
  let cached = 0;
  let current: LoadedEncoder | null = null;
  let done = 0;
  let tokens = 0;
  let encodingStarted = 0;
  let fallbackReason: string | undefined;
  let batchesDone = 0;
  let oomRetries = 0;
  let planBoundBy: string | null = null;
  // The first batch is a warm-up (WebGPU compiles its shaders then, WASM its first kernels): the rate and
  // ETA leave it out once a later batch is done.
  let warmupTexts = 0;
  let warmupMs = 0;
  const report = () => {
    const now_ = now();
    // The rate counts what was encoded in this job, from the moment encoding started: cache hits took no
    // time, and the model load is not encoding.
    const afterWarmup = batchesDone > 1;
    const encoded = done - cached - (afterWarmup ? warmupTexts : 0);
    const encodingMs = phase === 'encoding' ? now_ - encodingStarted - (afterWarmup ? warmupMs : 0) : 0;
    const lookupOver = checked === texts.length;
    options.onProgress?.({
      phase,
      total: texts.length,
      checked,
      done,
      cached,
      tokens,
      elapsedMs: now_ - started,
      etaMs:
        lookupOver && missing.length === 0
          ? 0
          : phase === 'encoding'
            ? etaMs(encoded, texts.length - cached - (afterWarmup ? warmupTexts : 0), encodingMs)
            : null,
      perSecond: encoded > 0 && encodingMs > 0 ? (encoded * 1000) / encodingMs : null,
      device: current?.device ?? (lookupOver && missing.length === 0 ? CACHE_DEVICE : null),
      ...(fallbackReason === undefined ? {} : { fallback: fallbackReason }),
      batches: batchesDone,
      oomRetries,
      ...(planBoundBy === null ? {} : { planBoundBy }),
    });
  };
  // Said at once: the first thing a job does is look in the cache (hashing the texts comes first).
  report();
  const keys = await textKeys(texts);
  for (let start = 0; start < texts.length; start += window) {
    options.signal?.throwIfAborted();
    const slice = keys.slice(start, start + window);
    const found = await cache.get(encoding, slice);
    const hitPositions: number[] = [];
    const hitVectors: StoredVector[] = [];
    found.forEach((v, i) => {
      if (v) {
        if (keep) out[start + i] = v;
        hitPositions.push(start + i);
        hitVectors.push(v);
      } else missing.push(start + i);
    });
    if (hitPositions.length > 0) options.onVectors?.(hitPositions, hitVectors, 'cache');
    checked = start + slice.length;
    cached += hitPositions.length;
    done = cached;
    report();
  }
  if (missing.length === 0) return keep ? (out as StoredVector[]) : [];

  /**
   * Take from the cache what another encoder stored for the still-missing texts since they were looked up
   * (one pick-up at a time: the watch's and the last one never interleave).
   */
  let picking: Promise<void> = Promise.resolve();
  const pickUp = (): Promise<void> => (picking = picking.then(pickUpOnce));
  const pickUpOnce = async (): Promise<void> => {
    const still: number[] = [];
    for (let start = 0; start < missing.length; start += window) {
      const positions = missing.slice(start, start + window);
      const found = await cache.get(
        encoding,
        positions.map((p) => keys[p]!),
      );
      const hitPositions: number[] = [];
      const hitVectors: StoredVector[] = [];
      found.forEach((v, i) => {
        if (v) {
          if (keep) out[positions[i]!] = v;
          hitPositions.push(positions[i]!);
          hitVectors.push(v);
        } else still.push(positions[i]!);
      });
      if (hitPositions.length > 0) options.onVectors?.(hitPositions, hitVectors, 'cache');
      cached += hitPositions.length;
      done = cached;
    }
    missing.splice(0, missing.length, ...still);
    report();
  };

  const encodeMissing = async (): Promise<StoredVector[]> => {
    if (missing.length === 0) return keep ? (out as StoredVector[]) : [];
    return encodeRest();
  };
  if (options.exclusive === undefined) return encodeMissing();
  let watching: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const watch = (): void => {
    watching = setTimeout(() => {
      void pickUp().then(() => {
        if (!stopped) watch();
      });
    }, ELSEWHERE_POLL_MS);
  };
  try {
    return await options.exclusive(
      `fliplab-encode:${encoding}`,
      async () => {
        if (phase === 'elsewhere') {
          stopped = true;
          clearTimeout(watching);
          await pickUp(); // what the other tab finished meanwhile
        }
        return encodeMissing();
      },
      () => {
        phase = 'elsewhere';
        report();
        watch();
      },
      options.signal,
    );
  } finally {
    stopped = true;
    clearTimeout(watching);
  }

  async function encodeRest(): Promise<StoredVector[]> {
    await options.beforeEncoding?.(missing.length);
    let active: LoadedEncoder;
    if (isLoaded(encoder)) active = encoder;
    else {
      if (encoder.loaded?.() !== true) {
        phase = 'loading-model';
        report();
      }
      active = await encoder.load();
      if (active.dtype !== identity.dtype || active.config.model !== identity.model) {
        throw new Error(
          `the loaded encoder (${active.config.model}, ${active.dtype}) is not the one the cache was read for ` +
            `(${identity.model}, ${identity.dtype})`,
        );
      }
    }
    current = active;
    phase = 'encoding';
    encodingStarted = now();
    report();

    const lengths = active.countTokens(
      missing.map((i) => texts[i]!),
      role,
    );
    const plan = options.planFor?.(active) ?? options.plan ?? DEFAULT_BATCH_PLAN;
    planBoundBy = (plan as { boundBy?: string | null }).boundBy ?? null;
    const batches = planBatches(lengths, plan);
    const onSplit = () => void oomRetries++;
    for (const batch of batches) {
      options.signal?.throwIfAborted();
      const positions = batch.indices.map((j) => missing[j]!);
      const batchTexts = positions.map((i) => texts[i]!);
      let encoded: EncodedBatch;
      try {
        encoded = await encodeAdaptively(active, batchTexts, role, onSplit);
      } catch (e) {
        if (!options.fallback || options.signal?.aborted) throw e;
        fallbackReason = `${active.device} failed (${errorMessage(e)}); continuing on the fallback`;
        active = await options.fallback(e);
        current = active;
        encoded = await encodeAdaptively(active, batchTexts, role, onSplit);
      }
      const vectors = positions.map((_, i) => toStored(encoded, i));
      // NaN or ∞ (an overflow in half precision, a broken kernel) stops the job on any path, before the batch is stored.
      const bad = vectors.map((v, i) => (isFiniteVector(v) ? -1 : i)).filter((i) => i >= 0);
      if (bad.length > 0)
        throw new NonFiniteVectorError(batchesDone + 1, bad.length, vectors.length, positions[bad[0]!]!, role, active.device, active.dtype);
      await cache.put(
        identity,
        encoding,
        options.recordDevice?.(active) ?? active.device,
        positions.map((p, i) => ({ text: keys[p]!, vector: vectors[i]! })),
      );
      if (keep) positions.forEach((p, i) => (out[p] = vectors[i]!));
      tokens += encoded.tokens.reduce((a, b) => a + b, 0);
      done += positions.length;
      if (++batchesDone === 1) {
        warmupTexts = positions.length;
        warmupMs = now() - encodingStarted;
      }
      options.onBatch?.(positions, vectors);
      options.onVectors?.(positions, vectors, 'encoder');
      report();
    }
    return keep ? (out as StoredVector[]) : [];
  }
}

/**
 * Encode one batch; when the device runs out of memory, split it in halves and encode those (recursively,
 * down to single texts), so batch size adapts to what the device can hold. `onSplit` counts the splits.
 */
export async function encodeAdaptively(
  encoder: LoadedEncoder,
  texts: readonly string[],
  role: 'query' | 'passage',
  onSplit?: () => void,
): Promise<EncodedBatch> {
  try {
    return await encoder.encode(texts, role);
  } catch (e) {
    if (texts.length < 2 || !OUT_OF_MEMORY.test(errorMessage(e))) throw e;
    onSplit?.();
    const mid = Math.ceil(texts.length / 2);
    const a = await encodeAdaptively(encoder, texts.slice(0, mid), role, onSplit);
    const b = await encodeAdaptively(encoder, texts.slice(mid), role, onSplit);
    return {
      ...(a.dense && b.dense ? { dense: [...a.dense, ...b.dense] } : {}),
      ...(a.sparse && b.sparse ? { sparse: [...a.sparse, ...b.sparse] } : {}),
      tokens: [...a.tokens, ...b.tokens],
    };
  }
}

/** An in-memory VectorCache (tests, one-shot CLI runs). */
export class MemoryVectorCache implements VectorCache {
  readonly entries = new Map<string, StoredVector>();
  puts = 0;

  async get(encoding: string, keys: readonly string[]): Promise<(StoredVector | undefined)[]> {
    return keys.map((k) => this.entries.get(`${encoding}:${k}`));
  }

  async put(
    _identity: EncodingIdentity,
    encoding: string,
    _device: string,
    entries: readonly { text: string; vector: StoredVector }[],
  ): Promise<void> {
    this.puts++;
    for (const e of entries) this.entries.set(`${encoding}:${e.text}`, e.vector);
  }
}
