/**
 * A model fills the holes (Svelte 5 runes): the lab worker plans the job as `fliplab judge` does (a blind sample of
 * people's pairs, then the holes in the top k of the reference and the candidates, those behind flips first, within
 * a budget: core/judging/select.ts), a judge in an encode worker of its own gives its verdicts cache first
 * (IndexedDB: a reload or a second visit judges nothing twice, Cancel keeps every stored verdict), and the verdicts
 * become grades on the collection's scale with the audit beside them (core/judging/label.ts). The labels go to the
 * lab worker as a layer under people's judgments; the view's "holes count as" choice decides whether the numbers
 * read them.
 *
 * What was asked is kept per collection in this browser, so reopening the collection brings the layer back from
 * the cache alone — no model loads for that.
 */
import { auditSentence, type JudgeAudit } from '../../core/judging/audit.ts';
import { kendallTauB, tauAp } from '../../core/judging/agreement-stats.ts';
import { labelVerdicts, ThresholdsError, type ModelLabel, type Verdict } from '../../core/judging/label.ts';
import { pairKeyOf } from '../../core/judging/select.ts';
import { checkJudgePrompt, editedPromptId } from '../../core/judging/grades.ts';
import { customJudge, JUDGE_PRESETS, type JudgeConfig, type JudgePresetId } from '../../encoders/judge-presets.ts';
import type { JudgeProgress, WorkerDevice } from '../../lab/encode-types.ts';
import type { EncodeBridge } from '../bridge/encode-bridge.ts';
import { errorInfo, errorText } from './errors.ts';
import { countOf } from '../../core/count.ts';
import type { CollectionFile } from '../../lab/data/types.ts';
import { baseName } from '../../lab/data/bytes.ts';
import { ModelLayerStore, type StoredModelLayer } from '../../store/model-layers.ts';
import { withStore } from '../../store/with-store.ts';
import type { Lab } from './lab.svelte.ts';

/** What a judging job was asked: kept per collection, replayed from the cache when the collection reopens. */
export interface JudgingAsk {
  readonly judge: JudgeConfig;
  readonly reference: string;
  readonly candidates: readonly string[];
  readonly k: number;
  readonly budget: number;
  readonly audit: number;
  /** A cross-encoder's thresholds as the user gave them (else fitted on people's pairs, else the preset's). */
  readonly thresholds?: readonly number[];
}

/** The layer the lab holds now, and where it came from. */
export interface ModelLayerInfo {
  /** Whose labels: the judge's name, or the imported file's. */
  readonly name: string;
  /** The job that made them (null: imported from a file). */
  readonly ask: JudgingAsk | null;
  readonly labels: readonly ModelLabel[];
  readonly thresholds: readonly number[] | null;
  readonly thresholdsFrom: string | null;
  readonly audit: JudgeAudit | null;
  /** The sentence a teacher reads out (or why there is no audit). */
  readonly sentence: string;
  /** Verdicts the cache held, and made now; pairs not judged yet (a replay from the cache that found gaps). */
  readonly cached: number;
  readonly judged: number;
  readonly missing: number;
  readonly holes: number;
  readonly holesBehindFlips: number;
  readonly device: WorkerDevice | null;
}

/** The imported layers as the lab keeps them (IndexedDB; component tests pass their own). */
export type ModelLayersAccess = <T>(use: (store: Pick<ModelLayerStore, 'get' | 'put' | 'delete'>) => Promise<T>) => Promise<T>;

const indexedDbLayers: ModelLayersAccess = (use) => withStore(() => ModelLayerStore.open(), use);

const ASK_KEY = (collection: string) => `fliplab.judging.${collection}`;

/** Judge presets by kind, for the chooser. */
export const JUDGES: readonly JudgeConfig[] = Object.values(JUDGE_PRESETS);

export class ModelJudging {
  judgeId: string = $state('ms-marco-minilm');
  budget = $state(200);
  audit = $state(100);
  /** A judge outside the presets (any repo id on the model host): chosen when its id is `judgeId`. */
  custom: JudgeConfig | null = $state.raw(null);
  /** A cross-encoder's score thresholds of grades 1, 2, … as typed ('' : fitted on people's pairs, else the preset's). */
  thresholdsText = $state('');
  status: 'idle' | 'judging' | 'ready' | 'cancelled' | 'failed' = $state('idle');
  progress: JudgeProgress | null = $state.raw(null);
  download: { readonly file: string; readonly loaded: number; readonly total: number } | null = $state.raw(null);
  layer: ModelLayerInfo | null = $state.raw(null);
  error: string | null = $state(null);
  /** What the last import read, and what it left out. */
  importNote: string | null = $state(null);

