/**
 * The engine's fusion of a candidate with the reference (core/flips/fusion.ts): a fused run the whole analysis
 * then applies to, and the frontier of every mix prepared for any budget. No state of its own: the fused runs
 * are the retrievers', the qrels the judgments'.
 */
import type { SupportLabel } from '../../core/flips/cohort.ts';
import { fuseRuns, prepareFrontier, type FusionParams, type PreparedFrontier } from '../../core/flips/fusion.ts';
import { rankedEntries } from './collection.ts';
import type { Judgments } from './judgments.ts';
import { RUN_DEPTH, type Retrievers, type RunSummary } from './retrievers.ts';

export class Fusion {
  /** The calls the page makes on this part as they are (api.ts's `prepareFrontier` transfers this part's buffers). */
  static readonly calls = ['addFused'] as const satisfies readonly (keyof Fusion)[];

  readonly #judgments: Judgments;
  readonly #retrievers: Retrievers;

  constructor(judgments: Judgments, retrievers: Retrievers) {
    this.#judgments = judgments;
    this.#retrievers = retrievers;
  }

  /**
   * A fused run of a candidate with the reference, RUN_DEPTH deep, added as `name`: the whole analysis and the
   * explorer then apply to it.
   */
  addFused(name: string, reference: string, candidate: string, params: FusionParams): RunSummary {
    const run = fuseRuns(this.#retrievers.run(reference), this.#retrievers.run(candidate), params, RUN_DEPTH, name);
    this.#retrievers.add(run);
    return { name, queries: run.byQuery.size, depth: RUN_DEPTH, lines: rankedEntries(run) };
  }

  /** The fusion frontier of `candidate` with `reference`, prepared for any budget up to maxDepth. */
  prepareFrontier(
    reference: string,
    candidate: string,
    options: { maxDepth: number; relevanceLevel?: number; label?: SupportLabel },
  ): PreparedFrontier {
    const qrels = this.#judgments.qrels();
    if (qrels === null) throw new Error('this collection has no judgments: the frontier counts broken and fixed queries');
    return prepareFrontier(qrels, this.#retrievers.run(reference), this.#retrievers.run(candidate), options);
  }
}
