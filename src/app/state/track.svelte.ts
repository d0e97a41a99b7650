/**
 * A whole track against the reference (Svelte 5 runes): with three or more finished runs on a collection with
 * judgments — a TREC track's submissions, say — every run's tests on one measure (Tukey HSD included) and its
 * flips at each depth, computed in the lab worker (engine.ts `track`) when the runs, the reference, the
 * measure or the analysis settings change; the last request wins. The table sorts and picks a run as the
 * candidate of the full analysis.
 */
import type { Remote } from 'comlink';
import type { CollectionSummary } from '../../worker/engine.ts';
import type { LabApi } from '../../worker/api.ts';
import type { TrackReport } from '../../lab/types.ts';
import { errorInfo, errorText } from './errors.ts';
import type { ViewState } from '../types.ts';

/** Runs (reference included) from which the track table is offered. */
export const TRACK_MIN_RUNS = 3;

/** What the track reads of the Lab. */
export interface TrackHost {
  readonly view: ViewState;
  readonly collection: CollectionSummary | null;
  readonly reference: string | null;
  readonly usable: readonly string[];
  readonly partial: readonly string[];
  readonly lab: Remote<LabApi>;
}

export class Track {
  /** The measure of the table (a lab measure key: "ndcg_cut.10"). */
  measure: string = $state('ndcg_cut.10');
  report: TrackReport | null = $state.raw(null);
  error: string | null = $state(null);
  /** A request is in the worker (the shown report may be the previous one). */
  busy = $state(false);

  readonly #host: TrackHost;
  #asked = 0;

  constructor(host: TrackHost) {
    this.#host = host;
  }

  /** The finished runs the table compares with the reference (none while fewer than TRACK_MIN_RUNS). */
  runs: string[] = $derived.by(() => {
    const h = this.#host;
    if (h.collection === null || !h.collection.judged || h.reference === null) return [];
    const runs = h.usable.filter((r) => r !== h.reference && !h.partial.includes(r));
    return runs.length + 1 >= TRACK_MIN_RUNS ? runs : [];
  });

  /**
   * Ask the worker for the track of the current runs and settings; reads them synchronously (an effect that
   * calls this reruns when they change) and publishes the answer unless a newer request was made.
   */
  update(): Promise<void> {
    const h = this.#host;
    const runs = this.runs;
    const reference = h.reference;
    const { depths, level, judgedOnly, label } = h.view;
    const measure = this.measure;
    const asked = ++this.#asked;
    if (runs.length === 0 || reference === null) {
      this.report = null;
      this.busy = false;
      return Promise.resolve();
    }
    this.busy = true;
    return h.lab
      .track(reference, runs, { measure, depths: [...depths], relevanceLevel: level, judgedOnly, label })
      .then(
        (report) => {
          if (asked !== this.#asked) return;
          this.report = report;
          this.error = null;
        },
        (e: unknown) => {
          if (asked === this.#asked) this.error = errorText(errorInfo(e));
        },
      )
      .finally(() => {
        if (asked === this.#asked) this.busy = false;
      });
  }
}