  readonly #lab: Lab;
  readonly #bridge: EncodeBridge;
  #abort: AbortController | null = null;
  #restoredFor: string | null = null;
  /** The layer and runs the systems' ordering was last asked for. */
  #systemsFor = '';
  readonly #stop: () => void;

  readonly #layers: ModelLayersAccess;

  constructor(lab: Lab, bridge: EncodeBridge, layers: ModelLayersAccess = indexedDbLayers) {
    this.#lab = lab;
    this.#bridge = bridge;
    this.#layers = layers;
    this.#stop = $effect.root(() => {
      // With 3 or more runs: does the ordering of systems survive the model's labels? (τ-b, τ_AP beside the audit.)
      $effect(() => {
        const layer = this.layer;
        const runs = lab.usable;
        if (layer === null || layer.audit === null || runs.length < 3) return;
        const key = `${layer.labels.length}|${runs.join(',')}|${lab.view.level}`;
        if (key === this.#systemsFor) return;
        this.#systemsFor = key;
        void lab.lab.modelSystems(runs, 'ndcg_cut.10', lab.view.level).then((systems) => {
          if (systems === null || this.layer !== layer || layer.audit === null) return;
          const names = systems.runs.map((r) => r.name);
          const human = systems.runs.map((r) => r.human);
          const model = systems.runs.map((r) => r.model);
          const audit = { ...layer.audit, systems: { ...systems, tau: kendallTauB(human, model), tau_ap: tauAp(names, human, model) } };
          this.layer = { ...layer, audit, sentence: auditSentence(audit, this.#whose()) };
        });
      });
      // A reopened collection brings its layer back from the cache, once its runs are there.
      $effect(() => {
        const id = lab.collectionId;
        const usable = lab.usable;
        if (id === null || id === this.#restoredFor || lab.collection?.judged !== true) return;
        const ask = readAsk(id);
        if (ask === null) {
          this.#restoredFor = id;
          // A layer imported from a file comes back from IndexedDB.
          void this.#layers((s) => s.get(id)).then((stored) => {
            if (stored !== undefined && lab.collectionId === id) return this.#useStored(stored);
          });
          return;
        }
        if (![ask.reference, ...ask.candidates].every((r) => usable.includes(r))) return;
        this.#restoredFor = id;
        void this.#run(ask, { cacheOnly: true });
      });
    });
  }

  /** The judge chosen now. */
  get judge(): JudgeConfig {
    const chosen: JudgeConfig =
      this.custom !== null && this.custom.id === this.judgeId
        ? this.custom
        : (JUDGE_PRESETS[this.judgeId as JudgePresetId] ?? JUDGE_PRESETS['ms-marco-minilm']);
    if (chosen.kind !== 'llm' || chosen.prompt === undefined) return chosen;
    const edited = this.promptText;
    if (edited === null || edited === chosen.prompt.template) return chosen;
    // An edited prompt is another judge: its own name (and its text in every verdict's key: judge-job.ts).
    return { ...chosen, prompt: { ...chosen.prompt, id: editedPromptId(chosen.prompt.id, edited), template: edited } };
  }

  /** The LLM judge's prompt as edited here (null: the preset's, as published). */
  promptText: string | null = $state(null);

  /** What is wrong with the edited prompt (null: nothing). */
  get promptProblem(): string | null {
    return this.promptText === null ? null : checkJudgePrompt(this.promptText);
  }

  /** Use any model on the model host as the judge: a cross-encoder (sequence classifier) or a causal LM. */
  useModel(model: string, kind: 'cross-encoder' | 'llm'): void {
    const id = model.trim();
    if (id === '') return;
    this.custom = customJudge(id, kind);
    this.judgeId = this.custom.id;
  }

  /** The thresholds typed, or an error in words; null: none typed. */
  thresholds(): { value: number[] } | { error: string } | null {
    const text = this.thresholdsText.trim();
    if (text === '') return null;
    const t = text.split(/[\s,]+/).map(Number);
    if (t.some((x, i) => !Number.isFinite(x) || (i > 0 && x < t[i - 1]!)))
      return { error: `thresholds: expected ascending numbers separated by commas, got "${text}"` };
    return { value: t };
  }

  /** The layer as TREC qrels (grades on the collection's scale). */
  qrelsText(): string {
    return (this.layer?.labels ?? []).map((l) => `${l.qid} 0 ${l.docId} ${l.grade}\n`).join('');
  }

