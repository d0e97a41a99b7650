/**
 * The lab's state on the main thread (Svelte 5 runes): the open collection, the retriever rows, the view
 * (mirrored in the URL). Heavy work runs in the workers; the parts live in classes of their own that reach
 * the rows through small hosts: Analysis (measures, prepared flips, the report), EncoderJobs (encoding,
 * downloads, calibration, model folders), PackJobs (vector packs), Fusion (the frontier and fused candidates),
 * Track (every run against the reference).
 */
import { isAbort } from '../../core/error-message.ts';
import { proxy, wrap, type Remote } from 'comlink';
import { installErrorTransfer } from '../../lab/errors.ts';
import { etaMs } from '../../core/progress.ts';
import { validateDepths, type FlipReport, type PreparedFlips } from '../../core/flips/analyze.ts';
import type { EncoderConfig } from '../../encoders/presets.ts';
import { DEFAULT_BM25_PARAMS } from '../../core/retrieve/bm25.ts';
import { isRecipeRunId, LOCAL_MODEL_PREFIX, parseEncoderRunId } from '../../lab/retriever-ids.ts';
import { encoderRecipe, importedRecipe } from '../../report/recipe.ts';
import type { FusionParams } from '../../core/flips/fusion.ts';
import { Fusion } from './fusion.svelte.ts';
import { InstantRetrievers } from './instant-retrievers.ts';
import type { CollectionSummary } from '../../worker/engine.ts';
import type { LabApi } from '../../worker/api.ts';
import type { EncodeBridge, WorkerLoadOptions } from '../bridge/encode-bridge.ts';
import { localModelSource } from '../../lab/local-model.ts';
import { errorInfo, type CollectionError } from './errors.ts';
import { chooseCandidates, chooseReference, usableRetrievers } from './reference.ts';
import { EncoderJobs } from './encoder-jobs.svelte.ts';
import { encoderRunOf } from './encoder-rows.ts';
import { PackJobs } from './pack-jobs.svelte.ts';
import { localRevision } from './local-revisions.ts';
import type { EncoderHost, RetrieverSpec } from './host.ts';
import { Analysis } from './analysis.svelte.ts';
import { Track } from './track.svelte.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import type { ReadingProgress } from '../../worker/reading.ts';
import { allowedOrigins, loadSettings, type Settings } from '../settings.ts';
import { pageIsolation } from './isolation.svelte.ts';
import type { TermExplanation } from '../../lab/types.ts';
import type { Judgment } from '../../core/io/judgments.ts';
import { DEFAULT_VIEW, type MetricsRow, type QueryDetail, type RetrieverInfo, type ViewState } from '../types.ts';

export { encoderConfig, encoderRunId, parseEncoderRunId } from '../../lab/retriever-ids.ts';
export type { CollectionError } from './errors.ts';

// Errors from the workers keep their fields (file, line, reason; bytes needed and free).
installErrorTransfer();

export { anseriniNameProblem } from './instant-retrievers.ts';

