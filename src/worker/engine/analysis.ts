/**
 * The engine's analysis of runs against the reference: prepared flip ranks (the page re-slices them by depth
 * and label within a frame), the lab's measures, paired tests, per-query differences, a whole track, trec_eval's
 * text, depth warnings, and, without judgments, the agreement between runs. It owns the measures already
 * computed; the runs are the retrievers', the qrels the judgments'.
 */
import { compareRuns, type AgreementReport } from '../../core/agreement/index.ts';
import { depthWarnings, listLengths, type DepthWarning } from '../../core/depth.ts';
import { prepareFlips, reportFromPrepared, type PreparedFlips } from '../../core/flips/analyze.ts';
import type { SupportLabel } from '../../core/flips/cohort.ts';
import { forEvaluation } from '../../core/io/run-top.ts';
import { DEFAULT_TREC_EVAL_VERSION, evaluate, parseMeasures, type EvalResult } from '../../core/metrics/index.ts';
import type { SignificanceReport } from '../../core/stats/significance.ts';
import type { Qrels, Run } from '../../core/types.ts';
import type { TrackReport } from '../../lab/types.ts';
import { LAB_MEASURES, trecEvalName, trecEvalText, type MetricsRow } from '../../report/metrics.ts';
import { significanceOfResults, systemValues, TRACK_SIGNIFICANCE } from '../../report/significance.ts';
import type { OpenCollection } from './collection.ts';
import type { Judgments } from './judgments.ts';
import { RUN_DEPTH, type Retrievers } from './retrievers.ts';

export class Analysis {
  /** The calls the page makes on this part as they are (api.ts's `analyse` also calls `metrics` and `prepare`). */
  static readonly calls = [
    'significance',
    'differences',
    'track',
    'trecEval',
    'depthWarnings',
    'compare',
    'modelSystems',
  ] as const satisfies readonly (keyof Analysis)[];

  readonly #collection: OpenCollection;
  readonly #judgments: Judgments;
  readonly #retrievers: Retrievers;
  /**
   * Measures already computed, by qrels and run (both immutable: new judgments make new qrels, a growing
   * vector run a new snapshot) and setting: a change of k or of the compared runs re-measures nothing (an MS
   * MARCO-sized kept run takes seconds to measure as its whole file).
   */
  readonly #measured = new WeakMap<Qrels, WeakMap<Run, Map<string, EvalResult>>>();

  constructor(collection: OpenCollection, judgments: Judgments, retrievers: Retrievers) {
    this.#collection = collection;
    this.#judgments = judgments;
    this.#retrievers = retrievers;
  }

  /** Depth- and label-independent flip ranks; the UI builds any report from them in a frame. */
  prepare(
    reference: string,
    candidates: readonly string[],
    options: { maxDepth: number; relevanceLevel?: number; judgedOnly?: boolean; cohortAt?: number; label?: SupportLabel },
  ): PreparedFlips {
    const qrels = this.#judgments.qrels();
    if (qrels === null) throw new Error('this collection has no judgments: flips need qrels (compare runs by overlap instead)');
    const run = (name: string) => this.#retrievers.run(name);
    return prepareFlips(qrels, run(reference), candidates.map(run), options);
  }

