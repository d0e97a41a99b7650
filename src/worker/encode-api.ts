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
import { answerWithCache } from '../encoders/answer-job.ts';
import { DenseIndex, denseSession, searchDenseIndex, type OrtLike, type OrtSession } from '../encoders/dense-onnx.ts';
import type { EncodedBatch } from '../encoders/encoder.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncoderConfig } from '../encoders/presets.ts';
import type { LoadedReader } from '../encoders/reader.ts';
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
  JudgeProgress,
  JudgeRequest,
  JudgeResult,
  VerdictsCallback,
  ModelCallback,
  VectorsCallback,
  WorkerDevice,
  WorkerInitOptions,
  WorkerLoadOptions,
  WorkerLoadResult,
} from '../lab/encode-types.ts';
import type { LocalModelFile } from '../lab/local-model.ts';
import { AnswerStore } from '../store/answers.ts';
import { VerdictStore } from '../store/verdicts.ts';
import { judgeIdentity, judgeWithCache } from '../encoders/judge-job.ts';
import type { JudgeConfig } from '../encoders/judge-presets.ts';
import { encodeCorpus, transferables } from './corpus-job.ts';
import { WorkerModels } from './models.ts';
import { loseWebGpuDevice, pickSearchDevice, type OrtWasmPaths } from './onnx-runtime.ts';

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

