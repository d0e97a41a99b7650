/**
 * Encoding a whole collection in the encode worker, cache first: vectors already in IndexedDB are reused, the
 * rest are encoded in length-grouped batches, each committed before the next (a reload loses at most the batch
 * in flight). The model loads only if the cache lacks something, after the page has seen its download plan.
 */
import { transfer } from 'comlink';
import { planModelDownload, planProblem, type EncodedBatch } from '../encoders/encoder.ts';
import { planForLimits, WASM_TENSOR_BUDGET } from '../encoders/device-plan.ts';
import {
  BATCH_PLAN_BY_DEVICE,
  DEFAULT_BATCH_PLAN,
  encodeWithCache,
  type EncodeProgress,
  type Exclusive,
  type LazyEncoder,
} from '../encoders/job.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { CorpusProgress, CorpusRequest, CorpusResult, ModelCallback, VectorsCallback, WorkerLoadResult } from '../lab/encode-types.ts';
import { withFailure, withProblem } from '../lab/problems.ts';
import { EmbeddingStore } from '../store/embeddings.ts';
import { ensureSpace, estimateVectorBytes } from '../store/quota.ts';
import { checkedBefore, judgePath, referenceVectors } from './agreement-check.ts';
import { inBrowserCache, isLocalLoad } from './model-files.ts';
import type { WorkerModels } from './models.ts';
import { describeRuntime } from './runtime-facts.ts';

/**
 * One encoder per encoding in the whole browser: Web Locks are shared by every tab and worker of the origin
 * and let go when a tab closes or crashes. Undefined where the browser has none (each tab then encodes on
 * its own).
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

/** The buffers behind the batch's vectors; each is owned by exactly one vector, so transferring is safe. */
export function transferables(batch: EncodedBatch): ArrayBuffer[] {
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

/**
 * Encode `request.texts` cache first with `models`' encoder (loaded on demand). With `request.agreement`, a
 * path other than WASM fp32 is checked against it on that sample before it encodes anything (agreement-check.ts);
 * a NaN or ∞ in a batch stops the job before the batch is stored (job.ts). A device that fails mid-job fails the
 * job: the bridge reports it and never switches devices on its own.
 */
export async function encodeCorpus(
  models: WorkerModels,
  request: CorpusRequest,
  onProgress?: (p: CorpusProgress) => void,
  onVectors?: VectorsCallback,
  onModel?: ModelCallback,
  /** Sees every vector first, in the worker, before `onVectors` sends it away (the kept dense matrix). */
  onKeep?: (positions: readonly number[], vectors: readonly StoredVector[]) => void,
): Promise<CorpusResult> {
  let load: WorkerLoadResult | null = null;
  const dtype = request.load.dtype ?? request.config.dtype;
  /** The last progress the job reported: the agreement check reports its phase on top of it. */
  let last: EncodeProgress | null = null;
  const lazy: LazyEncoder = {
    config: request.config,
    dtype,
    loaded: () => models.encoderFor(request.config, request.load) !== undefined,
    load: async () => {
      let loadOptions = request.load;
      const sample = request.agreement;
      const before = sample === undefined ? undefined : checkedBefore(models, request.config, loadOptions, dtype, sample);
      // Never trust a path that disagrees: the reference's vectors of the sample first (agreement-check.ts).
      let reference: Awaited<ReturnType<typeof referenceVectors>> = null;
      if (sample !== undefined && before === undefined) {
        const onCheck = () => void (last !== null && onProgress?.({ ...last, phase: 'agreement', device: null }));
        reference = await referenceVectors(models, request.config, loadOptions, dtype, sample, { onModel, onCheck });
      }
      if (models.encoderFor(request.config, loadOptions) === undefined && !isLocalLoad(loadOptions.source)) {
        models.ready();
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
      let loaded = await models.loadEncoder(request.config, loadOptions, onModel);
      const outcome =
        before ??
        (sample === undefined
          ? {}
          : await judgePath(models, { config: request.config, load: request.load, dtype, device: loaded.device }, sample, reference));
      if (outcome.report) loaded = { ...loaded, agreement: outcome.report };
      if (outcome.unchecked) loaded = { ...loaded, agreementUnchecked: outcome.unchecked };
      load = loaded;
      return models.encoder!;
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
      keep: request.returnVectors !== false || (onVectors === undefined && onKeep === undefined),
      // Only what is not cached yet needs room: a resumed job is checked for the rest.
      beforeEncoding: async (toEncode) => void (await ensureSpace(estimateVectorBytes(toEncode, shape))),
      // Planned for the device asked for (the batch size adapts if that device runs out of memory).
      plan: request.plan ?? BATCH_PLAN_BY_DEVICE[request.load.device] ?? DEFAULT_BATCH_PLAN,
      // Once loaded: the device it really runs on, and the model's widest tensors (an MLM head's logits, the
      // attention scores) against the adapter's buffer limits on WebGPU, a tensor budget on WASM.
      planFor: (encoder) => {
        const base = request.plan ?? BATCH_PLAN_BY_DEVICE[encoder.device] ?? DEFAULT_BATCH_PLAN;
        const limits = encoder.device === 'webgpu' ? (load?.limits ?? null) : encoder.device === 'wasm' ? WASM_TENSOR_BUDGET : null;
        return limits !== null && encoder.shape ? planForLimits(base, encoder.shape, limits, encoder.config.maxLength) : base;
      },
      // Who made the vectors, as the cache records it (and a pack exported from it says).
      recordDevice: () => (load === null ? request.load.device : describeRuntime(load)),
      onProgress: (p: EncodeProgress) => {
        last = p;
        cached = p.cached;
        const loaded: WorkerLoadResult | null = load;
        // Fire and forget: the page's callback is a comlink proxy; awaiting it would stall encoding.
        void onProgress?.(loaded !== null && p.phase === 'encoding' ? { ...p, load: loaded } : p);
      },
      ...(onVectors === undefined && onKeep === undefined
        ? {}
        : {
            onVectors: (positions: readonly number[], vectors: readonly StoredVector[], from: 'cache' | 'encoder') => {
              onKeep?.(positions, vectors);
              // Not awaited here either, but collected: the result must not overtake the last vectors (comlink
              // answers on another port than the callback's, so ordering across them is not guaranteed).
              if (onVectors !== undefined) delivered.push(Promise.resolve(onVectors(positions, vectors, from)));
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
}
