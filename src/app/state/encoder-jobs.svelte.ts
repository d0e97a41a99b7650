/**
 * Encoder jobs of the lab: encoding queries then passages cache first through the encode worker
 * (EncodeBridge), the run growing and analysed as batches commit; cancel, resume, a switch of device, a model
 * folder read again. The retriever rows and the analysis belong to the Lab (lab.svelte.ts); this class reaches
 * them only through `EncoderHost`. Its parts: how a job shows in its row (encoder-rows.ts), the model download
 * (download-state.ts), the calibration that offers WASM (calibration.ts), model folders (model-folders.ts).
 */
import { isAbort } from '../../core/error-message.ts';
import { agreementSample } from '../../encoders/agreement.ts';
import type { EncoderConfig, EncoderDtype, PresetId } from '../../encoders/presets.ts';
import type { StoredVector } from '../../encoders/pooling.ts';
import { filesOfDirectory, folderReadable, type DirectoryHandleLike } from '../../lab/folder-handles.ts';
import { localModelSource, type PickedFile } from '../../lab/local-model.ts';
import { failureOf, problemOf } from '../../lab/problems.ts';
import { encoderConfig, encoderRunId, LOCAL_MODEL_PREFIX } from '../../lab/retriever-ids.ts';
import { encoderRecipe } from '../../report/recipe.ts';
import { EncodeBridge, type WorkerInitOptions, type WorkerLoadOptions } from '../bridge/encode-bridge.ts';
import type { RetrieverInfo } from '../types.ts';
import { calibrationWatch } from './calibration.ts';
import { followModelLoad } from './download-state.ts';
import { deviceOf, FROM_CACHE, jobProgress, pathAfter, progressState } from './encoder-rows.ts';
import { errorInfo, errorText } from './errors.ts';
import type { EncoderHost } from './host.ts';
import { ModelFolders } from './model-folders.ts';

/** How often a growing run is re-analysed while encoding. */
const LIVE_ANALYSIS_MS = 400;

export class EncoderJobs {
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
  readonly #folders: ModelFolders;

  constructor(host: EncoderHost, init: WorkerInitOptions, bridge?: EncodeBridge) {
    this.#host = host;
    this.#workerInit = init;
    this.#bridge = bridge ?? new EncodeBridge({ init });
    this.#folders = new ModelFolders(this.#bridge);
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
    const onModel = followModelLoad({
      confirmAboveBytes: () => this.#host.settings.confirmAboveMB * 1e6,
      patch,
      live,
      // Held until Download (confirmDownload) or Cancel (which ends the worker, and the load with it).
      confirm: () => new Promise<void>((resolve) => this.#confirms.set(id, resolve)).finally(() => this.#confirms.delete(id)),
    });
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
      const passages = await this.#host.lab.passageTexts();
      // The sample a path other than WASM fp32 is checked on before it encodes (encoders/agreement.ts).
      const agreement = agreementSample(queries.texts, passages);
      const q = await this.#bridge.encodeCorpus(
        { config, load, texts: queries.texts, role: 'query', agreement },
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
      const calibrate = calibrationWatch({
        config,
        load,
        passages,
        init: this.#workerInit,
        signal,
        live,
        offer: (offer) => patch({ offer }),
      });
      const result = await this.#bridge.encodeCorpus(
        { config, load, texts: passages, role: 'passage', returnVectors: false, agreement },
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
        offerPath: null,
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
        const handle = await this.#folders.handleOf(config.model);
        if (handle && (await folderReadable(handle, false).catch(() => false))) {
          // Remembered, and still readable: read it again and go on, no question asked.
          retryWith = { ...config, revision: (await this.#folders.registerHandle(handle, config.dtype)).revision };
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
        // The device the failure happened on, where known (the load's error, or the row once loaded), else the one asked for.
        const said = (e as { device?: unknown }).device ?? this.#host.retrievers.find((r) => r.id === id)?.device;
        const offerPath = pathAfter(failure, problem, said === 'webgpu' || said === 'wasm' ? said : device, config.dtype);
        patch({
          status: 'error',
          error: errorText(errorInfo(e)),
          offerPath,
          ...(problem ? { problem } : {}),
          ...(failure ? { failure } : {}),
        });
      }
      this.#host.scheduleAnalysis(0);
    } finally {
      // A newer job for the same id (the collection was reopened) keeps its own controller.
      if (this.#jobs.get(id) === controller) this.#jobs.delete(id);
    }
    if (retryWith !== null && !this.#jobs.has(id)) void this.addEncoder(retryWith, source);
  }

  /**
   * The path a failed row offers (`offerPath`), taken: `wasm` continues the same encoder on WASM from what was
   * committed; `reference` encodes with the reference path, WASM and fp32 weights — for an fp16 or q8 encoder that
   * is another run, added beside the refused row (which keeps saying what disagreed).
   */
  usePath(id: string, path: 'wasm' | 'reference'): void {
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') return;
    this.#host.patch(id, { offerPath: null });
    if (path === 'wasm' || spec.config.dtype === 'fp32') return this.switchDevice(id, 'wasm');
    const reference = { ...spec.config, dtype: 'fp32' as const };
    this.#deviceOverrides.set(encoderRunId(reference), 'wasm');
    void this.addEncoder(reference, this.#sources.get(id));
  }

  /** Continue an encoder on another device (the calibration's offer): committed vectors are kept. */
  switchDevice(id: string, device: 'wasm' | 'webgpu'): void {
    const spec = this.#host.specs.get(id);
    if (spec?.kind !== 'encoder') return;
    this.#deviceOverrides.set(id, device);
    this.supersede(id);
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
    const local = await this.#folders.register(picked, options.dtype);
    if (handle) await this.#folders.remember(local.name, handle);
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
    const handle = await this.#folders.handleOf(spec.config.model);
    if (!handle || !(await folderReadable(handle, true).catch(() => false))) {
      this.#host.patch(id, { error: `reading the folder was not allowed: pick the model folder again`, folderAccess: false });
      return;
    }
    const config = { ...spec.config, revision: (await this.#folders.registerHandle(handle, spec.config.dtype)).revision };
    this.#host.patch(id, { folderAccess: false });
    await this.addEncoder(config, localModelSource());
  }

  cancel(id: string): void {
    this.#jobs.get(id)?.abort();
    this.#confirms.delete(id);
  }

  /** End `id`'s job now, so that a new one for the same encoder can start at once (its row and run go on). */
  supersede(id: string): void {
    this.#jobs.get(id)?.abort();
    this.#jobs.delete(id);
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
