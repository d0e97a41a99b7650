/**
 * The lab's analysis (Svelte 5 runes): measures and prepared flip ranks for the view's reference and
 * candidates, computed in the lab worker when something they depend on changes (scheduled, coalesced: one runs
 * at a time and the last request wins), and the report for the view's depths and label, re-sliced from the
 * prepared ranks on the main thread within a frame (bench:flips). Reads the Lab only through `AnalysisHost`.
 */
import type { Remote } from 'comlink';
import { reportFromPrepared, type FlipReport, type PreparedFlips } from '../../core/flips/analyze.ts';
import { modelLabelFlips, withModelLabelCounts } from '../../core/judging/model-flips.ts';
import type { SignificanceReport } from '../../core/stats/significance.ts';
import type { CollectionSummary } from '../../worker/engine.ts';
import type { LabApi } from '../../worker/api.ts';
import { errorInfo, errorText } from './errors.ts';
import type { MetricsRow, RetrieverInfo, ViewState } from '../types.ts';

/** What the analysis reads of the Lab. */
export interface AnalysisHost {
  readonly view: ViewState;
  readonly collection: CollectionSummary | null;
  readonly retrievers: readonly RetrieverInfo[];
  readonly reference: string | null;
  readonly candidates: readonly string[];
  /** Candidates held back while they restore from the cache. */
  readonly restoring: readonly string[];
  /** Runs still growing. */
  readonly partial: readonly string[];
  readonly usable: readonly string[];
  readonly lab: Remote<LabApi>;
}

export class Analysis {
  prepared: PreparedFlips | null = $state.raw(null);
  /**
   * With a model's labels filling the holes: the flip ranks on people's judgments alone (null otherwise, or when
   * people judge no query relevant on their own), to tell the flips that rest on model labels.
   */
  preparedPeople: PreparedFlips | null = $state.raw(null);
  /** Whether the current numbers read a model's labels (every view and export then says so). */
  modelLabels = $state(false);
  /** What those labels did: holes filled, labels set aside for people's grades, queries only the model judged. */
  modelStats: { readonly filled: number; readonly setAside: number; readonly modelOnlyQueries: number } | null = $state.raw(null);
  metrics: MetricsRow[] = $state.raw([]);
  error: string | null = $state(null);
  /** Candidates whose runs were partial when the current analysis was computed (what the views badge). */
  analyzedPartial: string[] = $state.raw([]);
  /** How much of each partial candidate the current analysis covers (what "x of N passages" says). */
  partialProgress: Record<string, { readonly encodedDocs: number; readonly totalDocs: number }> = $state.raw({});
  /** The added judgments the current numbers include (the headline says so only once they do). */
  analyzedJudgments = $state(0);
  /**
   * Paired tests of each candidate's measures against the reference's, for the current measures (null while
   * they are computed, or without candidates): asked for after the measures arrive, so they never delay them.
   */
  significance: SignificanceReport | null = $state.raw(null);
  /** The analysis the tests were asked for: an older answer is dropped. */
  #tested = 0;

