/**
 * Main-thread side of the encode worker (squoosh's worker-bridge pattern): the worker starts on the first
 * call, calls run one at a time, every call takes an AbortSignal, and the worker is ended after
 * WORKER_IDLE_MS without calls. Aborting a running call terminates the worker (the only way to stop an
 * ONNX Runtime session mid-run) and rejects with an AbortError; the next call starts a fresh worker and
 * reloads the model. A call that fails also ends its worker (see #run). Only the worker API's *types* are
 * imported (src/worker/encode-api.ts, encode-types.ts): no worker code is bundled into the page.
 */
import { errorMessage } from '../../core/error-message.ts';
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { installErrorTransfer } from '../../lab/errors.ts';
import type { EncodedBatch } from '../../encoders/encoder.ts';
import type { EncoderConfig } from '../../encoders/presets.ts';
import type { EncodeApi } from '../../worker/encode-api.ts';
import type {
  AnswerCallback,
  AnswerProgress,
  AnswerRequest,
  JudgeProgress,
  JudgeRequest,
  JudgeResult,
  VerdictsCallback,
  AnswerResult,
  CorpusProgress,
  CorpusRequest,
  CorpusResult,
  DenseRows,
  DenseSearchResult,
  VectorsCallback,
  WorkerDevice,
  WorkerInitOptions,
  WorkerLoadOptions,
  WorkerLoadResult,
  ModelCallback,
} from '../../lab/encode-types.ts';
import { asBlob, validateRegisteredModel, type LocalModelFile } from '../../lab/local-model.ts';
import { failureOf, problemOf, withFailure } from '../../lab/problems.ts';

export type {
  AnswerCallback,
  AnswerProgress,
  AnswerRequest,
  AnswerResult,
  CorpusProgress,
  CorpusRequest,
  CorpusResult,
  ModelCallback,
  ModelEvent,
  VectorsCallback,
  WorkerInitOptions,
  WorkerLoadOptions,
  WorkerLoadResult,
} from '../../lab/encode-types.ts';

// Errors from the workers keep their fields (file, line, reason; bytes needed and free).
installErrorTransfer();

/** A worker with no call for this long is terminated (frees the model and its GPU/wasm memory). */
export const WORKER_IDLE_MS = 60_000;

export interface EncodeBridgeOptions {
  readonly idleMs?: number;
  /** Settings sent to every fresh worker before its first call. */
  readonly init?: WorkerInitOptions;
  /** Tests and alternative builds may supply their own worker. */
  readonly createWorker?: () => Worker;
}

export interface EncodeRequest {
  readonly config: EncoderConfig;
  readonly load: WorkerLoadOptions;
  readonly texts: readonly string[];
  readonly role: 'query' | 'passage';
}

export interface EncodeResponse {
  /** Device actually used, and why it differs from the request. */
  readonly load: WorkerLoadResult;
  readonly batch: EncodedBatch;
}

interface WorkerHandle {
  readonly worker: Worker;
  readonly api: Remote<EncodeApi>;
  /** Settles (rejects) only when the worker is terminated or crashes. */
  readonly dead: Promise<never>;
  readonly fail: (reason: Error) => void;
  readonly ready: Promise<void>;
  killed: boolean;
}

const isAbortError = (e: unknown): boolean => e instanceof DOMException && e.name === 'AbortError';

/** The error every aborted call rejects with (same as `fetch`). */
export function abortError(): DOMException {
  return new DOMException('The encode call was aborted.', 'AbortError');
}

const defaultWorker = (): Worker =>
  new Worker(new URL('../../../workers/encode.worker.ts', import.meta.url), { type: 'module', name: 'fliplab-encode' });

const noop = (): void => undefined;

export class EncodeBridge {
  readonly #idleMs: number;
  readonly #init: WorkerInitOptions;
  readonly #createWorker: () => Worker;
  #handle: WorkerHandle | undefined;
  #tail: Promise<void> = Promise.resolve();
  #busy = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #workerStarts = 0;
  /** Registered local model folders, replayed to every fresh worker (after an abort, crash or idle end). */
  readonly #localModels = new Map<string, readonly { readonly path: string; readonly bytes: Blob }[]>();

  constructor(options: EncodeBridgeOptions = {}) {
    this.#idleMs = options.idleMs ?? WORKER_IDLE_MS;
    this.#init = options.init ?? {};
    this.#createWorker = options.createWorker ?? defaultWorker;
  }

  /** Workers started so far (a fresh one after each abort, crash or idle shutdown). */
  get workerStarts(): number {
    return this.#workerStarts;
  }

  get running(): boolean {
    return this.#handle !== undefined;
  }

