/**
 * The lab's state on the main thread (Svelte 5 runes): which collection is open, which retrievers exist and
 * how far along they are, the view (mirrored in the URL), and the analysis. Heavy work is delegated: the lab
 * worker parses, indexes, searches and prepares flip ranks; the encode worker (through EncodeBridge) embeds
 * queries and passages, cache first. The only computation here is `reportFromPrepared` — re-slicing prepared
 * ranks by depth and label, which fits in a frame (bench:flips).
 */
import { proxy, transfer, wrap, type Remote } from 'comlink';
import { installErrorTransfer } from '../../lab/errors.ts';
import { etaMs } from '../../core/progress.ts';
import { reportFromPrepared, validateDepths, type FlipReport, type PreparedFlips } from '../../core/flips/analyze.ts';
import type { EncoderConfig, EncoderDtype, PresetId } from '../../encoders/presets.ts';
import { bm25RunName, DEFAULT_BM25_PARAMS, parseBm25RunName } from '../../core/retrieve/bm25.ts';
import { encoderConfig, encoderRunId, isRecipeRunId, parseEncoderRunId } from '../../lab/retriever-ids.ts';
import { parseQlRunName, qlRunName } from '../../core/retrieve/ql.ts';
import { parseRm3RunName, rm3RunName, type Rm3Params } from '../../core/retrieve/rm3.ts';
import { bm25Recipe, encoderRecipe, importedRecipe, qlRecipe, rm3Recipe } from '../../report/recipe.ts';
import type { LexicalSpec } from '../../lab/engine.ts';
import { problemOf } from '../../lab/problems.ts';
import type { EncodeProgress } from '../../encoders/job.ts';
import { adapterName, type AdapterFacts } from '../../encoders/adapter.ts';

export { encoderConfig, encoderRunId, parseEncoderRunId } from '../../lab/retriever-ids.ts';
import type { StoredVector } from '../../encoders/pooling.ts';
import type { LabApi } from '../../lab/api.ts';
import {
  EncodeBridge,
  type CorpusProgress,
  type ModelEvent,
  type WorkerInitOptions,
  type WorkerLoadOptions,
  type WorkerLoadResult,
} from '../bridge/encode-bridge.ts';
import { downloadState } from './download-state.ts';
import { localModelSource, prepareLocalModel, type PickedFile } from '../../lab/local-model.ts';
import { filesOfDirectory, folderReadable, FolderHandles, type DirectoryHandleLike } from '../../lab/folder-handles.ts';
import { LOCAL_MODEL_PREFIX } from '../../lab/retriever-ids.ts';
import { errorInfo, errorText, type CollectionError } from './errors.ts';
import { chooseCandidates, chooseReference, usableRetrievers } from './reference.ts';

export type { CollectionError } from './errors.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import type { CollectionSummary } from '../../lab/engine.ts';
import { allowedOrigins, loadSettings, type Settings } from '../settings.ts';
import type { TermExplanation } from '../../lab/types.ts';
import type { Judgment } from '../../core/io/judgments.ts';
import type { DownloadState } from '../../lab/types.ts';
import { DEFAULT_VIEW, type JobProgress, type MetricsRow, type QueryDetail, type RetrieverInfo, type ViewState } from '../types.ts';

// Errors from the workers keep their fields (file, line, reason; bytes needed and free).
installErrorTransfer();

export interface Bm25Spec {
  readonly kind: 'bm25';
  readonly k1: number;
  readonly b: number;
}
export interface EncoderSpec {
  readonly kind: 'encoder';
  readonly config: EncoderConfig;
}
export type RetrieverSpec =
  Bm25Spec | EncoderSpec | { readonly kind: 'lexical'; readonly spec: LexicalSpec } | { readonly kind: 'imported' };

const LOCAL_REVISIONS = 'fliplab.localModelRevisions';