  /** The layer's provenance, the JSON sidecar `fliplab judge` writes too. */
  provenanceText(collection: string): string {
    const layer = this.layer;
    if (layer === null) return '{}\n';
    const ask = layer.ask;
    const judge = ask?.judge;
    return `${JSON.stringify(
      {
        ...(judge === undefined
          ? { imported_from: layer.name }
          : {
              judge: {
                id: judge.id,
                kind: judge.kind,
                model: judge.model,
                revision: judge.revision,
                dtype: judge.dtype,
                label: judge.label,
              },
            }),
        ...(judge?.kind === 'llm' && judge.prompt ? { prompt: judge.prompt } : {}),
        collection,
        ...(ask === null ? {} : { runs: [ask.reference, ...ask.candidates], k: ask.k, budget: ask.budget }),
        thresholds: layer.thresholds,
        thresholds_from: layer.thresholdsFrom,
        pairs: { holes: layer.holes, holes_behind_flips: layer.holesBehindFlips, labels: layer.labels.length },
        device: layer.device,
        audit: layer.audit === null ? null : { ...layer.audit, summary: layer.sentence },
        made_by: 'the fliplab lab',
      },
      null,
      2,
    )}\n`;
  }

  /** Judge the holes of the view's reference and candidates at its k. */
  async start(): Promise<void> {
    const lab = this.#lab;
    const reference = lab.reference;
    if (reference === null || lab.collectionId === null) return;
    if (this.promptProblem !== null) {
      this.error = this.promptProblem;
      return;
    }
    const typed = this.thresholds();
    if (typed !== null && 'error' in typed) {
      this.error = typed.error;
      return;
    }
    const ask: JudgingAsk = {
      judge: { ...this.judge },
      ...(typed === null || this.judge.kind !== 'cross-encoder' ? {} : { thresholds: typed.value }),
      reference,
      candidates: [...lab.candidates],
      k: lab.view.k,
      budget: this.budget,
      audit: this.audit,
    };
    writeAsk(lab.collectionId, ask);
    await this.#run(ask, { cacheOnly: false });
  }

  cancel(): void {
    this.#abort?.abort();
  }

  /**
   * Take a model's judgments made elsewhere (TREC or BEIR qrels) as the layer: grades outside the collection's scale
   * are refused with the file and line; labels for queries or passages the collection lacks are counted and left
   * out; the audit compares the pairs people also graded. Kept in IndexedDB for the next visit.
   */
  async importLayer(file: CollectionFile): Promise<void> {
    const lab = this.#lab;
    const id = lab.collectionId;
    if (id === null) return;
    this.cancel();
    this.error = null;
    this.importNote = null;
    try {
      const read = await lab.lab.parseModelQrelsFile(file, lab.view.level);
      const stored: StoredModelLayer = {
        collection: id,
        name: baseName(file.path),
        labels: read.labels,
        audit: read.audit,
        unknownQueries: read.unknownQueries,
        unknownPassages: read.unknownPassages,
        importedAt: nowIso(),
      };
      await this.#layers((s) => s.put(stored));
      writeAsk(id, null);
      await this.#useStored(stored);
      if (!lab.view.modelLabels) lab.setView({ modelLabels: true });
      const left = [
        ...(read.unknownQueries > 0
          ? [
              `${countOf(read.unknownQueryLabels, 'label')} for ${countOf(read.unknownQueries, 'query', 'queries')} ` +
                'the collection does not have',
            ]
          : []),
        ...(read.unknownPassages > 0 ? [`${countOf(read.unknownPassages, 'label')} for passages it does not have`] : []),
      ];
      this.importNote =
        `${countOf(read.labels.length, 'label')} read from ${baseName(file.path)}` +
        (left.length > 0 ? `; left out: ${left.join(', ')}.` : '.');
    } catch (e) {
      this.error = errorText(errorInfo(e));
    }
  }

  async #useStored(stored: StoredModelLayer): Promise<void> {
    this.layer = {
      name: stored.name,
      ask: null,
      labels: stored.labels,
      thresholds: null,
      thresholdsFrom: null,
      audit: stored.audit,
      sentence:
        stored.audit === null
          ? 'No pair in the file is one people graded: the labels are unaudited.'
          : auditSentence(stored.audit, this.#whose()),
      cached: stored.labels.length,
      judged: 0,
      missing: 0,
      holes: stored.labels.length,
      holesBehindFlips: 0,
      device: null,
    };
    this.status = 'ready';
    await this.#lab.setModelLayer(stored.labels);
  }