  /** Names of the local model folders registered with this bridge. */
  get localModels(): string[] {
    return [...this.#localModels.keys()];
  }

  /**
   * Make a picked model folder (see `prepareLocalModel`) loadable as `name` with
   * `source: localModelSource()`. The bridge keeps the files (as Blobs: a picked File is not copied) and
   * registers them with every worker it starts, so loads keep working after an abort, a crash or an idle end.
   */
  async registerLocalModel(name: string, files: readonly LocalModelFile[], signal?: AbortSignal): Promise<void> {
    // Checked here too: a folder every fresh worker would refuse must never reach the replay list.
    validateRegisteredModel(
      name,
      files.map((f) => f.path),
    );
    const blobs = files.map((f) => ({ path: f.path, bytes: asBlob(f.bytes) }));
    this.#localModels.set(name, blobs);
    // A worker started from now on gets it from the replay; a running one gets it here.
    if (this.#handle === undefined) return;
    await this.#run(signal, (api) => api.registerLocalModel(name, blobs));
  }

  /** Forget a local model folder here and in the running worker. */
  async unregisterLocalModel(name: string): Promise<boolean> {
    const had = this.#localModels.delete(name);
    if (this.#handle !== undefined) await this.#run(undefined, (api) => api.unregisterLocalModel(name));
    return had;
  }

  /** Load a model (kept if already loaded) and report the device it runs on. */
  load(config: EncoderConfig, options: WorkerLoadOptions, signal?: AbortSignal): Promise<WorkerLoadResult> {
    return this.#run(signal, (api) => api.load(config, options));
  }

  /** Load (if needed) and encode one batch. A fresh worker after an abort reloads the model first. */
  encode(request: EncodeRequest, signal?: AbortSignal): Promise<EncodeResponse> {
    return this.#run(signal, async (api) => {
      const load = await api.load(request.config, request.load);
      const batch = await api.encode(request.texts, request.role);
      return { load, batch };
    });
  }

  /**
   * Encode a collection cache first in the worker (IndexedDB), with progress. Aborting ends the worker;
   * every batch committed before that is kept, so the next call resumes where this one stopped. A job on WebGPU
   * that fails for a reason of the device's (lost, out of memory, a driver reset) rejects with a
   * `device-lost` failure: the bridge never continues on another device on its own, since vectors from two
   * paths would then make one run unannounced; the page says so and offers WASM.
   */
  async encodeCorpus(
    request: CorpusRequest,
    onProgress?: (p: CorpusProgress) => void,
    signal?: AbortSignal,
    onVectors?: VectorsCallback,
    onModel?: ModelCallback,
  ): Promise<CorpusResult> {
    const run = (r: CorpusRequest, progress: (p: CorpusProgress) => void) =>
      this.#run(signal, (api) =>
        api.encodeCorpus(r, proxy(progress), onVectors ? proxy(onVectors) : undefined, onModel ? proxy(onModel) : undefined),
      );
    let onWebGpu = false;
    const watch = (p: CorpusProgress) => {
      if (p.phase === 'encoding' && p.load !== undefined) onWebGpu = p.load.device === 'webgpu';
      onProgress?.(p);
    };
    try {
      return await run(request, watch);
    } catch (error) {
      // Only a job that was encoding on WebGPU, failing with no reason of its own (a refusal, a model that did
      // not load, NaN), failed because of the device. The worker is gone; every batch committed is kept.
      if (!onWebGpu || signal?.aborted || isAbortError(error) || failureOf(error) !== null || problemOf(error) !== null) throw error;
      const said = `WebGPU failed mid-job (${errorMessage(error)})`;
      const kept = 'the vectors committed before are kept, and nothing was encoded on another device';
      throw withFailure(new Error(`${said}; ${kept}`, { cause: error }), 'device-lost');
    }
  }

