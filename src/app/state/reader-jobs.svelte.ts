/**
 * The reader of the answer level: which model answers (a preset from the model host, or a folder picked from
 * the disk), and the job that answers a flip set run by run in an encode worker of its own (a reader job and
 * an encoding job do not queue behind each other), cache first: answers already in IndexedDB arrive at once.
 */
import { READER_TEMPLATE, templateName, type ReaderTaskSet, type ReaderTemplate } from '../../core/answers/prompt.ts';
import type { EncoderDtype } from '../../encoders/presets.ts';
import { READER_PRESETS, type ReaderConfig } from '../../encoders/reader-presets.ts';
import { localModelSource, type PickedFile } from '../../lab/local-model.ts';
import type { AnswerProgress, EncodeBridge } from '../bridge/encode-bridge.ts';
import { ModelFolders } from './model-folders.ts';

/** A run's answers and where they came from. */
export interface RunAnswers {
  readonly k: number;
  readonly source: string;
  readonly predictions: Readonly<Record<string, string>>;
  /** Imported from a file (the user's own system): a reader job leaves them alone. */
  readonly imported?: boolean;
}

export interface ReaderJob {
  readonly run: string;
  readonly progress: AnswerProgress | null;
  /** The reader's files arriving (bytes per file), while it downloads. */
  readonly download?: { readonly file: string; readonly loaded: number; readonly total: number };
}

type ModelSource = { remoteHost?: string; localModelPath?: string; allowRemote?: boolean };

/** What a reader job reads and writes of the answer level. */
export interface ReaderHost {
  readonly modelHost: string;
  /** The prompts of `run`'s top k for these queries (the lab worker makes them from the open collection). */
  readerTasks(run: string, queryIds: readonly string[], k: number, template: ReaderTemplate): Promise<ReaderTaskSet>;
  answersOf(run: string): RunAnswers | undefined;
  /** `run`'s answers so far, as they arrive. */
  publish(run: string, answers: RunAnswers): void;
}

export class ReaderJobs {
  reader: ReaderConfig = $state({ ...READER_PRESETS['qwen2.5-0.5b'] });
  readonly template: ReaderTemplate = READER_TEMPLATE;
  job: ReaderJob | null = $state.raw(null);
  /** A reader folder picked from disk and registered with the worker (its files never leave the page). */
  localReader: { readonly name: string; readonly revision: string; readonly dtype: EncoderDtype } | null = $state.raw(null);

  readonly #host: ReaderHost;
  readonly #bridge: EncodeBridge;
  readonly #folders: ModelFolders;
  #abort: AbortController | null = null;

  constructor(host: ReaderHost, bridge: EncodeBridge) {
    this.#host = host;
    this.#bridge = bridge;
    this.#folders = new ModelFolders(this.#bridge);
  }

  /**
   * Use a model folder picked from disk as the reader: its files are registered with the worker, which
   * serves them to transformers.js itself; the cache key carries the folder's content fingerprint.
   */
  async pickFolder(files: readonly PickedFile[], dtype: EncoderDtype): Promise<void> {
    const local = await this.#folders.register(files, dtype);
    this.localReader = { name: local.name, revision: local.revision, dtype };
    this.reader = { id: local.name, label: local.folder, model: local.name, revision: local.revision, dtype };
  }

  /** Where the reader's files come from: the picked folder, or the model host in Settings. */
  source(): ModelSource {
    return this.localReader !== null && this.reader.model === this.localReader.name
      ? localModelSource()
      : { remoteHost: `${this.#host.modelHost}/`, allowRemote: true };
  }

  /**
   * Answer each run's queries at depth k, run by run, skipping predictions the user imported for this k.
   * Returns the questions the reader refused (said as "run, query q: reason"); Cancel keeps every stored
   * answer, and answering again resumes.
   */
  async answer(
    k: number,
    runs: readonly { readonly run: string; readonly queryIds: readonly string[] }[],
    options: { readonly device: 'wasm' | 'webgpu'; readonly source: ModelSource },
  ): Promise<string[]> {
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    // A plain copy: the state proxy cannot be posted to the worker.
    const reader = { ...this.reader };
    const source = `${reader.model} (${reader.dtype}, ${templateName(this.template)})`;
    const refused: string[] = [];
    // The job exists from the click on, before the first await: the button turns into Cancel at once.
    this.job = { run: runs[0]?.run ?? '', progress: null };
    try {
      for (const { run, queryIds } of runs) {
        if (abort.signal.aborted) break;
        const existing = this.#host.answersOf(run);
        // Predictions the user imported for this k are theirs: the reader does not replace them.
        if ((existing?.imported === true && existing.k === k) || queryIds.length === 0) continue;
        const set = await this.#host.readerTasks(run, queryIds, k, this.template);
        if (abort.signal.aborted) break;
        const predictions: Record<string, string> =
          existing !== undefined && existing.k === k && existing.source === source ? { ...existing.predictions } : {};
        this.job = { run, progress: null };
        // Published as answers arrive; an earlier reader's answers stay until this one's first answer.
        const publish = () => this.#host.publish(run, { k, source, predictions: { ...predictions } });
        const result = await this.#bridge.answerQuestions(
          {
            reader,
            load: { device: options.device, source: options.source, avoidSoftwareAdapter: true },
            template: this.template,
            k,
            tasks: set.tasks,
          },
          (p) => (this.job = { run, progress: p }),
          (queryId, prediction) => {
            predictions[queryId] = prediction;
            publish();
          },
          abort.signal,
          (event) => {
            if (event.kind === 'download') this.job = { run, progress: this.job?.progress ?? null, download: event };
          },
        );
        if (Object.keys(predictions).length > 0) publish();
        for (const r of result.refused) refused.push(`${run}, query ${r.queryId}: ${r.reason}`);
      }
      return refused;
    } finally {
      // A newer job (a second click) owns the status from here on.
      if (this.#abort === abort) {
        this.#abort = null;
        this.job = null;
      }
    }
  }

  cancel(): void {
    this.#abort?.abort();
  }

  dispose(): void {
    this.cancel();
    this.#bridge.terminate();
  }
}