/** The fingerprint of each picked local folder, by model name, so its cached run can be restored without it. */
function localRevisions(): Record<string, string> {
  try {
    const v = JSON.parse(globalThis.localStorage?.getItem(LOCAL_REVISIONS) ?? '{}') as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}
function localRevision(model: string): string | undefined {
  const r = localRevisions()[model];
  return typeof r === 'string' ? r : undefined;
}
function rememberLocalRevision(model: string, revision: string): void {
  try {
    globalThis.localStorage?.setItem(LOCAL_REVISIONS, JSON.stringify({ ...localRevisions(), [model]: revision }));
  } catch {
    // Storage refused (private mode, quota): the folder is then asked for again after a reload.
  }
}

/** The WebGPU adapter a load used, named for the row ({} when none, e.g. on WASM). */
function adapterOf(load: { readonly adapterInfo: AdapterFacts | null } | null): Pick<RetrieverInfo, 'adapter'> {
  return load?.adapterInfo ? { adapter: adapterName(load.adapterInfo) } : {};
}

/** The device column's reason when no model was loaded: said only when every vector came from the cache. */
const FROM_CACHE = "no model loaded: every vector came from this browser's cache";

/** The device column for a loaded model: where it runs, why that differs from the one asked for, the adapter. */
function deviceOf(load: WorkerLoadResult, fallback?: string): Pick<RetrieverInfo, 'device' | 'deviceReason' | 'adapter'> {
  return { device: load.device, deviceReason: fallback ?? load.reason, ...adapterOf(load) };
}

/**
 * A row's status from its job's phase, as the job states it: looking in the cache (`checking` until a vector is
 * found there, then `restoring`), loading the model, encoding — and while encoding, the device that encodes.
 * A row held for a download confirmation stays there until the user answers (the plan and the progress
 * cross from the worker on different ports, so a progress report may arrive after the plan).
 */
function progressState(p: CorpusProgress, now: RetrieverInfo['status'] | undefined): Partial<RetrieverInfo> {
  if (p.phase === 'encoding') {
    const device = p.load ? deviceOf(p.load, p.fallback) : { device: p.device === 'webgpu' ? ('webgpu' as const) : ('wasm' as const) };
    return { status: 'encoding', ...device };
  }
  if (now === 'confirm') return {};
  if (p.phase === 'loading-model') return { status: 'loading' };
  return { status: p.cached > 0 ? 'restoring' : 'checking' };
}

/** A job's progress as a row shows it. */
function jobProgress(p: EncodeProgress, unit: 'documents' | 'queries'): JobProgress {
  return { done: p.done, total: p.total, cached: p.cached, etaMs: p.etaMs, unit, checked: p.checked, perSecond: p.perSecond };
}

/** Candidates a collection of runs (no corpus) opens with: the rest are one click away. */
const RUNS_FIRST_SHOWN = 3;

/** Jobs projected to take longer than this get a calibration batch on the other device. */
const CALIBRATE_ABOVE_MS = 15_000;

/** Passages in the calibration: one warm-up batch (loads the model, compiles), then the timed one. */
const CALIBRATION_PASSAGES = 8;

/** Tokens per second of one batch of `passages` on WASM, in a worker of its own (ended afterwards). */
async function timeOnWasm(
  config: EncoderConfig,
  load: WorkerLoadOptions,
  passages: readonly string[],
  init: WorkerInitOptions,
  signal: AbortSignal,
): Promise<number> {
  // The same runtime settings and network guard as the main worker; ended with the job (abort kills it).
  const bridge = new EncodeBridge({ init });
  try {
    const wasm: WorkerLoadOptions = { ...load, device: 'wasm' };
    const middle = Math.floor(passages.length / 2);
    await bridge.encode({ config, load: wasm, texts: passages.slice(middle, middle + 2), role: 'passage' }, signal);
    const texts = passages.slice(middle + 2, middle + 2 + CALIBRATION_PASSAGES);
    const started = performance.now();
    const { batch } = await bridge.encode({ config, load: wasm, texts, role: 'passage' }, signal);
    return batch.tokens.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
  } finally {
    bridge.terminate();
  }
}

/** How often a growing run is re-analysed while encoding. */
const LIVE_ANALYSIS_MS = 400;

const isAbort = (e: unknown): boolean => e instanceof DOMException && e.name === 'AbortError';

export interface LabOptions {
  readonly settings?: Settings;
  /** Tests may pass their own workers. */
  readonly createLabWorker?: () => Worker;
  readonly bridge?: EncodeBridge;
}

export class Lab {
  settings: Settings = $state(loadSettings());
  view: ViewState = $state({ ...DEFAULT_VIEW });
  collection: CollectionSummary | null = $state.raw(null);
  /** Id of the open collection (catalog `beir:<name>` or a stored upload). */
  collectionId: string | null = $state(null);
  collectionError: CollectionError | null = $state.raw(null);
  busy: string | null = $state(null);
  retrievers: RetrieverInfo[] = $state([]);
  prepared: PreparedFlips | null = $state.raw(null);
  metrics: MetricsRow[] = $state.raw([]);
  queryTexts: Record<string, string> = $state.raw({});
  analysisError: string | null = $state(null);
  /** Moves each time the judgments layer changes (what the explorer's detail reloads on). */
  judgmentsRevision = $state(0);
  /** Run files that could not be imported (file, line, reason), shown beside the import control until retried. */
  runImportErrors: readonly CollectionError[] = $state.raw([]);
  /** The last vector pack import: in progress, done (with the run it added) or failed (the error, file and what differs). */
  packStatus: { readonly state: 'importing' | 'done' | 'error'; readonly text: string; readonly id?: string } | null = $state.raw(null);
  /** Candidates whose runs were partial when the current analysis was computed (what the views badge). */
  analyzedPartial: string[] = $state.raw([]);
  /** How much of each partial candidate the current analysis covers (what "x of N passages" says). */
  partialProgress: Record<string, { readonly encodedDocs: number; readonly totalDocs: number }> = $state.raw({});

  /**
   * The report for the current depths and label, rebuilt from prepared ranks (one frame). Any view change
   * replaces `view`, so the last report is kept while prepared ranks, depths and label stay the same: a
   * change of k (or a filter) then re-renders only what shows k, not the depth plot and every table.
   */
  report: FlipReport | null = $derived.by(() => {
    const p = this.prepared;
    if (p === null) return null;
    const depths = this.view.depths.filter((k) => k <= p.maxDepth);
    if (depths.length === 0) return null;
    const key = `${depths.join(',')}|${this.view.label}`;
    const last = this.#lastReport;
    if (last !== null && last.prepared === p && last.key === key) return last.report;
    const report = reportFromPrepared(p, { depths, label: this.view.label, perQuery: true });
    this.#lastReport = { prepared: p, key, report };
    return report;
  });
  #lastReport: { readonly prepared: PreparedFlips; readonly key: string; readonly report: FlipReport } | null = null;

  /** Candidates whose runs are still growing (with new work, not the cache). */
  partial: string[] = $derived(
    this.retrievers.filter((r) => r.partial !== undefined && r.partial.encodedDocs < r.partial.totalDocs).map((r) => r.id),
  );

  // Bookkeeping, not state the views read: plain collections on purpose (the rendered state is the runes above).
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #specs = new Map<string, RetrieverSpec>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #jobs = new Map<string, AbortController>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #sources = new Map<string, WorkerLoadOptions['source']>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #confirms = new Map<string, () => void>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #deviceOverrides = new Map<string, 'wasm' | 'webgpu'>();
  readonly #bridge: EncodeBridge;
  readonly #workerInit: WorkerInitOptions;
  readonly #worker: Worker;
  readonly lab: Remote<LabApi>;
  #analysisTimer: ReturnType<typeof setTimeout> | undefined;
  #analysisRunning: Promise<void> | null = null;
  #analysisAgain = false;

  constructor(options: LabOptions = {}) {
    if (options.settings) this.settings = options.settings;
    this.#worker =
      options.createLabWorker?.() ??
      // Vite's worker pattern needs a plain URL here (it is bundled, not watched).
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      new Worker(new URL('../../../workers/lab.worker.ts', import.meta.url), { type: 'module', name: 'fliplab-lab' });
    this.lab = wrap<LabApi>(this.#worker);
    void this.lab.allowOrigins(allowedOrigins(this.settings));
    const threads = globalThis.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
    this.#workerInit = { numThreads: threads, allowOrigins: allowedOrigins(this.settings) };
    this.#bridge = options.bridge ?? new EncodeBridge({ init: this.#workerInit });
  }

  // ---------------------------------------------------------------- collections

  /** Open a collection from its files (parsed in the worker); runs BM25 as the reference right away. */
  async openFiles(id: string, name: string, files: readonly CollectionFile[], split?: string): Promise<boolean> {
    this.#cancelAll();
    this.collectionError = null;
    this.busy = `Reading ${name}…`;
    try {
      const summary = await this.lab.openFiles(files, split === undefined ? { name } : { name, split });
      this.collection = summary;
      this.collectionId = id;
      this.queryTexts = await this.lab.queryTexts();
      this.#specs.clear();
      this.retrievers = [];
      this.runImportErrors = [];
      this.prepared = null;
      this.metrics = [];
      for (const run of summary.runs) this.#addImported(run.name, run.queries, run.lines, name);
      const sameCollection = this.view.collection === id;
      this.setView({ collection: id, ...(sameCollection ? {} : { query: null, reference: null, candidates: [] }) });
      // BM25 is the reference when there is text to rank; runs without a corpus are their own retrievers: the
      // first is the reference and the next ones (up to three) the candidates, so the analysis opens at once.
      if (!summary.passagesFromRuns) await this.addBm25(DEFAULT_BM25_PARAMS.k1, DEFAULT_BM25_PARAMS.b);
      else if (this.view.candidates.length === 0 && summary.runs.length > 1) {
        const [first, ...rest] = summary.runs.map((r) => r.name);
        this.setView({ reference: this.view.reference ?? first!, candidates: rest.slice(0, RUNS_FIRST_SHOWN) });
      }
      // A deep link names its retrievers, the reference among them: start them (cached vectors make this quick).
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a local de-duplication, never rendered
      const named = new Set([...(this.view.reference === null ? [] : [this.view.reference]), ...this.view.candidates]);
      for (const rid of named) if (!this.#specs.has(rid)) await this.#restoreRetriever(rid);
      this.#scheduleAnalysis(0);
      return true;
    } catch (e) {
      this.collectionError = errorInfo(e);
      return false;
    } finally {
      this.busy = null;
    }
  }

  async #restoreRetriever(id: string): Promise<void> {
    const bm25 = parseBm25RunName(id);
    if (bm25) return void (await this.addBm25(bm25.k1, bm25.b));
    const rm3 = parseRm3RunName(id);
    if (rm3) return void (await this.addRm3(rm3));
    const ql = parseQlRunName(id);
    if (ql) return void (await this.addQl(ql.mu));
    // A pack's recipe that no preset has: its id names it, the embedding cache keeps it.
    if (isRecipeRunId(id)) {
      const stored = await this.lab.storedRecipe(id);
      if (stored) void this.addEncoder(stored, stored.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined);
      return;
    }
    const config = parseEncoderRunId(id);
    if (!config) return;
    // The run id does not hold the revision (part of every cache key): a local folder's fingerprint was kept
    // when the folder was picked, an imported pack's revision when it was imported.
    const carried = id.includes('@');
    const restored = carried ? config : { ...config, revision: localRevision(config.model) ?? config.revision };
    // A local folder is not kept by the browser, but its vectors are: a fully cached run comes back without
    // it; only when something must be encoded does the row ask for the folder (see addEncoder's catch).
    void this.addEncoder(restored, config.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined);
  }

  // ---------------------------------------------------------------- retrievers

  #upsert(info: RetrieverInfo): void {
    const i = this.retrievers.findIndex((r) => r.id === info.id);
    if (i < 0) this.retrievers = [...this.retrievers, info];
    else this.retrievers[i] = info;
  }

  #statusOf(id: string): RetrieverInfo['status'] | undefined {
    return this.retrievers.find((r) => r.id === id)?.status;
  }

  #patch(id: string, patch: Partial<RetrieverInfo>): void {
    const i = this.retrievers.findIndex((r) => r.id === id);
    if (i < 0) return;
    const row = { ...this.retrievers[i]!, ...patch } as RetrieverInfo;
    const spec = this.#specs.get(id);
    // An encoder's recipe includes the device it ended up on and how many passages are in the run.
    this.retrievers[i] =
      spec?.kind === 'encoder'
        ? {
            ...row,
            recipe: encoderRecipe(spec.config, {
              ...(row.device ? { device: row.device } : {}),
              ...(row.adapter ? { adapter: row.adapter } : {}),
              ...(row.partial ? { encodedDocs: row.partial.encodedDocs, totalDocs: row.partial.totalDocs } : {}),
            }),
          }
        : row;
  }

  #addImported(name: string, queries: number, lines: number, file: string): void {
    this.#specs.set(name, { kind: 'imported' });
    this.#upsert({
      id: name,
      name,
      kind: 'imported',
      status: 'ready',
      progress: { done: queries, total: queries, cached: 0, etaMs: 0, unit: 'queries' },
      recipe: importedRecipe(file, lines, queries),
    });
  }

  async addRunFile(file: CollectionFile): Promise<void> {
    const name = file.path.replace(/^.*\//, '');
    try {
      const run = await this.lab.addRunFile(file, name);
      this.#addImported(run.name, run.queries, run.lines ?? 0, name);
      this.#select(run.name);
      this.runImportErrors = this.runImportErrors.filter((e) => e.file !== file.path);
    } catch (e) {
      // Said next to the import control, not as a row: a file that is not a run is no retriever.
      const info = errorInfo(e);
      this.runImportErrors = [...this.runImportErrors.filter((x) => x.file !== file.path), { ...info, file: file.path }];
    }
  }

  async addBm25(k1: number, b: number): Promise<void> {
    const id = bm25RunName({ k1, b });
    await this.#addRanked(id, { kind: 'bm25', k1, b }, bm25Recipe(k1, b), (onProgress) => this.lab.runBm25(id, { k1, b }, onProgress));
  }

  /** BM25 + RM3 (Anserini's defaults unless given): an instant candidate, no model to download. */
  async addRm3(params: Partial<Rm3Params> = {}): Promise<void> {
    const id = rm3RunName(params);
    const spec: LexicalSpec = { kind: 'rm3', params };
    await this.#addRanked(id, { kind: 'lexical', spec }, rm3Recipe(params), (onProgress) => this.lab.runLexical(id, spec, onProgress));
  }

  /** Query likelihood with Dirichlet smoothing: an instant candidate, no model to download. */
  async addQl(mu = 1000): Promise<void> {
    const id = qlRunName(mu);
    const spec: LexicalSpec = { kind: 'ql', mu };
    await this.#addRanked(id, { kind: 'lexical', spec }, qlRecipe(mu), (onProgress) => this.lab.runLexical(id, spec, onProgress));
  }

  /**
   * A retriever the lab worker ranks on the CPU (BM25, RM3, QL): its row, the job with progress, then ready
   * and selected. A ready one is only selected again.
   */
  async #addRanked(
    id: string,
    spec: Bm25Spec | { readonly kind: 'lexical'; readonly spec: LexicalSpec },
    recipe: NonNullable<RetrieverInfo['recipe']>,
    job: (onProgress: (done: number, total: number) => void) => Promise<unknown>,
  ): Promise<void> {
    if (this.#specs.has(id) && this.retrievers.find((r) => r.id === id)?.status === 'ready') return this.#select(id);
    this.#specs.set(id, spec);
    const total = this.collection?.docs ?? 0;
    this.#upsert({
      id,
      name: id,
      kind: spec.kind,
      status: 'searching',
      device: 'cpu',
      progress: { done: 0, total, cached: 0, etaMs: null, unit: 'documents' },
      recipe,
    });
    const started = performance.now();
    try {
      await job(
        proxy((done: number, all: number) => {
          const elapsed = performance.now() - started;
          this.#patch(id, { progress: { done, total: all, cached: 0, etaMs: etaMs(done, all, elapsed), unit: 'documents' } });
        }),
      );
      this.#patch(id, { status: 'ready', progress: { done: total, total, cached: 0, etaMs: 0, unit: 'documents' } });
      this.#select(id);
    } catch (e) {
      this.#patch(id, { status: 'error', error: errorText(errorInfo(e)) });
    }
  }

  /** Encode queries then passages (cache first); the run grows and is analysed as batches commit. */
  async addEncoder(config: EncoderConfig, source?: WorkerLoadOptions['source']): Promise<void> {
    const id = encoderRunId(config);
    if (this.#jobs.has(id)) return;
    if (this.collection === null) return;
    this.#specs.set(id, { kind: 'encoder', config });
    if (source) this.#sources.set(id, source);
    else this.#sources.delete(id);
    const controller = new AbortController();
    this.#jobs.set(id, controller);
    const signal = controller.signal;
    // A remembered model folder read again after the job found it missing: the job starts over with it.
    let retryWith: EncoderConfig | null = null;
    // Only the current job for this id may touch its row or its run (a reopened collection restarts it).
    const live = () => this.#jobs.get(id) === controller;
    const patch = (p: Partial<RetrieverInfo>) => {
      if (live()) this.#patch(id, p);
    };
    const totalDocs = this.collection.docs;
    this.#upsert({
      id,
      name: id,
      kind: config.kind === 'sparse' ? 'sparse' : 'dense',
      // A job begins by looking in this browser's cache; the model is loaded only if something is missing.
      status: 'checking',
      dtype: config.dtype,
      recipe: encoderRecipe(config),
    });
    const onModel = this.#modelEvents(id, patch, () => this.#jobs.get(id) === controller);
    const device = this.#deviceOverrides.get(id) ?? (this.settings.device === 'wasm' ? 'wasm' : 'webgpu');
    const load: WorkerLoadOptions = {
      device,
      // "Auto" does not run on a software WebGPU adapter (slower than WASM); "WebGPU" uses whatever there is.
      avoidSoftwareAdapter: this.settings.device === 'auto',
      dtype: config.dtype,
      source: source ?? { remoteHost: `${this.settings.modelHost}/`, allowRemote: true },
    };
    try {
      const queries = await this.lab.evaluatedQueries();
      const q = await this.#bridge.encodeCorpus(
        { config, load, texts: queries.texts, role: 'query' },
        (p) => patch({ ...progressState(p, this.#statusOf(id)), progress: jobProgress(p, 'queries') }),
        signal,
        undefined,
        onModel,
      );
      // Only a model that was loaded is named; "cache" waits until the passages are known to need none either.
      if (q.load) patch(deviceOf(q.load, q.fallback));
      await this.lab.beginVectorRun(id, q.vectors);
      patch({ partial: { encodedDocs: 0, totalDocs } });
      this.#select(id);
      const passages = await this.lab.passageTexts();
      const calibrate = this.#calibration(id, config, load, passages, patch, live, signal);
      const result = await this.#bridge.encodeCorpus(
        { config, load, texts: passages, role: 'passage', returnVectors: false },
        (p) => {
          patch({ ...progressState(p, this.#statusOf(id)), progress: jobProgress(p, 'documents') });
          calibrate(p);
        },
        signal,
        async (positions: readonly number[], vectors: readonly StoredVector[]) => {
          if (!live()) return;
          const s = await this.lab.addVectors(id, positions, vectors);
          patch({ partial: { encodedDocs: s.encodedDocs ?? 0, totalDocs } });
          this.#scheduleAnalysis(LIVE_ANALYSIS_MS);
        },
        onModel,
      );
      const done = result.cached + result.encoded;
      const used = result.load ?? q.load;
      patch({
        status: 'ready',
        offer: null,
        cached: result.encoded === 0 && q.encoded === 0,
        // "cache" only when no model was loaded at all: every vector, queries and passages, came from the cache.
        ...(used === null ? { device: 'cache', deviceReason: FROM_CACHE } : deviceOf(used, result.fallback ?? q.fallback)),
        progress: { done, total: done, cached: result.cached, etaMs: 0, unit: 'documents' },
        partial: { encodedDocs: totalDocs, totalDocs },
      });
      this.#scheduleAnalysis(0);
    } catch (e) {
      if (isAbort(e) || signal.aborted) patch({ status: 'cancelled', offer: null });
      else if (config.model.startsWith(LOCAL_MODEL_PREFIX) && /no local model folder registered/.test(String(e))) {
        const folder = config.model.slice(LOCAL_MODEL_PREFIX.length);
        const handle = await this.#folderHandle(config.model);
        if (handle && (await folderReadable(handle, false).catch(() => false))) {
          // Remembered, and still readable: read it again and go on, no question asked.
          retryWith = await this.#registerFolder(handle, config);
        } else if (handle) {
          patch({
            status: 'error',
            folderAccess: true,
            error: `allow reading the model folder "${folder}" again to encode the rest (the vectors already encoded are kept)`,
          });
        } else {
          patch({
            status: 'error',
            error:
              `pick the model folder "${folder}" again to encode the rest: this browser did not keep it ` +
              `(the vectors already encoded are kept and reused)`,
          });
        }
      } else {
        const problem = problemOf(e);
        patch({ status: 'error', error: errorText(errorInfo(e)), ...(problem ? { problem } : {}) });
      }
      this.#scheduleAnalysis(0);
    } finally {
      // A newer job for the same id (the collection was reopened) keeps its own controller.
      if (this.#jobs.get(id) === controller) this.#jobs.delete(id);
    }
    if (retryWith !== null && !this.#jobs.has(id)) void this.addEncoder(retryWith, source);
  }

  /**
   * The row's view of a model load: the files and sizes before any weights move (held for a confirmation
   * above the Settings threshold), then bytes per file with an ETA.
   */
  #modelEvents(id: string, patch: (p: Partial<RetrieverInfo>) => void, live: () => boolean): (e: ModelEvent) => Promise<void> {
    let download: DownloadState | null = null;
    let started = 0;
    return async (e) => {
      if (!live()) return;
      if (e.kind === 'plan') {
        download = downloadState(e.plan);
        patch({ download });
        // An unknown size is asked about too: it may be anything.
        const unknownSize = download.files.some((f) => !f.cached && f.bytes === null);
        if (download.downloadBytes > this.settings.confirmAboveMB * 1e6 || unknownSize) {
          patch({ status: 'confirm' });
          // Held here until Download (confirmDownload) or Cancel (which ends the worker, and this call with it).
          await new Promise<void>((resolve) => this.#confirms.set(id, resolve));
          this.#confirms.delete(id);
          if (live()) patch({ status: 'loading' });
        }
        started = performance.now();
        return;
      }
      if (download === null) return;
      const files = download.files.map((f) => (f.path === e.file || e.file.endsWith(`/${f.path}`) ? { ...f, loaded: e.loaded } : f));
      const loaded = files.filter((f) => !f.cached).reduce((sum, f) => sum + f.loaded, 0);
      download = { ...download, files, loaded, etaMs: etaMs(loaded, download.downloadBytes, performance.now() - started) };
      patch({ download });
    };
  }

  /**
   * Calibration: once a job on WebGPU has two encoded batches (its rate, without the model load) and more
   * than CALIBRATE_ABOVE_MS to go, one batch of its passages is timed on WASM in a separate worker; when WASM
   * is projected at least twice as fast (a software adapter, a weak GPU), the row offers to switch.
   */
  #calibration(
    id: string,
    config: EncoderConfig,
    load: WorkerLoadOptions,
    passages: readonly string[],
    patch: (p: Partial<RetrieverInfo>) => void,
    live: () => boolean,
    signal: AbortSignal,
  ): (p: EncodeProgress) => void {
    let last: { tokens: number; elapsedMs: number } | null = null;
    let started = false;
    return (p) => {
      if (started || p.device !== 'webgpu' || p.tokens === 0) return;
      const previous = last;
      last = { tokens: p.tokens, elapsedMs: p.elapsedMs };
      if (previous === null || p.etaMs === null || p.etaMs < CALIBRATE_ABOVE_MS || p.elapsedMs <= previous.elapsedMs) return;
      started = true;
      const rate = (p.tokens - previous.tokens) / ((p.elapsedMs - previous.elapsedMs) / 1000);
      const etaNow = p.etaMs;
      void timeOnWasm(config, load, passages, this.#workerInit, signal).then(
        (wasmRate) => {
          if (!live() || wasmRate < 2 * rate) return;
          patch({ offer: { device: 'wasm', speedup: wasmRate / rate, etaMs: (etaNow * rate) / wasmRate, currentEtaMs: etaNow } });
        },
        () => undefined, // no number, no offer: the job goes on as it is
      );
    };
  }

  /** Continue an encoder on another device (the calibration's offer): committed vectors are kept. */
  switchDevice(id: string, device: 'wasm' | 'webgpu'): void {
    const spec = this.#specs.get(id);
    if (spec?.kind !== 'encoder') return;
    this.#deviceOverrides.set(id, device);
    this.#jobs.get(id)?.abort();
    this.#jobs.delete(id);
    this.#patch(id, { offer: null });
    void this.addEncoder(spec.config, this.#sources.get(id));
  }

  /** The user agreed to a download the row asked about. */
  confirmDownload(id: string): void {
    this.#confirms.get(id)?.();
  }

  /**
   * Encode with a model folder the user picked (config.json, tokenizer files, onnx/model*.onnx): the files
   * are handed to the encode worker, which loads them without any request. The folder is not stored: after a
   * reload it must be picked again (the vectors it made stay cached, keyed by the files' fingerprint).
   */
  async addLocalEncoder(
    preset: PresetId,
    picked: ArrayLike<PickedFile>,
    options: { dtype: EncoderDtype; maxLength?: number },
    handle?: DirectoryHandleLike,
  ): Promise<void> {
    const local = await prepareLocalModel(picked, options.dtype);
    rememberLocalRevision(local.name, local.revision);
    await this.#bridge.registerLocalModel(local.name, local.files);
    if (handle) await this.#rememberFolder(local.name, handle);
    const config = encoderConfig(preset, {
      model: local.name,
      revision: local.revision,
      dtype: options.dtype,
      ...(options.maxLength === undefined ? {} : { maxLength: options.maxLength }),
    });
    await this.addEncoder(config, localModelSource());
  }

  /**
   * A model folder from the File System Access picker: loaded like a picked folder, and its handle kept in
   * IndexedDB so a later visit reads it again (after one click, if the browser asks for permission again).
   */
  async addLocalEncoderFromHandle(preset: PresetId, handle: DirectoryHandleLike, options: { dtype: EncoderDtype; maxLength?: number }) {
    await this.addLocalEncoder(preset, await filesOfDirectory(handle), options, handle);
  }

  /** The row's "allow reading the folder" button: ask the browser (a click is a user gesture), then go on. */
  async reopenFolder(id: string): Promise<void> {
    const spec = this.#specs.get(id);
    if (spec?.kind !== 'encoder') return;
    const handle = await this.#folderHandle(spec.config.model);
    if (!handle || !(await folderReadable(handle, true).catch(() => false))) {
      this.#patch(id, { error: `reading the folder was not allowed: pick the model folder again`, folderAccess: false });
      return;
    }
    const config = await this.#registerFolder(handle, spec.config);
    this.#patch(id, { folderAccess: false });
    await this.addEncoder(config, localModelSource());
  }

  async #folderHandle(model: string): Promise<DirectoryHandleLike | undefined> {
    try {
      const folders = await FolderHandles.open();
      try {
        return await folders.get(model);
      } finally {
        folders.close();
      }
    } catch {
      return undefined; // no IndexedDB (private mode): nothing was remembered
    }
  }

  async #rememberFolder(model: string, handle: DirectoryHandleLike): Promise<void> {
    try {
      const folders = await FolderHandles.open();
      try {
        await folders.put(model, handle);
      } finally {
        folders.close();
      }
    } catch {
      // Not kept (storage refused): the folder is asked for again when something must be encoded.
    }
  }

  /** Read a remembered folder and register it; its files may have changed (then so did its fingerprint). */
  async #registerFolder(handle: DirectoryHandleLike, config: EncoderConfig): Promise<EncoderConfig> {
    const local = await prepareLocalModel(await filesOfDirectory(handle), config.dtype);
    rememberLocalRevision(local.name, local.revision);
    await this.#bridge.registerLocalModel(local.name, local.files);
    return { ...config, revision: local.revision };
  }

  /**
   * Import a vector pack (a .zip or a folder's files): checked against the open collection in the lab worker,
   * its vectors added to the cache, then its encoder added, which rebuilds the run from the cache with no
   * model (a pack that lacks some passages or queries has them encoded, which loads the model).
   */
  async importPack(files: readonly CollectionFile[]): Promise<void> {
    if (this.collection === null) return;
    this.packStatus = { state: 'importing', text: 'checking the pack…' };
    try {
      // Handed over, not copied: a FiQA-sized pack is hundreds of MB (the page does not need the bytes again).
      const buffers = files.map((f) => f.bytes.buffer as ArrayBuffer).filter((b, i, all) => all.indexOf(b) === i);
      const result = await this.lab.importPack(
        transfer(files, buffers),
        proxy((done: number, total: number) => {
          this.packStatus = {
            state: 'importing',
            text: `storing vectors: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`,
          };
        }),
      );
      const id = encoderRunId(result.config);
      // A revision the run id cannot carry (a local folder's fingerprint, a branch with dashes) is remembered
      // (a recipe run's is found in the cache with the rest of its recipe).
      if (!isRecipeRunId(id) && result.config.revision !== parseEncoderRunId(id)?.revision)
        rememberLocalRevision(result.config.model, result.config.revision);
      const complete = result.passages === result.totalPassages && result.queries === result.totalQueries;
      this.packStatus = {
        state: 'done',
        id,
        text:
          `imported ${id}: ${result.passages.toLocaleString('en-US')} of ${result.totalPassages.toLocaleString('en-US')} passages and ` +
          `${result.queries.toLocaleString('en-US')} of ${result.totalQueries.toLocaleString('en-US')} queries ` +
          `(encoded on ${result.device}, ${result.valueType})` +
          (complete ? '; no model needed' : `; the rest will be encoded with ${result.config.model}, which loads it`),
      };
      // A job of the same encoder still running is superseded (its row and run are taken over by this one).
      this.#jobs.get(id)?.abort();
      this.#jobs.delete(id);
      // A pack of a local folder's vectors: anything missing is encoded from that folder, never a host.
      const job = this.addEncoder(result.config, result.config.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined);
      // A model that does not load (an embedding API's name, say) cannot complete the pack: say what it lacks.
      void job.then(() => {
        const row = this.retrievers.find((r) => r.id === id);
        if (result.missing !== null && row?.status === 'error' && row.error?.includes(`Could not load ${result.config.model}`))
          this.#patch(id, { error: `${result.missing}, and its model did not load, so the pack must carry them: ${row.error}` });
      });
    } catch (e) {
      this.packStatus = { state: 'error', text: errorText(errorInfo(e)) };
    }
  }

  /** Download an encoder's cached vectors of the open collection as a vector pack (.zip). */
  async exportPack(id: string): Promise<{ name: string; bytes: Uint8Array }> {
    const spec = this.#specs.get(id);
    if (spec?.kind !== 'encoder') throw new Error(`${id} is not an encoder`);
    const bytes = await this.lab.exportPack(spec.config, 'fliplab browser lab');
    return { name: `${this.collection?.name ?? 'collection'}-${id}.fliplab-vectors.zip`, bytes };
  }

  cancel(id: string): void {
    this.#jobs.get(id)?.abort();
    this.#confirms.delete(id);
  }

  /**
   * Continue a cancelled (or failed) encoder from where it stopped: the same job again, which finds every
   * committed batch in the cache and encodes only the rest.
   */
  async resume(id: string): Promise<void> {
    const spec = this.#specs.get(id);
    if (spec?.kind !== 'encoder' || this.#jobs.has(id)) return;
    await this.addEncoder(spec.config, this.#sources.get(id));
  }

  #cancelAll(): void {
    for (const c of this.#jobs.values()) c.abort();
  }

  /** Drop a retriever (cancelling its job). */
  async remove(id: string): Promise<void> {
    this.cancel(id);
    this.#specs.delete(id);
    this.retrievers = this.retrievers.filter((r) => r.id !== id);
    await this.lab.removeRun(id);
    this.setView({
      candidates: this.view.candidates.filter((c) => c !== id),
      reference: this.view.reference === id ? null : this.view.reference,
    });
  }

  /** A new run becomes a candidate unless it is the reference. */
  #select(id: string): void {
    const reference = this.reference;
    if (reference === null) this.setView({ reference: id });
    else if (id !== reference && !this.view.candidates.includes(id)) this.setView({ candidates: [...this.view.candidates, id] });
    this.#scheduleAnalysis(0);
  }

  /** Usable runs: ready, or encoding with a started run. */
  get usable(): string[] {
    return usableRetrievers(this.retrievers);
  }

  /** The view's reference when it is listed, else BM25 when listed, else the first retriever (reference.ts). */
  get reference(): string | null {
    return chooseReference(this.view, this.retrievers);
  }

  /** The view's usable candidates, the reference left out. */
  get candidates(): string[] {
    return chooseCandidates(this.view, this.retrievers);
  }

  /**
   * Candidates the view names that the analysis holds back: their job is looking in the cache, restoring from
   * it, loading the model or encoding the queries, or no passage batch of their own is encoded yet. They join
   * the analysis in one step once they do real work or are complete, so a reload shows "updating" (saying
   * what each is doing) instead of counts that climb batch by batch as the cache is replayed (e.g. a Broken
   * chip going 241 → 239).
   */
  restoring: string[] = $derived(
    this.retrievers
      .filter((r) => this.view.candidates.includes(r.id) && r.id !== this.view.reference)
      .filter(
        (r) =>
          r.status === 'checking' ||
          r.status === 'loading' ||
          r.status === 'restoring' ||
          (r.status === 'encoding' &&
            (r.progress === undefined || r.progress.unit !== 'documents' || r.progress.done === r.progress.cached)),
      )
      .map((r) => r.id),
  );

  // ---------------------------------------------------------------- view

  setView(patch: Partial<ViewState>): void {
    const next = { ...this.view, ...patch };
    const depthsChanged = patch.depths !== undefined;
    if (depthsChanged) next.depths = validateDepths(next.depths);
    if (!next.depths.includes(next.k)) next.k = next.depths.includes(10) ? 10 : next.depths[0]!;
    const analysisChanged =
      patch.reference !== undefined ||
      patch.candidates !== undefined ||
      (patch.level !== undefined && patch.level !== this.view.level) ||
      (patch.judgedOnly !== undefined && patch.judgedOnly !== this.view.judgedOnly) ||
      (depthsChanged && Math.max(...next.depths) > (this.prepared?.maxDepth ?? 0));
    this.view = next;
    if (analysisChanged) this.#scheduleAnalysis(0);
  }

  // ---------------------------------------------------------------- analysis

  #scheduleAnalysis(delayMs: number): void {
    if (this.#analysisTimer !== undefined) {
      if (delayMs > 0) return; // one is pending already
      clearTimeout(this.#analysisTimer);
    }
    this.#analysisTimer = setTimeout(() => {
      this.#analysisTimer = undefined;
      void this.#analyse();
    }, delayMs);
  }

  async #analyse(): Promise<void> {
    if (this.#analysisRunning) {
      this.#analysisAgain = true;
      return;
    }
    const run = (async () => {
      const reference = this.reference;
      const restoring = this.restoring;
      const candidates = this.candidates.filter((c) => !restoring.includes(c));
      if (this.collection === null) return;
      if (reference === null || !this.usable.includes(reference)) {
        // Nothing to compare with (yet): a reference still loading or encoding, failed, or none left. Its row
        // says why; rows of runs that were removed must not linger.
        this.metrics = [];
        this.prepared = null;
        this.analyzedPartial = [];
        this.analysisError = null;
        return;
      }
      const partial = this.partial;
      try {
        const names = [reference, ...candidates];
        if (this.collection.judged) {
          const { level: relevanceLevel, judgedOnly } = this.view;
          const metrics = await this.lab.metrics(names, partial, relevanceLevel, judgedOnly);
          const prepared =
            candidates.length > 0
              ? await this.lab.prepare(reference, candidates, { maxDepth: Math.max(...this.view.depths), relevanceLevel, judgedOnly })
              : null;
          // Published together, so the views never show numbers from one state with badges from another.
          this.metrics = metrics;
          this.prepared = prepared;
          this.analyzedPartial = partial.filter((p) => candidates.includes(p));
          this.partialProgress = Object.fromEntries(
            this.retrievers.filter((r) => this.analyzedPartial.includes(r.id) && r.partial).map((r) => [r.id, r.partial!]),
          );
        } else {
          this.metrics = [];
          this.prepared = null;
          this.analyzedPartial = [];
        }
        this.analysisError = null;
      } catch (e) {
        this.analysisError = errorText(errorInfo(e));
      }
    })();
    this.#analysisRunning = run;
    await run;
    this.#analysisRunning = null;
    if (this.#analysisAgain) {
      this.#analysisAgain = false;
      await this.#analyse();
    }
  }

  /**
   * Replace the judgments layer (state/judgments.svelte.ts) and recompute the analysis with it at once; the
   * explorer reloads its detail when `judgmentsRevision` moves.
   */
  async setJudgments(judgments: readonly Judgment[]): Promise<void> {
    await this.lab.setJudgments(judgments);
    this.judgmentsRevision++;
    this.#scheduleAnalysis(0);
  }

  /** Resolves once no analysis is pending (tests and exports). */
  async settled(): Promise<void> {
    while (this.#analysisTimer !== undefined || this.#analysisRunning !== null) {
      await (this.#analysisRunning ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  // ---------------------------------------------------------------- explorer

  loadDetail = (qid: string, runs: readonly string[], k: number): Promise<QueryDetail> => this.lab.detail(qid, runs, k);
  explain = (qid: string, docId: string, run: string): Promise<TermExplanation | null> => this.lab.explain(qid, docId, run);
  expansion = (qid: string, run: string) => this.lab.rm3Expansion(qid, run);
  loadPassage = (docId: string): Promise<{ title: string; text: string }> => this.lab.passage(docId);

  dispose(): void {
    this.#cancelAll();
    this.#bridge.terminate();
    this.#worker.terminate();
  }
}
