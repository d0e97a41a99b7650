/**
 * Test page: the real bridge + worker, driven by test/e2e/encode.e2e.test.ts through `window.fliplabTest`.
 * Models come from the page's own origin, which the test's hub server serves in the hub URL layout.
 * `?cache=0` turns off transformers.js's Cache Storage for model files; `?idleMs=N` shortens the idle shutdown.
 */
import { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import { localModelSource, prepareLocalModel, type PickedFile } from '../../../src/app/lab/local-model.ts';
import type { EncoderDtype } from '../../../src/encoders/presets.ts';
import type { WorkerDevice, WorkerLoadOptions } from '../../../workers/encode.worker.ts';
import { testConfig, type PlainEncodeResult, type PlainError, type TestKind } from './configs.ts';

const params = new URLSearchParams(location.search);
const useBrowserCache = params.get('cache') !== '0';
const idleMs = params.has('idleMs') ? Number(params.get('idleMs')) : undefined;
/** ORT wasm threads (more than 1 needs the page served cross-origin isolated). */
const numThreads = params.has('threads') ? Number(params.get('threads')) : undefined;
const bridges = new Map<WorkerDevice, EncodeBridge>();

function bridgeFor(device: WorkerDevice): EncodeBridge {
  let bridge = bridges.get(device);
  if (!bridge) {
    bridge = new EncodeBridge({ init: { useBrowserCache, ...(numThreads === undefined ? {} : { numThreads }) }, ...(idleMs === undefined ? {} : { idleMs }) });
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
): Promise<PlainEncodeResult> {
  const started = performance.now();
  const bridge = bridgeFor(device);
  const source: WorkerLoadOptions['source'] = local ? localModelSource() : { remoteHost: location.origin, allowRemote: true };
  const config = local ? { ...testConfig(kind, modelId), revision: local.revision } : testConfig(kind, modelId);
  const { load, batch } = await bridge.encode({ config, load: { device, dtype: 'fp32', source }, texts, role }, signal);
  return {
    device: load.device,
    reason: load.reason,
    adapterInfo: load.adapterInfo,
    tokens: batch.tokens,
    workerStarts: bridge.workerStarts,
    elapsedMs: performance.now() - started,
    ...(batch.dense ? { dense: batch.dense.map((v) => Array.from(v)), denseTypes: batch.dense.map((v) => v.constructor.name) } : {}),
    ...(batch.sparse ? { sparse: batch.sparse.map((s) => ({ indices: Array.from(s.indices), values: Array.from(s.values) })) } : {}),
  };
}

function plainError(error: unknown, started: number, device: WorkerDevice): PlainError {
  const e = error instanceof Error || error instanceof DOMException ? error : new Error(String(error));
  return { error: { name: e.name, message: e.message }, elapsedMs: performance.now() - started, workerStarts: bridgeFor(device).workerStarts };
}

/** Progress of the corpus job started by startCorpus (read by the test while it runs). */
let corpusProgress: { done: number; cached: number; total: number } | null = null;
let corpusJob: Promise<unknown> | null = null;

async function encodeCorpus(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], dbName: string) {
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
    device: result.load.device,
    fallback: result.fallback ?? null,
    dense: result.vectors.map((v) => Array.from(v.dense ?? [])),
  };
}

const fliplabTest = {
  /** Cache-first encoding of a whole collection into IndexedDB `dbName`, awaited. */
  encodeCorpus,
  /** Start it without waiting (the test reloads the page mid-run). */
  startCorpus(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], dbName: string): void {
    corpusProgress = null;
    corpusJob = encodeCorpus(device, modelId, kind, texts, dbName).catch((e: unknown) => ({ error: String(e) }));
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

  /** Start a call and abort it after `abortAfterMs` (0: abort before the call starts); times from the abort. */
  async encodeThenAbort(device: WorkerDevice, modelId: string, kind: TestKind, texts: readonly string[], role: 'query' | 'passage', abortAfterMs: number) {
    const controller = new AbortController();
    let abortedAt = performance.now();
    const abort = () => {
      abortedAt = performance.now();
      controller.abort();
    };
    if (abortAfterMs <= 0) abort();
    else setTimeout(abort, abortAfterMs);
    try {
      await encodeWith(device, modelId, kind, texts, role, controller.signal);
      return { completed: true, elapsedMs: performance.now() - abortedAt, workerStarts: bridgeFor(device).workerStarts };
    } catch (error) {
      return plainError(error, abortedAt, device);
    }
  },

  workerRunning: (device: WorkerDevice) => bridgeFor(device).running,

  /** Register the folder picked in the `folder` input (test/e2e/local-model.e2e.test.ts sets its files). */
  async registerPickedFolder(device: WorkerDevice, dtype: EncoderDtype) {
    const started = performance.now();
    try {
      const files = Array.from(folderInput.files ?? []) as PickedFile[];
      const local = await prepareLocalModel(files, dtype);
      await bridgeFor(device).registerLocalModel(local.name, local.files);
      return { name: local.name, folder: local.folder, revision: local.revision, paths: local.files.map((f) => f.path), picked: files.length };
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** tryEncodeWith for a registered local folder (source: the local-model root, no remote). */
  async tryEncodeLocal(device: WorkerDevice, name: string, revision: string, kind: TestKind, texts: readonly string[], role: 'query' | 'passage') {
    const started = performance.now();
    try {
      return await encodeWith(device, name, kind, texts, role, undefined, { revision });
    } catch (error) {
      return plainError(error, started, device);
    }
  },

  /** End the bridge's worker, as a crash would (the next call starts a fresh one). */
  terminateWorker: (device: WorkerDevice) => bridgeFor(device).terminate(),
};

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
