/**
 * From a judge's verdicts to a model layer: grades on the collection's scale and the audit beside them, the same
 * in the lab and `fliplab judge`. A cross-encoder's thresholds are fitted on the plan's fitting half (people's
 * grades), else the preset's are used on UMBRELA's 0–3 and put on the scale; an LLM's grade is its most probable
 * one, put on the scale. The audit compares the other half with people's grades.
 */
import { countOf } from '../count.ts';
import { judgeAudit, type JudgeAudit } from './audit.ts';
import { fitThresholds, gradeOfProbabilities, gradeOfScore, umbrelaToScale } from './grades.ts';
import { labelsAsQrels } from './layer.ts';
import { pairKeyOf, type JudgingPlan } from './select.ts';

export interface Verdict {
  readonly qid: string;
  readonly docid: string;
  readonly score: number;
  readonly probabilities?: readonly number[];
}

export interface ModelLabel {
  readonly qid: string;
  readonly docId: string;
  readonly grade: number;
}

/** Where the thresholds came from when people's pairs could not fit them. */
export const PRESET_THRESHOLDS = "the preset's, on UMBRELA's 0–3 scale";

export interface LabelledLayer {
  readonly labels: ModelLabel[];
  /** A cross-encoder's thresholds and where they came from (null for an LLM judge). */
  readonly thresholds: number[] | null;
  readonly thresholdsFrom: string | null;
  /** Null when no sampled pair was judged: the labels are unaudited. */
  readonly audit: JudgeAudit | null;
}

export class ThresholdsError extends Error {
  override readonly name = 'ThresholdsError';
}

export function labelVerdicts(
  plan: JudgingPlan,
  verdicts: ReadonlyMap<string, Verdict>,
  options: {
    readonly kind: 'cross-encoder' | 'llm';
    readonly scaleMax: number;
    readonly level: number;
    readonly presetThresholds?: readonly number[];
    readonly thresholds?: readonly number[];
    readonly name?: string;
  },
): LabelledLayer {
  const judged = plan.tasks.filter((t) => verdicts.has(pairKeyOf(t)));
  const of = (t: { qid: string; docid: string }) => verdicts.get(pairKeyOf(t))!;
  let thresholds: number[] | null = null;
  let from: string | null = null;
  if (options.kind === 'cross-encoder') {
    const people = (t: { qid: string; docid: string }) => plan.peopleGrades.get(pairKeyOf(t))!;
    const fitting = judged.filter((t) => t.why === 'fit');
    const fitted =
      options.thresholds !== undefined || fitting.length === 0
        ? null
        : fitThresholds(
            fitting.map((t) => of(t).score),
            fitting.map(people),
            options.scaleMax,
          );
    if (options.thresholds !== undefined) [thresholds, from] = [[...options.thresholds], 'given'];
    else if (fitted !== null) [thresholds, from] = [fitted, `fitted on ${countOf(fitting.length, 'pair')} people judged`];
    else if (options.presetThresholds !== undefined) [thresholds, from] = [[...options.presetThresholds], PRESET_THRESHOLDS];
    else
      throw new ThresholdsError(
        `${options.name ?? 'this cross-encoder'} has no preset thresholds, and people's judgments cannot fit them (none, or every ` +
          'one the same grade): give thresholds',
      );
  }
  const gradeOf = (v: Verdict): number => {
    if (v.probabilities !== undefined) return umbrelaToScale(gradeOfProbabilities(v.probabilities).grade, options.scaleMax);
    const g = gradeOfScore(v.score, thresholds!);
    return from === PRESET_THRESHOLDS ? umbrelaToScale(g, options.scaleMax) : Math.min(g, options.scaleMax);
  };
  const labels = judged.map((t) => ({ qid: t.qid, docId: t.docid, grade: gradeOf(of(t)) }));
  const audited = judged.filter((t) => t.why === 'audit');
  const audit =
    audited.length === 0
      ? null
      : judgeAudit(
          labelsAsQrels(audited.map((t) => ({ qid: t.qid, docId: t.docid, grade: plan.peopleGrades.get(pairKeyOf(t))! }))),
          labelsAsQrels(audited.map((t) => ({ qid: t.qid, docId: t.docid, grade: gradeOf(of(t)) }))),
          options.level,
        );
  return { labels, thresholds, thresholdsFrom: from, audit };
}