  /**
   * Answer questions with a reader in the worker, cache first (IndexedDB). Aborting ends the worker; every
   * answer stored before that is kept, so the next call (or a reload) resumes where this one stopped.
   */
  answerQuestions(
    request: AnswerRequest,
    onProgress?: (p: AnswerProgress) => void,
    onAnswer?: AnswerCallback,
    signal?: AbortSignal,
    onModel?: ModelCallback,
  ): Promise<AnswerResult> {
    return this.#run(signal, (api) =>
      api.answerQuestions(
        request,
        onProgress ? proxy(onProgress) : undefined,
        onAnswer ? proxy(onAnswer) : undefined,
        onModel ? proxy(onModel) : undefined,
      ),
    );
  }

  /**
   * Judge pairs with a model in the worker, cache first (IndexedDB). Aborting ends the worker; every verdict
   * stored before that is kept, so the next call (or a reload) resumes where this one stopped.
   */
  judgePairs(
    request: JudgeRequest,
    onProgress?: (p: JudgeProgress) => void,
    onVerdicts?: VerdictsCallback,
    signal?: AbortSignal,
    onModel?: ModelCallback,
  ): Promise<JudgeResult> {
    return this.#run(signal, (api) =>
      api.judgePairs(
        request,
        onProgress ? proxy(onProgress) : undefined,
        onVerdicts ? proxy(onVerdicts) : undefined,
        onModel ? proxy(onModel) : undefined,
      ),
    );
  }

  /** Test hook (e2e): make the worker's WebGPU device lost, as a driver reset would. */
  loseWebGpuDeviceForTesting(): Promise<boolean> {
    const handle = this.#handle;
    return handle ? handle.api.loseWebGpuDeviceForTesting() : Promise.resolve(false);
  }

  /**
   * Keep a document matrix in the worker for any number of searches (`denseSearch(id, …)`), sent in pieces of
   * `chunkRows` rows that are transferred, not copied: `rowsOf(first, count)` gives each piece (row-major), so the
   * caller need not hold the matrix whole either. One matrix is kept at a time.
   */
  async keepDenseDocs(
    id: string,
    rows: number,
    dim: number,
    rowsOf: (first: number, count: number) => Float32Array,
    chunkRows = 4096,
  ): Promise<void> {
    await this.#run(undefined, (api) => api.keepDenseDocs(id, rows, dim));
    for (let first = 0; first < rows; first += chunkRows) {
      const piece = rowsOf(first, Math.min(chunkRows, rows - first));
      await this.#run(undefined, (api) => api.keepDenseRows(id, first, transfer(piece, [piece.buffer as ArrayBuffer])));
    }
  }

  /** Rows of the kept matrix `id`, as given to it. */
  keptDenseRows(id: string, rows: readonly number[]): Promise<Float32Array[]> {
    return this.#run(undefined, (api) => api.keptDenseRows(id, rows));
  }

  /** Forget the kept matrix (the worker also drops it when it ends: idle, Cancel or a failure). */
  dropDenseDocs(): Promise<void> {
    return this.#run(undefined, (api) => api.dropDenseDocs());
  }

  /** Exact dense top-k in the worker (WebGPU when granted, else WASM), over a kept matrix (its id) or rows given now. */
  denseSearch(
    docs: DenseRows | string,
    queries: DenseRows,
    k: number,
    device: WorkerDevice,
    signal?: AbortSignal,
  ): Promise<DenseSearchResult> {
    return this.#run(signal, (api) => api.denseSearch(docs, queries, k, device));
  }

  /** End the worker now; calls in flight reject. */
  terminate(): void {
    if (this.#handle) this.#kill(this.#handle, new Error('Encode worker was terminated.'));
  }

  async #run<T>(signal: AbortSignal | undefined, job: (api: Remote<EncodeApi>) => Promise<T>): Promise<T> {
    if (signal?.aborted) throw abortError();
    let handle: WorkerHandle | undefined;
    const work = this.#tail.then(async () => {
      if (signal?.aborted) throw abortError();
      handle = this.#ensureWorker();
      this.#busy++;
      this.#clearIdle();
      const h = handle;
      try {
        return await Promise.race([
          h.ready
            .then(() => job(h.api))
            .catch((error: unknown) => {
              // A failed call leaves the worker's runtime in an unknown state: transformers.js chains every
              // web session creation and run on one promise, so a single failure (a corrupt model.onnx)
              // rejects every later load in that worker. End it; the next call starts clean.
              this.#kill(h, error instanceof Error ? error : new Error(String(error)));
              throw error;
            }),
          h.dead,
        ]);
      } finally {
        this.#busy--;
        this.#scheduleIdle();
      }
    });
    this.#tail = work.then(noop, noop);
    if (signal === undefined) return work;

    let onAbort = noop;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        reject(abortError());
        // Running on the worker: only terminating it stops the session. Still queued: just drop it.
        if (handle) this.#kill(handle, new Error('Encode worker was terminated because a call was aborted.'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  #ensureWorker(): WorkerHandle {
    if (this.#handle) return this.#handle;
    const worker = this.#createWorker();
    this.#workerStarts++;
    let fail: (reason: Error) => void = noop;
    const dead = new Promise<never>((_, reject) => {
      fail = reject;
    });
    dead.catch(noop);
    const api = wrap<EncodeApi>(worker);
    // The folders registered so far, replayed before the first call (a registration made while this worker
    // runs is sent by registerLocalModel itself).
    const replay = [...this.#localModels];
    const ready = api.init(this.#init).then(async () => {
      for (const [name, files] of replay) await api.registerLocalModel(name, files);
    });
    const handle: WorkerHandle = { worker, api, dead, fail, ready, killed: false };
    handle.ready.catch(noop);
    // Uncaught errors (e.g. the worker script failed to load) would otherwise leave calls hanging forever.
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.#kill(handle, new Error(`Encode worker failed: ${event.message || 'script error (worker did not start)'}`));
    });
    worker.addEventListener('messageerror', () => this.#kill(handle, new Error('Encode worker sent a message that could not be read.')));
    this.#handle = handle;
    return handle;
  }

  #kill(handle: WorkerHandle, reason: Error): void {
    if (this.#handle === handle) {
      this.#handle = undefined;
      this.#clearIdle();
    }
    if (handle.killed) return;
    handle.killed = true;
    handle.api[releaseProxy]();
    handle.worker.terminate();
    handle.fail(reason);
  }

  #clearIdle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #scheduleIdle(): void {
    this.#clearIdle();
    const handle = this.#handle;
    if (this.#busy > 0 || handle === undefined) return;
    this.#idleTimer = setTimeout(() => this.#kill(handle, new Error('Encode worker ended after being idle.')), this.#idleMs);
  }
}
