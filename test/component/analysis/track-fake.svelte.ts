/** A Track (state/track.svelte.ts) that holds a given report: what TrackTable reads of it, reactive as the real one. */
import type { TrackReport } from '../../../src/lab/types.ts';

export class FakeTrack {
  measure = $state('ndcg_cut.10');
  report: TrackReport | null = $state.raw(null);
  error: string | null = $state(null);
  busy = $state(false);

  constructor(report: TrackReport) {
    this.report = report;
  }

  update(): Promise<void> {
    return Promise.resolve();
  }
}