  /**
   * The report for the current depths and label, rebuilt from prepared ranks (one frame). Any view change
   * replaces `view`, so the last report is kept while prepared ranks, depths and label stay the same: a
   * change of k (or a filter) then re-renders only what shows k, not the depth plot and every table.
   */
  report: FlipReport | null = $derived.by(() => {
    const p = this.prepared;
    if (p === null) return null;
    const view = this.#host.view;
    const depths = view.depths.filter((k) => k <= p.maxDepth);
    if (depths.length === 0) return null;
    const people = this.preparedPeople;
    const model = this.modelLabels;
    const key = `${depths.join(',')}|${view.label}|${model}`;
    const last = this.#lastReport;
    if (last !== null && last.prepared === p && last.people === people && last.key === key) return last.report;
    let report = reportFromPrepared(p, { depths, label: view.label, perQuery: true });
    if (model) {
      // Each flip that is none on people's judgments alone rests on the model's labels (all of them without people's ranks).
      const counts = modelLabelFlips(p, people, depths, view.label);
      report = withModelLabelCounts(report, counts);
    }
    this.#lastReport = { prepared: p, people, key, report };
    return report;
  });
  #lastReport: {
    readonly prepared: PreparedFlips;
    readonly people: PreparedFlips | null;
    readonly key: string;
    readonly report: FlipReport;
  } | null = null;

  readonly #host: AnalysisHost;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | null = null;
  #again = false;

  constructor(host: AnalysisHost) {
    this.#host = host;
  }

  /** Nothing analysed (a collection opens). */
  reset(): void {
    this.prepared = null;
    this.preparedPeople = null;
    this.metrics = [];
    this.significance = null;
    this.#tested++;
  }

  /** Analyse after `delayMs` (0: at the next turn, replacing a pending later one). */
  schedule(delayMs: number): void {
    if (this.#timer !== undefined) {
      if (delayMs > 0) return; // one is pending already
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#analyse();
    }, delayMs);
  }

  async #analyse(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    const h = this.#host;
    const run = (async () => {
      const reference = h.reference;
      const restoring = h.restoring;
      const candidates = h.candidates.filter((c) => !restoring.includes(c));
      if (h.collection === null) return;
      if (reference === null || !h.usable.includes(reference)) {
        // Nothing to compare with (yet): a reference still loading or encoding, failed, or none left. Its row
        // says why; rows of runs that were removed must not linger.
        this.metrics = [];
        this.prepared = null;
        this.preparedPeople = null;
        this.significance = null;
        this.analyzedPartial = [];
        this.error = null;
        return;
      }
      const partial = h.partial;
      try {
        if (h.collection.judged) {
          const { level: relevanceLevel, judgedOnly, cohortAt, label, modelLabels: wantModel } = h.view;
          // One worker call: measures and flips read the same judgments, and say how many added pairs those are.
          const { metrics, prepared, preparedPeople, modelLabels, modelStats, judgments } = await h.lab.analyse(
            reference,
            candidates,
            partial,
            {
              maxDepth: Math.max(...h.view.depths),
              relevanceLevel,
              judgedOnly,
              modelLabels: wantModel,
              ...(cohortAt === null ? {} : { cohortAt, label }),
            },
          );
          // Published together, so the views never show numbers from one state with badges from another.
          this.metrics = metrics;
          this.prepared = prepared;
          this.preparedPeople = preparedPeople;
          this.modelLabels = modelLabels;
          this.modelStats = modelStats;
          this.analyzedJudgments = judgments;
          this.analyzedPartial = partial.filter((p) => candidates.includes(p));
          this.partialProgress = Object.fromEntries(
            h.retrievers.filter((r) => this.analyzedPartial.includes(r.id) && r.partial).map((r) => [r.id, r.partial!]),
          );
          // Not on runs still growing: their numbers change every few hundred ms, and the tests take the worker.
          this.#test(reference, this.analyzedPartial.length > 0 ? [] : candidates, relevanceLevel, judgedOnly);
        } else {
          this.metrics = [];
          this.prepared = null;
          this.preparedPeople = null;
          this.significance = null;
          this.analyzedPartial = [];
        }
        this.error = null;
      } catch (e) {
        this.error = errorText(errorInfo(e));
      }
    })();
    this.#running = run;
    await run;
    this.#running = null;
    if (this.#again) {
      this.#again = false;
      await this.#analyse();
    }
  }

  /** Ask the worker for the paired tests of what was just analysed; a later analysis's answer wins. */
  #test(reference: string, candidates: readonly string[], relevanceLevel: number, judgedOnly: boolean): void {
    const asked = ++this.#tested;
    // The last tests stay on screen until the new ones arrive only when they test the same runs.
    const same = this.significance?.reference === reference && this.significance.rows.every((r) => candidates.includes(r.candidate));
    if (!same) this.significance = null;
    if (candidates.length === 0) {
      this.significance = null;
      this.#testing = null;
      return;
    }
    this.#testing = this.#host.lab.significance(reference, candidates, relevanceLevel, judgedOnly).then(
      (report) => {
        if (asked === this.#tested) this.significance = report;
      },
      (e: unknown) => {
        if (asked === this.#tested) this.error = errorText(errorInfo(e));
      },
    );
  }
  #testing: Promise<void> | null = null;

  /** Resolves once no analysis is pending, its paired tests included (tests and exports). */
  async settled(): Promise<void> {
    while (this.#timer !== undefined || this.#running !== null) {
      await (this.#running ?? new Promise((r) => setTimeout(r, 20)));
    }
    await this.#testing;
  }
}