  /**
   * The same flip ranks on people's judgments alone, when a model's labels fill the holes (null otherwise): what
   * tells the flips that rest on model labels from the others (core/judging/model-flips.ts).
   */
  preparePeople(
    reference: string,
    candidates: readonly string[],
    options: { maxDepth: number; relevanceLevel?: number; judgedOnly?: boolean; cohortAt?: number; label?: SupportLabel },
  ): PreparedFlips | null {
    const people = this.#judgments.peopleQrels();
    if (!this.#judgments.modelInUse() || people === null) return null;
    const run = (name: string) => this.#retrievers.run(name);
    try {
      return prepareFlips(people, run(reference), candidates.map(run), options);
    } catch (e) {
      // People judge no query relevant on their own (a custom corpus's model-only labels): every flip rests on the model.
      if (e instanceof RangeError) return null;
      throw e;
    }
  }

  /**
   * The lab's measures of a run under the analysis' settings, per query and averaged, computed once per
   * (qrels, run, setting): the table, the paired tests and the exports read the same evaluation.
   */
  #evaluation(qrels: Qrels, name: string, relevanceLevel: number, judgedOnly: boolean): EvalResult {
    // The lab follows trec_eval's default release (10.0); each row says so, and the reports repeat it.
    const version = DEFAULT_TREC_EVAL_VERSION;
    let byRun = this.#measured.get(qrels);
    if (byRun === undefined) this.#measured.set(qrels, (byRun = new WeakMap()));
    const run = this.#retrievers.run(name);
    let bySetting = byRun.get(run);
    if (bySetting === undefined) byRun.set(run, (bySetting = new Map()));
    const setting = `${relevanceLevel}|${judgedOnly}|${version}`;
    let result = bySetting.get(setting);
    if (result === undefined) {
      // A run kept to a depth is measured as its whole file (core/io/run-top.ts forEvaluation).
      const specs = parseMeasures(
        LAB_MEASURES.map((m) => m.key),
        version,
      );
      result = evaluate(qrels, forEvaluation(run), specs, { relevanceLevel, version, judgedOnly });
      bySetting.set(setting, result);
    }
    return result;
  }