  /** Forget the layer: the lab's numbers go back to people's judgments (the verdicts stay cached). */
  async clear(): Promise<void> {
    this.cancel();
    const id = this.#lab.collectionId;
    if (id !== null) {
      writeAsk(id, null);
      await this.#layers((s) => s.delete(id)).catch(() => undefined);
    }
    this.layer = null;
    this.status = 'idle';
    await this.#lab.setModelLayer([]);
    if (this.#lab.view.modelLabels) this.#lab.setView({ modelLabels: false });
  }

  async #run(ask: JudgingAsk, options: { cacheOnly: boolean }): Promise<void> {
    const lab = this.#lab;
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    this.status = 'judging';
    this.error = null;
    this.progress = null;
    this.download = null;
    const collection = lab.collectionId;
    try {
      const plan = await lab.lab.judgingPlan(ask.reference, ask.candidates, { k: ask.k, budget: ask.budget, audit: ask.audit });
      // Plain data, collected while the job runs and read once at its end: not state.
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      const verdicts = new Map<string, Verdict>();
      // Only the pair and its texts go to the judge: never which run found the passage.
      const tasks = plan.tasks.map((t) => ({ qid: t.qid, docid: t.docid, query: t.query, passage: t.passage }));
      const result = await this.#bridge.judgePairs(
        {
          judge: ask.judge,
          load: {
            device: lab.settings.device === 'wasm' ? 'wasm' : 'webgpu',
            source: { remoteHost: `${lab.settings.modelHost}/`, allowRemote: true },
            avoidSoftwareAdapter: lab.settings.device === 'auto',
          },
          tasks,
          ...(options.cacheOnly ? { cacheOnly: true } : {}),
        },
        (p) => (this.progress = p),
        (records) => {
          for (const r of records) verdicts.set(pairKeyOf(r), r);
        },
        abort.signal,
        (event) => {
          if (event.kind === 'download') this.download = event;
        },
      );
      if (lab.collectionId !== collection) return;
      const labelled = labelVerdicts(plan, verdicts, {
        kind: ask.judge.kind,
        scaleMax: plan.scaleMax,
        level: lab.view.level,
        name: ask.judge.label,
        ...(ask.judge.thresholds === undefined ? {} : { presetThresholds: ask.judge.thresholds }),
        ...(ask.thresholds === undefined ? {} : { thresholds: ask.thresholds }),
      });
      this.layer = {
        name: ask.judge.label,
        ask,
        labels: labelled.labels,
        thresholds: labelled.thresholds,
        thresholdsFrom: labelled.thresholdsFrom,
        audit: labelled.audit,
        sentence:
          labelled.audit === null
            ? 'No pair people judged was re-judged: the model’s labels are unaudited.'
            : auditSentence(labelled.audit, this.#whose()),
        cached: result.cached,
        judged: result.judged,
        missing: plan.tasks.length - verdicts.size,
        holes: plan.holes,
        holesBehindFlips: plan.holesBehindFlips,
        device: result.device,
      };
      await lab.setModelLayer(labelled.labels);
      // A job the user started means "fill the holes": the numbers read the labels from now on.
      if (!options.cacheOnly && !lab.view.modelLabels) lab.setView({ modelLabels: true });
      this.status = 'ready';
    } catch (e) {
      if (abort.signal.aborted) this.status = 'cancelled';
      else {
        this.status = 'failed';
        this.error = e instanceof ThresholdsError ? e.message : errorText(errorInfo(e));
      }
    } finally {
      if (this.#abort === abort) this.#abort = null;
      this.download = null;
    }
  }

  /** Whose grades the audit compares with: people's, or (made queries) the source passages'. */
  #whose(): 'people' | 'sources' {
    return this.#lab.collection?.synthetic ? 'sources' : 'people';
  }

  dispose(): void {
    this.cancel();
    this.#stop();
    this.#bridge.terminate();
  }
}

function readAsk(collection: string): JudgingAsk | null {
  try {
    const raw = globalThis.localStorage?.getItem(ASK_KEY(collection));
    return raw ? (JSON.parse(raw) as JudgingAsk) : null;
  } catch {
    return null;
  }
}

function writeAsk(collection: string, ask: JudgingAsk | null): void {
  try {
    if (ask === null) globalThis.localStorage?.removeItem(ASK_KEY(collection));
    else globalThis.localStorage?.setItem(ASK_KEY(collection), JSON.stringify(ask));
  } catch {
    // no storage: the layer is not restored on the next visit (the verdicts stay cached)
  }
}

/** When a layer was imported (a plain timestamp, not state). */
const nowIso = (): string => new globalThis.Date(Date.now()).toISOString();
