/**
 * Encoder jobs of the lab (Svelte 5 runes): encoding queries then passages cache first through the encode
 * worker (EncodeBridge), the row's view of a model download (plan, confirmation, bytes per file), the
 * calibration that offers WASM when it is much faster than the WebGPU adapter, model folders picked from the
 * disk (kept in IndexedDB when the browser allows), and vector packs (import, export). The retriever rows and
 * the analysis belong to the Lab (lab.svelte.ts); this class reaches them only through `EncoderHost`. How a
 * job shows in its row is encoder-rows.ts; the WASM calibration batch, calibration.ts.
 */
import { isAbort } from '../../core/error-message.ts';
import { proxy, transfer } from 'comlink';
import { etaMs } from '../../core/progress.ts';
import type { EncoderConfig, EncoderDtype, PresetId } from '../../encoders/presets.ts';
import { encoderConfig, encoderRunId, isRecipeRunId, parseEncoderRunId, LOCAL_MODEL_PREFIX } from '../../lab/retriever-ids.ts';
import { encoderRecipe } from '../../report/recipe.ts';
import { failureOf, problemOf } from '../../lab/problems.ts';
import type { EncodeProgress } from '../../encoders/job.ts';
import type { StoredVector } from '../../encoders/pooling.ts';
import { EncodeBridge, type ModelEvent, type WorkerInitOptions, type WorkerLoadOptions } from '../bridge/encode-bridge.ts';
import { downloadState } from './download-state.ts';
import { rememberLocalRevision } from './local-revisions.ts';
import { deviceOf, FROM_CACHE, jobProgress, progressState } from './encoder-rows.ts';
import { CALIBRATE_ABOVE_MS, timeOnWasm } from './calibration.ts';
import { localModelSource, prepareLocalModel, type PickedFile } from '../../lab/local-model.ts';
import { filesOfDirectory, folderReadable, FolderHandles, type DirectoryHandleLike } from '../../lab/folder-handles.ts';
import { errorInfo, errorText } from './errors.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import type { DownloadState } from '../../lab/types.ts';
import type { RetrieverInfo } from '../types.ts';
import type { EncoderHost } from './host.ts';

/** How often a growing run is re-analysed while encoding. */
const LIVE_ANALYSIS_MS = 400;

export class EncoderJobs {
  /** The last vector pack import: what it is doing, what it did, or why it failed. */
  packStatus: { readonly state: 'importing' | 'done' | 'error'; readonly text: string; readonly id?: string } | null = $state.raw(null);

  // Bookkeeping, not state the views read: plain collections on purpose (the rows are the Lab's runes).
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #jobs = new Map<string, AbortController>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #sources = new Map<string, WorkerLoadOptions['source']>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #confirms = new Map<string, () => void>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #deviceOverrides = new Map<string, 'wasm' | 'webgpu'>();
  readonly #host: EncoderHost;
  readonly #bridge: EncodeBridge;
  readonly #workerInit: WorkerInitOptions;

  constructor(host: EncoderHost, init: WorkerInitOptions, bridge?: EncodeBridge) {
    this.#host = host;
    this.#workerInit = init;
    this.#bridge = bridge ?? new EncodeBridge({ init });
  }

  /** Whether an encoder job for `id` is running. */
  running(id: string): boolean {
    return this.#jobs.has(id);
  }