/** The encode worker's calls, with their own models in memory (one encoder and one reader at a time: models.ts). */
export function createEncodeApi(options: EncodeApiOptions = {}) {
  const models = new WorkerModels(options);
  /**
   * The document matrix kept for searches (one at a time: keeping another replaces it), as transposed blocks,
   * and its search session per runtime device, made once.
   */
  let kept: { id: string; index: DenseIndex; sessions: Map<string, Promise<OrtSession>> } | null = null;
  const dropKept = async (): Promise<void> => {
    const sessions = kept?.sessions;
    kept = null;
    for (const s of sessions?.values() ?? []) await (await s.catch(() => null))?.release();
  };
  const api = {
    /** Optional: runtime settings. Calling `load` first applies the defaults. */
    async init(opts: WorkerInitOptions = {}): Promise<void> {
      models.init(opts);
    },

    /** Load (or keep, when identical) the encoder for `config`; reports the device actually used. */
    load(config: EncoderConfig, load: WorkerLoadOptions, onDownload?: ModelCallback): Promise<WorkerLoadResult> {
      return models.loadEncoder(config, load, onDownload);
    },

    /**
     * Make a picked model folder loadable as `name` ("local/<folder>"): later loads with
     * `source: { localModelPath: LOCAL_MODEL_ROOT, allowRemote: false }` read these bytes and nothing else.
     * Paths are relative to the model folder ("config.json", "onnx/model.onnx"). Blobs/Files arrive without a
     * copy; raw ArrayBuffers may be transferred. Registering a name again replaces its files.
     */
    registerLocalModel(name: string, files: readonly LocalModelFile[]): Promise<void> {
      return models.register(name, files);
    },

    /** Forget a registered folder (frees its bytes once no load holds them). */
    unregisterLocalModel(name: string): Promise<boolean> {
      return models.unregister(name);
    },

    /** Names of the registered local model folders. */
    async localModelNames(): Promise<string[]> {
      return models.localNames();
    },

    /** Encode with the loaded encoder; vectors are transferred to the caller, not copied. */
    async encode(texts: readonly string[], role: 'query' | 'passage'): Promise<EncodedBatch> {
      const encoder = models.encoder;
      if (encoder === undefined) throw new Error('encode() called before load()');
      const batch = await encoder.encode(texts, role);
      return transfer(batch, transferables(batch));
    },

    /** Encode a whole collection cache first, batch by batch, each committed before the next (corpus-job.ts). */
    async encodeCorpus(
      request: CorpusRequest,
      onProgress?: (p: CorpusProgress) => void,
      onVectors?: VectorsCallback,
      onModel?: ModelCallback,
    ): Promise<CorpusResult> {
      const id = request.keepDense;
      if (id === undefined) return encodeCorpus(models, request, onProgress, onVectors, onModel);
      if (request.config.kind !== 'dense')
        throw new Error(`keepDense keeps dense vectors; ${request.config.model} is ${request.config.kind}`);
      await dropKept();
      let index: DenseIndex | null = null;
      const keep = (positions: readonly number[], vectors: readonly StoredVector[]) =>
        positions.forEach((row, i) => {
          const v = vectors[i]!.dense!;
          (index ??= new DenseIndex(request.texts.length, v.length)).setRow(row, v);
        });
      const result = await encodeCorpus(models, request, onProgress, onVectors, onModel, keep);
      const done: DenseIndex = index ?? new DenseIndex(0, 1);
      done.checkComplete(`the kept matrix "${id}"`);
      kept = { id, index: done, sessions: new Map() };
      return result;
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
      const used: { device: WorkerDevice | null; reason: string | null; externalWeights: AnswerResult['externalWeights'] } = {
        device: null,
        reason: null,
        externalWeights: null,
      };
      const load = async (): Promise<LoadedReader> => {
        const { reader, device, reason } = await models.loadReader(request.reader, request.load, dtype, onModel);
        used.device = device;
        used.reason = reason;
        const p = reader.prepared ?? null;
        used.externalWeights =
          p === null
            ? null
            : { tensors: p.externalTensors, bytes: p.externalBytes, lazy: p.lazy, ...(p.lazyFallback ? { reason: p.lazyFallback } : {}) };
        return reader;
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

    /**
     * Judge (query, passage) pairs, cache first: verdicts already in IndexedDB are delivered at once and the judge
     * (loaded only if one is missing) makes the rest, each batch stored before the next. Cancelling is the
     * bridge's: it ends this worker; every stored verdict stays.
     */
    async judgePairs(
      request: JudgeRequest,
      onProgress?: (p: JudgeProgress) => void,
      onVerdicts?: VerdictsCallback,
      onModel?: ModelCallback,
    ): Promise<JudgeResult> {
      const dtype = request.load.dtype ?? request.judge.dtype;
      const identity = await judgeIdentity(request.judge);
      const used: { device: WorkerDevice | null; reason: string | null } = { device: null, reason: null };
      const store = await VerdictStore.open(request.dbName);
      try {
        const result = await judgeWithCache(
          {
            load: async () => {
              const { judge, device, reason } = await models.loadJudge(request.judge, request.load, dtype as JudgeConfig['dtype'], onModel);
              used.device = device;
              used.reason = reason;
              return judge;
            },
          },
          store,
          request.tasks,
          {
            identity,
            ...(request.cacheOnly === true ? { cacheOnly: true } : {}),
            ...(onProgress ? { onProgress: (p: JudgeProgress) => void onProgress({ ...p, device: used.device }) } : {}),
            ...(onVerdicts ? { onVerdicts: (records, from) => void onVerdicts(records, from) } : {}),
          },
        );
        return { cached: result.cached, judged: result.judged, device: used.device, reason: used.reason, identity };
      } finally {
        store.close();
      }
    },

    /** Test hook: destroy ONNX Runtime's WebGPU device, as a driver reset or GPU process crash would. */
    loseWebGpuDeviceForTesting(): Promise<boolean> {
      return loseWebGpuDevice();
    },

    /**
     * Keep a document matrix of `rows` × `dim` for searches, under `id` (replacing any kept before), filled by
     * `keepDenseRows`: the rows arrive in pieces (transferred) and go straight into the transposed blocks the
     * search reads, so neither side ever holds the matrix twice.
     */
    async keepDenseDocs(id: string, rows: number, dim: number): Promise<void> {
      await dropKept();
      kept = { id, index: new DenseIndex(rows, dim), sessions: new Map() };
    },

    /** Rows [first, first + data.length/dim) of the kept matrix `id`, row-major. */
    async keepDenseRows(id: string, first: number, data: Float32Array): Promise<void> {
      if (kept?.id !== id) throw new Error(`no dense matrix "${id}" is kept (keepDenseDocs first)`);
      kept.index.setRows(first, data);
    },

    /** Rows of the kept matrix `id` (transferred): what a corpus job kept, read back without sending the whole. */
    async keptDenseRows(id: string, rows: readonly number[]): Promise<Float32Array[]> {
      if (kept?.id !== id) throw new Error(`no dense matrix "${id}" is kept (keepDenseDocs first)`);
      const index = kept.index;
      const out = rows.map((r) => index.row(r));
      return transfer(
        out,
        out.map((v) => v.buffer as ArrayBuffer),
      );
    },

    /** Forget the kept matrix (and its sessions). */
    dropDenseDocs(): Promise<void> {
      return dropKept();
    },

    /**
     * Exact dense top-k (MatMul + TopK on ONNX Runtime) on WebGPU when an adapter is granted, else WASM, over the
     * kept matrix `docs` names, or over rows given with the call (row-major float32, indexed for this call only).
     * Results come back transferred.
     */
    async denseSearch(docs: DenseRows | string, queries: DenseRows, k: number, device: WorkerDevice): Promise<DenseSearchResult> {
      models.ready();
      const ort = options.ort;
      if (ort === undefined) throw new Error('denseSearch needs an ONNX Runtime (createEncodeApi({ ort }))');
      // Taken now: a keep or drop arriving while the device is picked must not change what this search reads.
      const resident = typeof docs === 'string' ? kept : null;
      if (typeof docs === 'string' && resident?.id !== docs) throw new Error(`no dense matrix "${docs}" is kept (keepDenseDocs first)`);
      resident?.index.checkComplete(`the kept matrix "${resident.id}"`);
      const { device: used, reason } = await pickSearchDevice(device);
      const runtime = models.runtimeDevice(used);
      const sessionOptions = { executionProviders: [runtime] };
      let hits;
      if (resident !== null) {
        let session = resident.sessions.get(runtime);
        if (session === undefined) resident.sessions.set(runtime, (session = denseSession(ort, sessionOptions)));
        hits = await searchDenseIndex(ort, await session, resident.index, queries, k);
      } else {
        const session = await denseSession(ort, sessionOptions);
        try {
          hits = await searchDenseIndex(ort, session, DenseIndex.from(docs as DenseRows), queries, k);
        } finally {
          await session.release();
        }
      }
      const result = { indices: hits.map((h) => h.indices), scores: hits.map((h) => h.scores), device: used, reason };
      return transfer(
        result,
        hits.flatMap((h) => [h.indices.buffer as ArrayBuffer, h.scores.buffer as ArrayBuffer]),
      );
    },

    async dispose(): Promise<void> {
      await dropKept();
      return models.dispose();
    },
  };
  return api;
}

export type EncodeApi = ReturnType<typeof createEncodeApi>;