/** Candidates a collection of runs (no corpus) opens with: the rest are one click away. */
const RUNS_FIRST_SHOWN = 3;

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
  /** Reading a collection's files: bytes of all of them, the file at hand, the time left (null: not reading). */
  reading: (ReadingProgress & { readonly name: string; readonly etaMs: number | null }) | null = $state(null);
  retrievers: RetrieverInfo[] = $state([]);
  queryTexts: Record<string, string> = $state.raw({});
  /** Moves each time the judgments layer changes (what the explorer's detail reloads on). */
  judgmentsRevision = $state(0);
  /** Run files that could not be imported (file, line, reason), shown beside the import control until retried. */
  runImportErrors: readonly CollectionError[] = $state.raw([]);
  /** Candidates whose runs are still growing (with new work, not the cache). */
  partial: string[] = $derived(
    this.retrievers.filter((r) => r.partial !== undefined && r.partial.encodedDocs < r.partial.totalDocs).map((r) => r.id),
  );

  // Bookkeeping, not state the views read: plain collections on purpose (the rendered state is the runes above).
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #specs = new Map<string, RetrieverSpec>();
  /** BM25 and the instant candidates (instant-retrievers.ts). */
  readonly instant: InstantRetrievers;
  /** Encoder jobs: encoding, downloads, calibration, model folders (encoder-jobs.svelte.ts). */
  readonly encoders: EncoderJobs;
  /** Vector packs: import and export (pack-jobs.svelte.ts). */
  readonly packs: PackJobs;
  /** The fusion frontier of the explorer's candidate, and fused runs added from it (fusion.svelte.ts). */
  readonly fusion: Fusion;
  readonly #worker: Worker;
  readonly lab: Remote<LabApi>;
  /** Measures and prepared flips for the view (analysis.svelte.ts). */
  readonly analysis: Analysis;
  /** Every finished run against the reference, when there are three or more (track.svelte.ts). */
  readonly track: Track;

  constructor(options: LabOptions = {}) {
    if (options.settings) this.settings = options.settings;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the encoder host's getters read the live Lab
    const lab = this;
    this.#worker =
      options.createLabWorker?.() ??
      // Vite's worker pattern needs a plain URL here (it is bundled, not watched).
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      new Worker(new URL('../../../workers/lab.worker.ts', import.meta.url), { type: 'module', name: 'fliplab-lab' });
    this.lab = wrap<LabApi>(this.#worker);
    void this.lab.allowOrigins(allowedOrigins(this.settings));
    const init = { numThreads: pageIsolation.wasm.threads, allowOrigins: allowedOrigins(this.settings) };
    const host: EncoderHost = {
      get settings() {
        return lab.settings;
      },
      get collection() {
        return lab.collection;
      },
      get retrievers() {
        return lab.retrievers;
      },
      lab: this.lab,
      specs: this.#specs,
      upsert: (info) => this.#upsert(info),
      patch: (id, p) => this.#patch(id, p),
      statusOf: (id) => this.#statusOf(id),
      select: (id) => this.#select(id),
      scheduleAnalysis: (ms) => this.analysis.schedule(ms),
    };
    this.instant = new InstantRetrievers(host);
    this.encoders = new EncoderJobs(host, init, options.bridge);
    this.packs = new PackJobs(host, this.encoders);
    this.fusion = new Fusion(host, this);
    this.analysis = new Analysis(this);
    this.track = new Track(this);
  }

  // ---------------------------------------------------------------- collections

  /** Open a collection from its files (parsed in the worker); runs BM25 as the reference right away. */
  async openFiles(id: string, name: string, files: readonly CollectionFile[], split?: string): Promise<boolean> {
    this.collectionError = null;
    this.busy = `Reading ${name}…`;
    const started = performance.now();
    this.reading = { name, file: '', bytesRead: 0, totalBytes: 0, etaMs: null };
    try {
      const summary = await this.lab.openFiles(
        files,
        split === undefined ? { name } : { name, split },
        proxy((p: ReadingProgress) => {
          if (this.reading?.name !== name) return;
          this.reading = { name, ...p, etaMs: etaMs(p.bytesRead, p.totalBytes, performance.now() - started) };
        }),
      );
      // Only now does the new collection replace the open one (a refused or cancelled read leaves it as it was).
      this.encoders.cancelAll();
      this.collection = summary;
      this.collectionId = id;
      this.queryTexts = await this.lab.queryTexts();
      this.#specs.clear();
      this.retrievers = [];
      this.runImportErrors = [];
      this.analysis.reset();
      for (const run of summary.runs) this.#addImported(run.name, run.queries, run.lines, run.file);
      const sameCollection = this.view.collection === id;
      this.setView({ collection: id, ...(sameCollection ? {} : { query: null, reference: null, candidates: [] }) });
      // BM25 is the reference when there is text to rank; runs without a corpus are their own retrievers: the
      // first is the reference and the next ones (up to three) the candidates, so the analysis opens at once.
      if (!summary.passagesFromRuns) await this.addBm25(DEFAULT_BM25_PARAMS.k1, DEFAULT_BM25_PARAMS.b);
      else if (this.view.candidates.length === 0 && summary.runs.length > 1) {
        const [first, ...rest] = summary.runs.map((r) => r.name);
        this.setView({ reference: this.view.reference ?? first!, candidates: rest.slice(0, RUNS_FIRST_SHOWN) });
      }
      await this.restoreNamed();
      return true;
    } catch (e) {
      this.collectionError = isAbort(e) ? null : errorInfo(e);
      return false;
    } finally {
      this.busy = null;
      this.reading = null;
    }
  }

  /**
   * Start the retrievers the view names (a deep link, or an address changed in the open tab), the reference among
   * them, that the lab does not have yet (cached vectors make this quick); then analyse.
   */
  async restoreNamed(): Promise<void> {
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a local de-duplication, never rendered
    const named = new Set([...(this.view.reference === null ? [] : [this.view.reference]), ...this.view.candidates]);
    for (const rid of named) if (!this.#specs.has(rid)) await this.#restoreRetriever(rid);
    this.analysis.schedule(0);
  }

  /** Stop reading a collection's files; the collection open before stays open. */
  cancelOpen(): void {
    void this.lab.cancelOpen();
  }

  async #restoreRetriever(id: string): Promise<void> {
    if (await this.instant.restore(id)) return;
    // A pack's recipe that no preset has: its id names it, the embedding cache keeps it.
    if (isRecipeRunId(id)) {
      const stored = await this.lab.storedRecipe(id);
      if (stored) void this.encoders.addEncoder(stored, stored.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined);
      return;
    }
    const config = parseEncoderRunId(id);
    if (!config) return this.instant.refuse(id, 'imported', `not a retriever of this collection, and not one the lab can make`);
    // The run id does not hold the revision (part of every cache key): a local folder's fingerprint was kept
    // when the folder was picked, an imported pack's revision when it was imported.
    const carried = id.includes('@');
    const restored = carried ? config : { ...config, revision: localRevision(config.model) ?? config.revision };
    // A local folder is not kept by the browser, but its vectors are: a fully cached run comes back without
    // it; only when something must be encoded does the row ask for the folder (see addEncoder's catch).
    void this.encoders.addEncoder(restored, config.model.startsWith(LOCAL_MODEL_PREFIX) ? localModelSource() : undefined);
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
    // An encoder's recipe includes what ran it (device, runtime, agreement) and how many passages are in the run.
    this.retrievers[i] = spec?.kind === 'encoder' ? { ...row, recipe: encoderRecipe(spec.config, encoderRunOf(row)) } : row;
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

  /** Forget the refusals of earlier run imports (a new batch of files is being imported). */
  clearRunImportErrors(): void {
    this.runImportErrors = [];
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

  // The CPU retrievers: BM25 and the instant candidates (instant-retrievers.ts does the work).
  addBm25 = (k1: number, b: number): Promise<void> => this.instant.addBm25(k1, b);
  addRm3: InstantRetrievers['addRm3'] = (...a) => this.instant.addRm3(...a);
  addQl: InstantRetrievers['addQl'] = (...a) => this.instant.addQl(...a);
  addAnserini: InstantRetrievers['addAnserini'] = (...a) => this.instant.addAnserini(...a);

  /** Drop a retriever (cancelling its job). */
  async remove(id: string): Promise<void> {
    this.encoders.cancel(id);
    this.#specs.delete(id);
    this.retrievers = this.retrievers.filter((r) => r.id !== id);
    await this.lab.removeRun(id);
    this.setView({
      candidates: this.view.candidates.filter((c) => c !== id),
      reference: this.view.reference === id ? null : this.view.reference,
    });
  }

  // Encoder jobs, as the views call them (encoder-jobs.svelte.ts does the work).
  get packStatus(): PackJobs['status'] {
    return this.packs.status;
  }
  addEncoder = (config: EncoderConfig, source?: WorkerLoadOptions['source']): Promise<void> => this.encoders.addEncoder(config, source);
  addLocalEncoder: EncoderJobs['addLocalEncoder'] = (...a) => this.encoders.addLocalEncoder(...a);
  addLocalEncoderFromHandle: EncoderJobs['addLocalEncoderFromHandle'] = (...a) => this.encoders.addLocalEncoderFromHandle(...a);
  reopenFolder = (id: string): Promise<void> => this.encoders.reopenFolder(id);
  switchDevice = (id: string, device: 'wasm' | 'webgpu'): void => this.encoders.switchDevice(id, device);
  confirmDownload = (id: string): void => this.encoders.confirmDownload(id);
  importPack = (files: readonly CollectionFile[]): Promise<void> => this.packs.import(files);
  exportPack = (id: string): Promise<{ name: string; bytes: Uint8Array }> => this.packs.export(id);
  cancel = (id: string): void => this.encoders.cancel(id);
  addFused = (params: FusionParams): Promise<void> => this.fusion.add(params);
  resume = (id: string): Promise<void> => this.encoders.resume(id);

  /** A new run becomes a candidate unless it is the reference. */
  #select(id: string): void {
    const reference = this.reference;
    if (reference === null) this.setView({ reference: id });
    else if (id !== reference && !this.view.candidates.includes(id)) this.setView({ candidates: [...this.view.candidates, id] });
    this.analysis.schedule(0);
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
          r.status === 'elsewhere' ||
          (r.status === 'encoding' &&
            (r.progress === undefined || r.progress.unit !== 'documents' || r.progress.done === r.progress.cached)),
      )
      .map((r) => r.id),
  );

  // ---------------------------------------------------------------- view

  setView(patch: Partial<ViewState>): void {
    const next = { ...this.view, ...patch };
    // Holes count one way: left out (judged only) or filled by the model, not both.
    if (patch.modelLabels === true) next.judgedOnly = false;
    if (patch.judgedOnly === true) next.modelLabels = false;
    const depthsChanged = patch.depths !== undefined;
    if (depthsChanged) next.depths = validateDepths(next.depths);
    if (!next.depths.includes(next.k)) next.k = next.depths.includes(10) ? 10 : next.depths[0]!;
    const analysisChanged =
      patch.reference !== undefined ||
      patch.candidates !== undefined ||
      (patch.level !== undefined && patch.level !== this.view.level) ||
      next.judgedOnly !== this.view.judgedOnly ||
      next.modelLabels !== this.view.modelLabels ||
      (patch.cohortAt !== undefined && patch.cohortAt !== this.view.cohortAt) ||
      // A fixed cohort is chosen under the support label: a new label chooses it again.
      (patch.label !== undefined && patch.label !== this.view.label && next.cohortAt !== null) ||
      (depthsChanged && Math.max(...next.depths) > (this.prepared?.maxDepth ?? 0));
    const modelChanged = next.modelLabels !== this.view.modelLabels;
    this.view = next;
    // Sent before the analysis is asked for: comlink keeps the order of calls on the worker's port.
    if (modelChanged) {
      void this.lab.useModelLayer(next.modelLabels);
      // The explorer's grades change with it.
      this.judgmentsRevision++;
    }
    if (analysisChanged) this.analysis.schedule(0);
  }

  /** Replace the model's labels (grades on the collection's scale) and re-analyse at once. */
  async setModelLayer(labels: readonly { readonly qid: string; readonly docId: string; readonly grade: number }[]): Promise<void> {
    await this.lab.setModelLayer(labels);
    await this.lab.useModelLayer(this.view.modelLabels);
    this.judgmentsRevision++;
    this.analysis.schedule(0);
  }

  /** Replace the judgments layer and re-analyse at once; the explorer reloads on the revision. */
  async setJudgments(judgments: readonly Judgment[]): Promise<void> {
    await this.lab.setJudgments(judgments);
    this.judgmentsRevision++;
    this.analysis.schedule(0);
  }

  /** Resolves once no analysis is pending (tests and exports). */
  settled = (): Promise<void> => this.analysis.settled();

  // The analysis, as the views read it (analysis.svelte.ts computes it).
  get prepared(): PreparedFlips | null {
    return this.analysis.prepared;
  }
  get metrics(): MetricsRow[] {
    return this.analysis.metrics;
  }
  get report(): FlipReport | null {
    return this.analysis.report;
  }
  get analysisError(): string | null {
    return this.analysis.error;
  }
  get analyzedPartial(): string[] {
    return this.analysis.analyzedPartial;
  }
  get partialProgress(): Analysis['partialProgress'] {
    return this.analysis.partialProgress;
  }

  // ---------------------------------------------------------------- explorer

  loadDetail = (qid: string, runs: readonly string[], k: number): Promise<QueryDetail> => this.lab.detail(qid, runs, k);
  explain = (qid: string, docId: string, run: string): Promise<TermExplanation | null> => this.lab.explain(qid, docId, run);
  expansion = (qid: string, run: string) => this.lab.rm3Expansion(qid, run);
  loadPassage = (docId: string): Promise<{ title: string; text: string }> => this.lab.passage(docId);

  // ---------------------------------------------------------------- exports

  /** A run as a TREC run file. */
  runText = (name: string): Promise<string> => this.lab.runText(name);
  /** trec_eval's text for a run, with the view's relevance level and judged-only mode. */
  trecEvalText = (name: string): Promise<string> => this.lab.trecEval(name, this.view.level, this.view.judgedOnly);

  dispose(): void {
    this.encoders.dispose();
    this.fusion.dispose();
    this.#worker.terminate();
  }
}
