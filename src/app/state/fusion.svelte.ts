/**
 * The fusion frontier in the lab (Svelte 5 runes): for the explorer's candidate and the reference at the
 * view's k, every mix of the sweep (core/flips/fusion.ts) with its broken, fixed and net gain, computed in the
 * lab worker whenever the analysis changes; and a mix added as a candidate of its own (a fused run with its
 * recipe), so the analysis and the explorer apply to it. Reaches the Lab's rows through `EncoderHost`.
 */
import { frontierAt, fusionLabel, type Frontier, type FusionParams, type PreparedFrontier } from '../../core/flips/fusion.ts';
import { fusedRecipe } from '../../report/recipe.ts';
import type { EncoderHost } from './host.ts';
import { errorInfo, errorText } from './errors.ts';
import type { ViewState } from '../types.ts';
import type { FlipReport } from '../../core/flips/analyze.ts';

/** What the frontier reads of the Lab besides its rows. */
export interface FusionView {
  readonly view: ViewState;
  readonly report: FlipReport | null;
  readonly reference: string | null;
  readonly candidates: readonly string[];
  /** Runs still growing. */
  readonly partial: readonly string[];
  /** Moves when the judgments change. */
  readonly judgmentsRevision: number;
}

/** The run id of a mix: `<candidate>+<reference>~rrf60` (no spaces: it is a TREC run tag too). */
export function fusedRunId(candidate: string, reference: string, p: FusionParams): string {
  const mix = p.method === 'rrf' ? `rrf${p.c}` : p.method === 'combsum' ? `combsum${p.alpha.toFixed(2)}` : `alt${p.ratio[0]}-${p.ratio[1]}`;
  return `${candidate}+${reference}~${mix}`;
}

export class Fusion {
  /** The sweep for the explorer's candidate, prepared for every analysed depth; null before an analysis. */
  prepared: (PreparedFrontier & { readonly reference_name: string; readonly candidate_name: string }) | null = $state.raw(null);
  /** The frontier at the view's k, re-sliced from `prepared` (a change of k is a count, within a frame). */
  frontier: (Frontier & { readonly reference: string; readonly candidate: string }) | null = $derived.by(() => {
    const p = this.prepared;
    const k = this.#lab.view.k;
    if (p === null || k > p.maxDepth) return null;
    return { ...frontierAt(p, k), reference: p.reference_name, candidate: p.candidate_name };
  });
  error: string | null = $state(null);
  /** A run the sweep waits for (still encoding), or null. */
  waiting: string | null = $state(null);
  /** What the last click on a mix did, said beside the plot (the candidate it added lands in the tables above). */
  added: string | null = $state(null);
  /** The pair and settings of the sweep asked for last (its result is the only one published). */
  #want: string | null = null;
  readonly #rows: EncoderHost;
  readonly #lab: FusionView;
  readonly #stop: () => void;

  constructor(rows: EncoderHost, lab: FusionView) {
    this.#rows = rows;
    this.#lab = lab;
    this.#stop = $effect.root(() => {
      $effect(() => {
        const report = lab.report;
        const reference = lab.reference;
        const { level, label } = lab.view;
        const revision = lab.judgmentsRevision;
        const candidate = this.#candidate();
        if (report === null || reference === null || candidate === undefined) {
          this.#want = null;
          this.prepared = null;
          this.waiting = null;
          return;
        }
        // A run still encoding changes with every batch: the sweep (seconds of the lab worker, which the
        // encoding also needs) waits until both runs are complete.
        if (lab.partial.includes(candidate) || lab.partial.includes(reference)) {
          this.#want = null;
          this.prepared = null;
          this.waiting = lab.partial.includes(candidate) ? candidate : reference;
          return;
        }
        this.waiting = null;
        const maxDepth = Math.max(...report.depth_list);
        // Prepared once per pair and setting: a report that changes for another reason (another candidate's
        // batch, a new k) does not sweep again.
        const key = JSON.stringify([reference, candidate, level, label, maxDepth, revision]);
        if (key === this.#want) return;
        this.#want = key;
        rows.lab.prepareFrontier(reference, candidate, { maxDepth, relevanceLevel: level, label }).then(
          (p) => {
            if (this.#want !== key) return;
            this.prepared = { ...p, reference_name: reference, candidate_name: candidate };
            this.error = null;
          },
          (e: unknown) => {
            if (this.#want === key) this.error = errorText(errorInfo(e));
          },
        );
      });
    });
  }

  /** The explorer's candidate (the first one when it names none), never a fused run. */
  #candidate(): string | undefined {
    const { view, candidates } = this.#lab;
    const plain = candidates.filter((c) => !c.includes('~'));
    return view.candidate !== null && plain.includes(view.candidate) ? view.candidate : plain[0];
  }

  /** Add a mix of the frontier's candidate and reference as a candidate retriever. */
  async add(params: FusionParams): Promise<void> {
    const f = this.frontier;
    if (f === null) return;
    const id = fusedRunId(f.candidate, f.reference, params);
    if (this.#rows.specs.has(id)) {
      this.#rows.select(id);
      this.added = `${id} is a candidate already: its rows are in the tables above.`;
      return;
    }
    try {
      const run = await this.#rows.lab.addFused(id, f.reference, f.candidate, params);
      this.#rows.specs.set(id, { kind: 'imported' });
      this.#rows.upsert({
        id,
        name: id,
        kind: 'imported',
        status: 'ready',
        progress: { done: run.queries, total: run.queries, cached: 0, etaMs: 0, unit: 'queries' },
        recipe: fusedRecipe(fusionLabel(params), f.candidate, f.reference),
      });
      this.#rows.select(id);
      this.added = `Added ${id} as a candidate: its rows are in the tables above and in the explorer.`;
    } catch (e) {
      this.error = errorText(errorInfo(e));
    }
  }

  dispose(): void {
    this.#stop();
  }
}