  /** The evaluations of `names` under one setting, for the paired tests. */
  #evaluations(qrels: Qrels, names: readonly string[], relevanceLevel: number, judgedOnly: boolean) {
    return names.map((name) => ({ name, result: this.#evaluation(qrels, name, relevanceLevel, judgedOnly) }));
  }

  /** The lab's TREC measures for each run (trec_eval semantics: judged queries the run answered). */
  metrics(names: readonly string[], partial: readonly string[] = [], relevanceLevel = 1, judgedOnly = false): MetricsRow[] {
    const qrels = this.#judgments.qrels();
    if (qrels === null) return [];
    return names.map((name) => {
      const result = this.#evaluation(qrels, name, relevanceLevel, judgedOnly);
      const values: Record<string, number> = {};
      for (const m of LAB_MEASURES) {
        // trec_eval prints "ndcg_cut.10" as "ndcg_cut_10"; the lab keys values by the measure's spec.
        const v = result.aggregate[m.key.replace('.', '_')];
        if (v !== undefined) values[m.key] = v;
      }
      return { run: name, partial: partial.includes(name), values, trecEval: DEFAULT_TREC_EVAL_VERSION };
    });
  }

  /**
   * Is each candidate's difference from the reference real? The paired tests of every lab measure
   * (report/significance.ts LAB_SIGNIFICANCE), over the queries both runs are evaluated on; null without
   * judgments or candidates.
   */
  significance(reference: string, candidates: readonly string[], relevanceLevel = 1, judgedOnly = false): SignificanceReport | null {
    const qrels = this.#judgments.qrels();
    if (qrels === null || candidates.length === 0) return null;
    return significanceOfResults(this.#evaluations(qrels, [reference, ...candidates], relevanceLevel, judgedOnly));
  }

  /**
   * Per-query differences of one lab measure (`measureKey`, e.g. "ndcg_cut.10"), candidate − reference, over
   * the queries both are evaluated on: what the difference plot draws (the significance rows summarise them).
   */
  differences(
    reference: string,
    candidate: string,
    measureKey: string,
    relevanceLevel = 1,
    judgedOnly = false,
  ): { measure: string; queries: string[]; diffs: number[] } | null {
    const qrels = this.#judgments.qrels();
    if (qrels === null) return null;
    const measure = trecEvalName(measureKey);
    const [ref, cand] = [reference, candidate].map((name) =>
      systemValues(name, this.#evaluation(qrels, name, relevanceLevel, judgedOnly), [measure]).byMeasure.get(measure)!,
    );
    const queries = [...ref!.keys()].filter((q) => cand!.has(q));
    return { measure, queries, diffs: queries.map((q) => cand!.get(q)! - ref!.get(q)!) };
  }

  /**
   * A whole track against the reference: the tests of one lab measure for every run (report/significance.ts
   * TRACK_SIGNIFICANCE, Tukey HSD included) and each run's broken, fixed and negative-flip rate at each depth.
   */
  track(
    reference: string,
    runs: readonly string[],
    options: { measure: string; depths: readonly number[]; relevanceLevel: number; judgedOnly: boolean; label: SupportLabel },
  ): TrackReport | null {
    const qrels = this.#judgments.qrels();
    if (qrels === null || runs.length === 0) return null;
    const measure = trecEvalName(options.measure);
    const evaluations = this.#evaluations(qrels, [reference, ...runs], options.relevanceLevel, options.judgedOnly);
    const significance = significanceOfResults(evaluations, TRACK_SIGNIFICANCE, [measure]);
    const prepared = this.prepare(reference, runs, {
      maxDepth: Math.max(...options.depths),
      relevanceLevel: options.relevanceLevel,
      judgedOnly: options.judgedOnly,
      label: options.label,
    });
    const report = reportFromPrepared(prepared, { depths: options.depths, label: options.label });
    const flips = runs.map((run) => ({
      run,
      depths: report.depths.map((d) => {
        const c = d.candidates.find((x) => x.name === run)!;
        return { k: d.k, broken: c.broken, fixed: c.fixed, negative_flip_rate: c.negative_flip_rate };
      }),
    }));
    return { measure, significance, flips };
  }

  /**
   * Each run's mean of `measure` under people's judgments alone and under the model's labels alone (each qrels file
   * on its own, as `fliplab judge-audit --run` evaluates them): what tells whether the ordering of systems survives.
   * Null without a model layer or people's judgments.
   */
  modelSystems(
    runs: readonly string[],
    measure: string,
    relevanceLevel: number,
  ): { measure: string; runs: { name: string; human: number; model: number }[] } | null {
    const people = this.#judgments.peopleQrels();
    const model = this.#judgments.modelQrels();
    if (people === null || model === null || runs.length === 0) return null;
    const name = trecEvalName(measure);
    const mean = (qrels: Qrels, run: string): number => {
      const result = evaluate(qrels, forEvaluation(this.#retrievers.run(run)), parseMeasures([measure], DEFAULT_TREC_EVAL_VERSION), {
        relevanceLevel,
        version: DEFAULT_TREC_EVAL_VERSION,
      });
      return result.aggregate[name] ?? Number.NaN;
    };
    return { measure: name, runs: runs.map((run) => ({ name: run, human: mean(people, run), model: mean(model, run) })) };
  }

  /** trec_eval's text output for a run (the same text `fliplab eval` prints). */
  trecEval(name: string, relevanceLevel = 1, judgedOnly = false): string {
    const qrels = this.#judgments.qrels();
    if (qrels === null) throw new Error('this collection has no judgments to evaluate against');
    return trecEvalText(qrels, forEvaluation(this.#retrievers.run(name)), { relevanceLevel, judgedOnly });
  }

  /**
   * Depth honesty, as the CLI's `flips` and `compare` print it: a warning per run and depth that some of its
   * queries do not reach (core/depth.ts) — what the exports carry, byte for byte the CLI's. `cut`: the same
   * for what the lab shows, where the lab's own lexical lists count as complete (a list shorter than the depth
   * they were ranked to left nothing out: it reaches every depth the corpus has). `corpus` is the collection's
   * size: no run can reach a depth beyond it.
   */
  depthWarnings(runs: readonly string[], depths: readonly number[]): { warnings: DepthWarning[]; cut: DepthWarning[]; corpus: number } {
    const corpus = this.#collection.current.corpus.ids.length;
    const requested = depths.map((k) => ({ k, label: `depth ${k}` }));
    const lengths = runs.map((name) => ({ name, lengths: listLengths(this.#retrievers.run(name)) }));
    const reach = Math.min(RUN_DEPTH, corpus);
    const complete = lengths.map((r) =>
      this.#retrievers.isExhaustive(r.name) ? { ...r, lengths: r.lengths.map((n) => (n < RUN_DEPTH ? reach : n)) } : r,
    );
    return { warnings: depthWarnings(lengths, requested), cut: depthWarnings(complete, requested), corpus };
  }

  /** Overlap@k and rank-biased overlap between runs: the comparison that needs no judgments (per query on request). */
  compare(
    reference: string,
    candidates: readonly string[],
    depths: readonly number[],
    options: { perQuery?: boolean } = {},
  ): AgreementReport {
    const run = (name: string) => this.#retrievers.run(name);
    return compareRuns(run(reference), candidates.map(run), depths, { perQuery: options.perQuery === true });
  }
}