  /** Encode queries then passages (cache first); the run grows and is analysed as batches commit. */
  async addEncoder(config: EncoderConfig, source?: WorkerLoadOptions['source']): Promise<void> {
    const id = encoderRunId(config);
    if (this.#jobs.has(id)) return;
    if (this.#host.collection === null) return;
    this.#host.specs.set(id, { kind: 'encoder', config });
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
      if (live()) this.#host.patch(id, p);
    };
    const totalDocs = this.#host.collection.docs;
    this.#host.upsert({
      id,
      name: id,
      kind: config.kind === 'sparse' ? 'sparse' : 'dense',
      // A job begins by looking in this browser's cache; the model is loaded only if something is missing.
      status: 'checking',
      dtype: config.dtype,
      recipe: encoderRecipe(config),
    });
    const onModel = this.#modelEvents(id, patch, () => this.#jobs.get(id) === controller);
    const device = this.#deviceOverrides.get(id) ?? (this.#host.settings.device === 'wasm' ? 'wasm' : 'webgpu');
    const load: WorkerLoadOptions = {
      device,
      // "Auto" does not run on a software WebGPU adapter (slower than WASM); "WebGPU" uses whatever there is.
      avoidSoftwareAdapter: this.#host.settings.device === 'auto',
      dtype: config.dtype,
      source: source ?? { remoteHost: `${this.#host.settings.modelHost}/`, allowRemote: true },
    };
    try {
      const queries = await this.#host.lab.evaluatedQueries();
      const q = await this.#bridge.encodeCorpus(
        { config, load, texts: queries.texts, role: 'query' },
        (p) => patch({ ...progressState(p, this.#host.statusOf(id)), progress: jobProgress(p, 'queries') }),
        signal,
        undefined,
        onModel,
      );
      // Only a model that was loaded is named; "cache" waits until the passages are known to need none either.
      if (q.load) patch(deviceOf(q.load, q.fallback));
      await this.#host.lab.beginVectorRun(id, q.vectors);
      patch({ partial: { encodedDocs: 0, totalDocs } });
      this.#host.select(id);
      const passages = await this.#host.lab.passageTexts();
      const calibrate = this.#calibration(id, config, load, passages, patch, live, signal);
      const result = await this.#bridge.encodeCorpus(
        { config, load, texts: passages, role: 'passage', returnVectors: false },
        (p) => {
          patch({ ...progressState(p, this.#host.statusOf(id)), progress: jobProgress(p, 'documents') });
          calibrate(p);
        },
        signal,
        async (positions: readonly number[], vectors: readonly StoredVector[]) => {
          if (!live()) return;
          const s = await this.#host.lab.addVectors(id, positions, vectors);
          patch({ partial: { encodedDocs: s.encodedDocs ?? 0, totalDocs } });
          this.#host.scheduleAnalysis(LIVE_ANALYSIS_MS);
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
      this.#host.scheduleAnalysis(0);
    } catch (e) {
      if (isAbort(e) || signal.aborted) patch({ status: 'cancelled', offer: null });
      else if (failureOf(e) === 'folder-not-registered') {
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
        const failure = failureOf(e);
        patch({ status: 'error', error: errorText(errorInfo(e)), ...(problem ? { problem } : {}), ...(failure ? { failure } : {}) });
      }
      this.#host.scheduleAnalysis(0);
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
        if (download.downloadBytes > this.#host.settings.confirmAboveMB * 1e6 || unknownSize) {
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
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') return;
    this.#deviceOverrides.set(id, device);
    this.#jobs.get(id)?.abort();
    this.#jobs.delete(id);
    this.#host.patch(id, { offer: null });
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
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') return;
    const handle = await this.#folderHandle(spec.config.model);
    if (!handle || !(await folderReadable(handle, true).catch(() => false))) {
      this.#host.patch(id, { error: `reading the folder was not allowed: pick the model folder again`, folderAccess: false });
      return;
    }
    const config = await this.#registerFolder(handle, spec.config);
    this.#host.patch(id, { folderAccess: false });
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
    if (this.#host.collection === null) return;
    this.packStatus = { state: 'importing', text: 'checking the pack…' };
    try {
      // Handed over, not copied: a FiQA-sized pack is hundreds of MB (the page does not need the bytes again).
      const buffers = files.map((f) => f.bytes.buffer as ArrayBuffer).filter((b, i, all) => all.indexOf(b) === i);
      const result = await this.#host.lab.importPack(
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
        const row = this.#host.retrievers.find((r) => r.id === id);
        if (result.missing !== null && row?.status === 'error' && row.failure === 'model-load')
          this.#host.patch(id, { error: `${result.missing}, and its model did not load, so the pack must carry them: ${row.error}` });
      });
    } catch (e) {
      this.packStatus = { state: 'error', text: errorText(errorInfo(e)) };
    }
  }

  /** Download an encoder's cached vectors of the open collection as a vector pack (.zip). */
  async exportPack(id: string): Promise<{ name: string; bytes: Uint8Array }> {
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') throw new Error(`${id} is not an encoder`);
    const bytes = await this.#host.lab.exportPack(spec.config, 'fliplab browser lab');
    return { name: `${this.#host.collection?.name ?? 'collection'}-${id}.fliplab-vectors.zip`, bytes };
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
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder' || this.#jobs.has(id)) return;
    await this.addEncoder(spec.config, this.#sources.get(id));
  }

  cancelAll(): void {
    for (const c of this.#jobs.values()) c.abort();
  }

  dispose(): void {
    this.cancelAll();
    this.#bridge.terminate();
  }
}
