/**
 * What the lab says about the compared runs beyond flips, kept current as the view changes: depth honesty
 * (the CLI's warnings for depths that a run or the corpus cannot reach) for every collection, and, for a
 * collection without judgments, the agreement report (overlap@k and RBO@k with the reference, per query too)
 * that stands in for the flip analysis there: the agreement panel, the explorer and the exports all read it.
 */
import { errorMessage } from '../../core/error-message.ts';
import type { AgreementReport } from '../../core/agreement/index.ts';
import type { DepthWarning } from '../../core/depth.ts';
import type { Lab } from './lab.svelte.ts';

export class Agreement {
  /** The agreement of each candidate with the reference (collections without judgments only). */
  report: AgreementReport | null = $state.raw(null);
  error: string | null = $state(null);
  /** Runs and depths that do not reach: a depth beyond a run's longest list or some of its queries' lists. */
  warnings: readonly DepthWarning[] = $state.raw([]);
  /**
   * The warnings the lab shows: the same, less the short lists of its own BM25, RM3 and QL runs, which are
   * complete (a query matches only that many passages); the exports keep `warnings`, the CLI's.
   */
  shown: readonly DepthWarning[] = $state.raw([]);
  /** Passages in the open collection (a depth beyond it is beyond every run). */
  corpus = $state(0);
  /**
   * The compared runs and depths the warnings above were worked out for (`bm25,bm25-rm3@1,3,5`; '' before any):
   * no warning means "none" only once this names what is shown (the page says so in `data-depth-notes-for`).
   */
  checked = $state('');
  readonly #stop: () => void;

  constructor(lab: Lab) {
    this.#stop = $effect.root(() => {
      $effect(() => {
        const reference = lab.reference;
        const candidates = lab.candidates;
        const depths = [...lab.view.depths];
        const judged = lab.collection?.judged ?? true;
        // Re-run when a run's progress changes (partial runs grow).
        void lab.retrievers.map((r) => r.partial?.encodedDocs);
        if (lab.collection === null || reference === null || candidates.length === 0) {
          this.report = null;
          this.warnings = [];
          this.shown = [];
          this.checked = '';
          return;
        }
        let stale = false;
        const runs = [reference, ...candidates];
        Promise.all([
          lab.lab.depthWarnings(runs, depths),
          judged ? Promise.resolve(null) : lab.lab.compare(reference, candidates, depths, { perQuery: true }),
        ]).then(
          ([notes, report]) => {
            if (stale) return;
            this.warnings = notes.warnings;
            this.shown = notes.cut;
            this.corpus = notes.corpus;
            this.checked = `${runs.join(',')}@${depths.join(',')}`;
            this.report = report;
            this.error = null;
          },
          (e: unknown) => {
            if (!stale) this.error = errorMessage(e);
          },
        );
        return () => {
          stale = true;
        };
      });
    });
  }

  /** Depths beyond the longest list of at least one compared run, in ascending order. */
  get unreachable(): number[] {
    const beyond = this.warnings.filter((w) => w.runDepth < w.requested).map((w) => w.requested);
    return beyond.filter((k, i) => beyond.indexOf(k) === i).sort((a, b) => a - b);
  }

  dispose(): void {
    this.#stop();
  }
}
