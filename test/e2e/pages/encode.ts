/**
 * Test page: the real bridge + worker, driven by test/e2e/encode.e2e.test.ts through `window.fliplabTest`.
 * Models come from the page's own origin, which the test's hub server serves in the hub URL layout.
 * `?cache=0` turns off transformers.js's Cache Storage for model files; `?idleMs=N` shortens the idle shutdown.
 */
import { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import { localModelSource, prepareLocalModel, type PickedFile } from '../../../src/lab/local-model.ts';
import type { EncoderDtype } from '../../../src/encoders/presets.ts';
import { READER_TEMPLATE, type ReaderTask, type ReaderTemplate } from '../../../src/core/answers/prompt.ts';
import type { ReaderConfig } from '../../../src/encoders/reader-presets.ts';
import type { JudgeConfig } from '../../../src/encoders/judge-presets.ts';
import type { PairTask } from '../../../src/encoders/judge-job.ts';
import type { WorkerDevice, WorkerLoadOptions } from '../../../src/lab/encode-types.ts';
import {
  testConfig,
  type PlainCorpusResult,
  type PlainEncodeResult,
  type PlainError,
  type StoredVectorsInfo,
  type TestKind,
} from './configs.ts';
import { keptCorpusHelpers } from './kept-corpus.ts';

const params = new URLSearchParams(location.search);
const useBrowserCache = params.get('cache') !== '0';
const idleMs = params.has('idleMs') ? Number(params.get('idleMs')) : undefined;
/** ORT wasm threads (more than 1 needs the page served cross-origin isolated). */
const numThreads = params.has('threads') ? Number(params.get('threads')) : undefined;
const bridges = new Map<WorkerDevice, EncodeBridge>();

function bridgeFor(device: WorkerDevice): EncodeBridge {
  let bridge = bridges.get(device);
  if (!bridge) {
    bridge = new EncodeBridge({
      init: { useBrowserCache, ...(numThreads === undefined ? {} : { numThreads }) },
      ...(idleMs === undefined ? {} : { idleMs }),
    });
    bridges.set(device, bridge);
  }
  return bridge;
}

async function encodeWith(
  device: WorkerDevice,
  modelId: string,
  kind: TestKind,
  texts: readonly string[],
  role: 'query' | 'passage',
  signal?: AbortSignal,
  /** Default: the page's own origin in the hub layout. A picked local folder: its source and revision. */
  local?: { readonly revision: string },
  dtype: EncoderDtype = 'fp32',
): Promise<PlainEncodeResult> {
  const started = performance.now();
  const bridge = bridgeFor(device);
  const source: WorkerLoadOptions['source'] = local ? localModelSource() : { remoteHost: location.origin, allowRemote: true };
  const config = local ? { ...testConfig(kind, modelId), revision: local.revision } : testConfig(kind, modelId);
  const { load, batch } = await bridge.encode({ config, load: { device, dtype, source }, texts, role }, signal);
  return {
    device: load.device,
    reason: load.reason,
    dtype: load.dtype,
    adapterInfo: load.adapterInfo,
    tokens: batch.tokens,
    pooledOnDevice: batch.pooledOnDevice === true,
    externalWeights: load.externalWeights?.tensors ?? 0,
    lazyWeights: load.externalWeights?.lazy === true,
    workerStarts: bridge.workerStarts,
    elapsedMs: performance.now() - started,
    ...(batch.dense ? { dense: batch.dense.map((v) => Array.from(v)), denseTypes: batch.dense.map((v) => v.constructor.name) } : {}),
    ...(batch.sparse ? { sparse: batch.sparse.map((s) => ({ indices: Array.from(s.indices), values: Array.from(s.values) })) } : {}),
  };
}

function plainError(error: unknown, started: number, device: WorkerDevice): PlainError {
  const e = error instanceof Error || error instanceof DOMException ? error : new Error(String(error));
  return {
    error: { name: e.name, message: e.message },
    elapsedMs: performance.now() - started,
    workerStarts: bridgeFor(device).workerStarts,
  };
}

/** Progress of the corpus job started by startCorpus (read by the test while it runs). */
let corpusProgress: { done: number; cached: number; total: number } | null = null;
let corpusJob: Promise<unknown> | null = null;

async function encodeCorpus(
  device: WorkerDevice,
  modelId: string,
  kind: TestKind,
  texts: readonly string[],
  dbName: string,
): Promise<PlainCorpusResult> {
  const result = await bridgeFor(device).encodeCorpus(
    {
      config: testConfig(kind, modelId),
      load: { device, dtype: 'fp32', source: { remoteHost: location.origin, allowRemote: true } },
      texts,
      role: 'passage',
      plan: { maxTokens: 4096, maxBatch: 2 },
      dbName,
    },
    (p) => (corpusProgress = { done: p.done, cached: p.cached, total: p.total }),
  );
  return {
    cached: result.cached,
    encoded: result.encoded,
    device: result.load?.device ?? 'cache',
    fallback: result.fallback ?? null,
    dense: result.vectors.map((v) => Array.from(v.dense ?? [])),
  };
}

/**
 * Answer reader tasks (built in Node: core/answers/prompt.ts) in the worker, cache first in IndexedDB
 * `dbName`; answers in task order, the device used, and the last tokens/s the worker reported.
 */
/** Answers delivered so far by the running answerTasks call (read by the test while it runs). */
let answersSoFar = 0;
let answersJob: Promise<unknown> | null = null;

async function answerTasks(
  device: WorkerDevice,
  modelOrReader: string | ReaderConfig,
  tasks: readonly ReaderTask[],
  dbName: string,
  k: number,
  template: ReaderTemplate = READER_TEMPLATE,
) {
  const reader: ReaderConfig =
    typeof modelOrReader === 'string'
      ? { id: modelOrReader, label: modelOrReader, model: modelOrReader, revision: 'main', dtype: 'fp32' }
      : modelOrReader;
  const started = performance.now();
  const predictions = new Map<string, string>();
  let tokensPerSecond: number | null = null;
  const downloaded = new Set<string>();
  answersSoFar = 0;
  const result = await bridgeFor(device).answerQuestions(
    {
      reader,
      load: { device, source: { remoteHost: location.origin, allowRemote: true } },
      template,
      k,
      tasks,
      dbName,
    },
    (p) => {
      if (p.tokensPerSecond !== null) tokensPerSecond = p.tokensPerSecond;
    },
    (queryId, prediction) => {
      predictions.set(queryId, prediction);
      answersSoFar = predictions.size;
    },
    undefined,
    (event) => {
      if (event.kind === 'download') downloaded.add(event.file);
    },
  );
  return {
    ...result,
    tokensPerSecond,
    /** Files the reader load reported bytes for (none when the model was already loaded or not needed). */
    downloaded: [...downloaded].sort(),
    elapsedMs: performance.now() - started,
    predictions: tasks.map((t) => predictions.get(t.queryId) ?? null),
  };
}

const fliplabTest = {
  answerTasks,
  /** Start answerTasks without waiting (the test reloads the page mid-run). */
  startAnswers(device: WorkerDevice, modelId: string, tasks: readonly ReaderTask[], dbName: string, k: number): void {
    answersJob = answerTasks(device, modelId, tasks, dbName, k).catch((e: unknown) => ({ error: String(e) }));
  },
  answersSoFar: () => answersSoFar,
  answersResult: () => answersJob,
  async tryAnswerTasks(device: WorkerDevice, modelId: string, tasks: readonly ReaderTask[], dbName: string, k: number) {
    const started = performance.now();
    try {
      return await answerTasks(device, modelId, tasks, dbName, k);
    } catch (error) {
      return plainError(error, started, device);
    }
  },
  /** tryAnswerTasks with a whole reader config (dtype, revision), and a template other than the reader's (the query writer). */
  async tryAnswerTasksWith(
    device: WorkerDevice,
    reader: ReaderConfig,
    tasks: readonly ReaderTask[],
    dbName: string,
    k: number,
    template?: ReaderTemplate,
  ) {
    const started = performance.now();
    try {
      return await answerTasks(device, reader, tasks, dbName, k, template);
    } catch (error) {
      return plainError(error, started, device);
    }
  },
  /**
   * Judge pairs with a judge (cache first, IndexedDB `dbName`), timed after a warm-up batch: pairs per second of the
   * measured ones, the device used, and each verdict (score, probabilities) in the order given; or the error.
   */
  async judgeWith(device: WorkerDevice, judge: JudgeConfig, warm: readonly PairTask[], tasks: readonly PairTask[], dbName: string) {
    const started = performance.now();
    try {
      const load = { device, source: { remoteHost: location.origin, allowRemote: true } };
      await bridgeFor(device).judgePairs({ judge, load, tasks: warm, dbName });
      const verdicts = new Map<string, { score: number; probabilities?: readonly number[] }>();
      const t0 = performance.now();
      const result = await bridgeFor(device).judgePairs({ judge, load, tasks, dbName }, undefined, (records) => {
        for (const r of records)
          verdicts.set(`${r.qid}\u0000${r.docid}`, { score: r.score, ...(r.probabilities ? { probabilities: r.probabilities } : {}) });
      });
      const ms = performance.now() - t0;
      return {
        pairsPerSecond: (result.judged * 1000) / ms,
        judged: result.judged,
        device: result.device,
        verdicts: tasks.map((t) => verdicts.get(`${t.qid}\u0000${t.docid}`) ?? null),
      };
    } catch (error) {
      return plainError(error, started, device);
    }
  },
  /** Cache-first encoding of a whole collection into IndexedDB `dbName`, awaited. */
  encodeCorpus,
  /**
   * A corpus job as the lab runs one (its dtype; the agreement sample when given: agreement.ts), timed: when each
   * phase began, from the call (ms), the end, what the check found; or the error, with its fields.
   */
  async timedCorpus(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    texts: readonly string[],
    dbName: string,
    dtype: EncoderDtype,
    agreement?: { readonly queries: readonly string[]; readonly passages: readonly string[] },
  ) {
    const started = performance.now();
    const phases: { phase: string; ms: number }[] = [];
    try {
      const result = await bridgeFor(device).encodeCorpus(
        {
          config: testConfig(kind, modelId),
          load: { device, dtype, source: { remoteHost: location.origin, allowRemote: true } },
          texts,
          role: 'passage',
          dbName,
          returnVectors: false,
          ...(agreement === undefined ? {} : { agreement }),
        },
        (p) => {
          if (phases.at(-1)?.phase !== p.phase) phases.push({ phase: p.phase, ms: performance.now() - started });
        },
      );
      const load = result.load;
      return {
        phases,
        ms: performance.now() - started,
        encoded: result.encoded,
        device: load?.device ?? 'cache',
        agreement: load?.agreement ?? null,
      };
    } catch (error) {
      const e = error as Error & Record<string, unknown>;
      return {
        phases,
        ms: performance.now() - started,
        error: { name: e.name, message: e.message, stack: e.stack ?? '', failure: e.failure ?? null },
      };
    }
  },
  /**
   * bench:encode --real-shapes: a collection encoded with the device's own batch plan (no plan given: the
   * device's base plan, narrowed by its limits), with what the job's last progress said and the vectors.
   */
  async measureCorpus(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], dbName: string) {
    const started = performance.now();
    try {
      let last: Record<string, unknown> = {};
      const result = await bridgeFor(device).encodeCorpus(
        {
          config: testConfig(kind, modelId),
          load: { device, dtype: 'fp32', source: { remoteHost: location.origin, allowRemote: true } },
          texts,
          role: 'passage',
          dbName,
        },
        (p) =>
          (last = {
            batches: p.batches ?? 0,
            oomRetries: p.oomRetries ?? 0,
            planBoundBy: p.planBoundBy ?? null,
            perSecond: p.perSecond,
            tokens: p.tokens,
          }),
      );
      const ms = performance.now() - started;
      // One more passage through the loaded model, to see how its output came back (pooled in the session?).
      const probe = await encodeWith(device, modelId, kind, texts.slice(0, 1), 'passage');
      return {
        ms,
        device: result.load?.device ?? 'cache',
        pooledOnDevice: probe.pooledOnDevice,
        externalWeights: result.load?.externalWeights ?? null,
        progress: last,
        dense: result.vectors.map((v) => (v.dense ? Array.from(v.dense) : null)),
        sparse: result.vectors.map((v) =>
          v.sparse ? { indices: Array.from(v.sparse.indices), values: Array.from(v.sparse.values) } : null,
        ),
      };
    } catch (error) {
      return plainError(error, started, device);
    }
  },
  /** Start it without waiting (the test reloads the page mid-run). */
  startCorpus(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], dbName: string): void {
    corpusProgress = null;
    corpusJob = encodeCorpus(device, modelId, kind, texts, dbName).catch((e: unknown) => ({
      error: String(e),
      failure: (e as { failure?: unknown }).failure ?? null,
    }));
  },
  /** The started job's result. */
  corpusResult: () => corpusJob,
  loseWebGpuDevice: () => bridgeFor('webgpu').loseWebGpuDeviceForTesting(),
  corpusProgress: () => corpusProgress,
  /** Exact dense top-k in the worker; plain arrays back. */
  async denseSearch(docs: number[], rows: number, queries: number[], qrows: number, dim: number, k: number, device: WorkerDevice) {
    const r = await bridgeFor(device).denseSearch(
      { data: Float32Array.from(docs), rows, dim },
      { data: Float32Array.from(queries), rows: qrows, dim },
      k,
      device,
    );
    return { device: r.device, reason: r.reason, indices: r.indices.map((x) => Array.from(x)), scores: r.scores.map((x) => Array.from(x)) };
  },
  corpusRunning: () => corpusJob !== null,

  encodeWith: (device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], role: 'query' | 'passage') =>
    encodeWith(device, modelId, kind, texts, role),

  /** Like encodeWith, but errors come back as values (playwright would flatten them to a string). */
  async tryEncodeWith(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], role: 'query' | 'passage') {
    const started = performance.now();
    try {
      return await encodeWith(device, modelId, kind, texts, role);
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /**
   * Start a call and abort it after `abortAfterMs` (0: abort before the call starts); times from the abort.
   * `events`: what the page saw, in order: `abort`, the call settling (`rejected <name>` or `completed`), and
   * `next task`, a timer set at the abort: whatever comes after it came at least one task later (a message from
   * the worker, a batch's result), so a rejection before it arrived before the worker could say anything more.
   */
  async encodeThenAbort(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    texts: readonly string[],
    role: 'query' | 'passage',
    abortAfterMs: number,
  ) {
    const controller = new AbortController();
    const events: string[] = [];
    let abortedAt = performance.now();
    let nextTask: Promise<void> | undefined;
    const abort = () => {
      abortedAt = performance.now();
      events.push('abort');
      nextTask = new Promise((resolve) => setTimeout(() => resolve(void events.push('next task')), 0));
      controller.abort();
    };
    if (abortAfterMs <= 0) abort();
    else setTimeout(abort, abortAfterMs);
    let result: { readonly completed: true; readonly elapsedMs: number; readonly workerStarts: number } | PlainError;
    try {
      await encodeWith(device, modelId, kind, texts, role, controller.signal);
      result = { completed: true, elapsedMs: performance.now() - abortedAt, workerStarts: bridgeFor(device).workerStarts };
      events.push('completed');
    } catch (error) {
      result = plainError(error, abortedAt, device);
      events.push(`rejected ${result.error.name}`);
    }
    await nextTask;
    return { ...result, events };
  },

  /**
   * One call, then the worker left idle: whether it runs as the call returns, and half an idle period later (a
   * timer set as the call returns, so due before the bridge's own idle timer, set just before it), then whether
   * it ends by itself within `ceilingMs`. `events` in the order the page saw them; `endedAfterMs` for the bench.
   * Needs the page's `idleMs`.
   */
  async encodeThenIdle(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    texts: readonly string[],
    role: 'query' | 'passage',
    ceilingMs: number,
  ) {
    if (idleMs === undefined) throw new Error('encodeThenIdle needs the page opened with ?idleMs=');
    const bridge = bridgeFor(device);
    await encodeWith(device, modelId, kind, texts, role);
    const returned = performance.now();
    const events = [`returned: running ${bridge.running}`];
    await new Promise<void>((resolve) => setTimeout(() => resolve(void events.push(`half idle: running ${bridge.running}`)), idleMs / 2));
    while (bridge.running && performance.now() - returned < ceilingMs) await new Promise((resolve) => setTimeout(resolve, 5));
    const endedAfterMs = performance.now() - returned;
    events.push(bridge.running ? `still running after ${ceilingMs} ms` : 'ended');
    return { events, endedAfterMs, workerStarts: bridge.workerStarts };
  },

  workerRunning: (device: WorkerDevice) => bridgeFor(device).running,

  /** Register the folder picked in the `folder` input (test/e2e/local-model.e2e.test.ts sets its files). */
  async registerPickedFolder(device: WorkerDevice, dtype: EncoderDtype) {
    const started = performance.now();
    try {
      const files = Array.from(folderInput.files ?? []) as PickedFile[];
      const local = await prepareLocalModel(files, dtype);
      await bridgeFor(device).registerLocalModel(local.name, local.files);
      return {
        name: local.name,
        folder: local.folder,
        revision: local.revision,
        paths: local.files.map((f) => f.path),
        picked: files.length,
      };
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** tryEncodeWith for a registered local folder (source: the local-model root, no remote). */
  async tryEncodeLocal(
    device: WorkerDevice,
    name: string,
    revision: string,
    kind: TestKind,
    texts: readonly string[],
    role: 'query' | 'passage',
  ) {
    const started = performance.now();
    try {
      return await encodeWith(device, name, kind, texts, role, undefined, { revision });
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** End the bridge's worker, as a crash would (the next call starts a fresh one). */
  terminateWorker: (device: WorkerDevice) => bridgeFor(device).terminate(),

  /** tryEncodeWith with a dtype (fp16 reads onnx/model_fp16.onnx). */
  async tryEncodeWithDtype(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    texts: readonly string[],
    role: 'query' | 'passage',
    dtype: EncoderDtype,
  ) {
    const started = performance.now();
    try {
      return await encodeWith(device, modelId, kind, texts, role, undefined, undefined, dtype);
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** encodeCorpus, awaited, with errors as values (progress as for startCorpus, reset first). */
  async tryEncodeCorpus(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    texts: readonly string[],
    dbName: string,
  ): Promise<PlainCorpusResult | PlainError> {
    const started = performance.now();
    corpusProgress = null;
    try {
      return await encodeCorpus(device, modelId, kind, texts, dbName);
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** What IndexedDB `dbName` holds: vector records, and the per-encoding counts the store keeps. */
  storedVectors: (dbName: string): Promise<StoredVectorsInfo> => storedVectors(dbName),

  /**
   * Store `bytes` of filler in IndexedDB `dbName` (same origin, same storage bucket as the embeddings):
   * what another tab filling the quota looks like to a running job.
   */
  async fillStorage(dbName: string, bytes: number): Promise<void> {
    const request = indexedDB.open(dbName, 1);
    request.onupgradeneeded = () => request.result.createObjectStore('filler');
    const db = await new Promise<IDBDatabase>(
      (resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))),
    );
    try {
      const tx = db.transaction('filler', 'readwrite');
      // Random bytes: Chromium compresses large IndexedDB values, and anything regular would shrink.
      const data = new Uint8Array(bytes);
      for (let at = 0; at < bytes; at += 65_536) crypto.getRandomValues(data.subarray(at, Math.min(bytes, at + 65_536)));
      tx.objectStore('filler').put(data, `filler-${Date.now()}`);
      await new Promise<void>(
        (resolve, reject) => (
          (tx.oncomplete = () => resolve()),
          (tx.onabort = () => reject(tx.error ?? new Error('filler transaction aborted')))
        ),
      );
    } finally {
      db.close();
    }
  },

  /** navigator.storage.estimate() as this page sees it. */
  async storageEstimate(): Promise<{ quota: number | null; usage: number | null }> {
    const { quota, usage } = await navigator.storage.estimate();
    return { quota: quota ?? null, usage: usage ?? null };
  },

  /** bench:encode --fiqa-sized: a corpus job whose vectors stay in the worker, search over them, memory. */
  ...keptCorpusHelpers(bridgeFor),

  /** Whether a WebGPU adapter is granted here and whether it has shader-f16 (fp16 weights need it). */
  async webgpuFeatures(): Promise<{ adapter: boolean; shaderF16: boolean; description: string }> {
    const gpu = (
      navigator as Navigator & {
        gpu?: {
          requestAdapter(): Promise<{ features: { has(f: string): boolean }; info?: { vendor?: string; architecture?: string } } | null>;
        };
      }
    ).gpu;
    const adapter = await gpu?.requestAdapter().catch(() => null);
    if (!adapter) return { adapter: false, shaderF16: false, description: 'no WebGPU adapter granted' };
    return {
      adapter: true,
      shaderF16: adapter.features.has('shader-f16'),
      description: [adapter.info?.vendor, adapter.info?.architecture].filter(Boolean).join(' '),
    };
  },
};

/** Counts read straight from IndexedDB (not through EmbeddingStore), without creating a missing database. */
async function storedVectors(dbName: string): Promise<StoredVectorsInfo> {
  const request = indexedDB.open(dbName);
  let created = false;
  request.onupgradeneeded = () => {
    created = true;
    request.transaction?.abort();
  };
  const db = await new Promise<IDBDatabase | null>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => (created ? resolve(null) : reject(request.error));
  });
  if (db === null) return { vectors: 0, encodings: [] };
  try {
    if (!db.objectStoreNames.contains('vectors')) return { vectors: 0, encodings: [] };
    const tx = db.transaction(['vectors', 'encodings'], 'readonly');
    const ask = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
    const [vectors, records] = await Promise.all([ask(tx.objectStore('vectors').count()), ask(tx.objectStore('encodings').getAll())]);
    return { vectors, encodings: (records as { count: number; bytes: number }[]).map((r) => ({ count: r.count, bytes: r.bytes })) };
  } finally {
    db.close();
  }
}

/** What a user picks with "load a local model folder". */
const folderInput = Object.assign(document.createElement('input'), { type: 'file', webkitdirectory: true, multiple: true });
folderInput.setAttribute('data-testid', 'folder');
folderInput.setAttribute('aria-label', 'Local model folder');
document.body.append(folderInput);

declare global {
  interface Window {
    fliplabTest: typeof fliplabTest;
  }
}

window.fliplabTest = fliplabTest;
document.querySelector('[data-testid="status"]')!.textContent = 'ready';
