/**
 * Which flips rest on model labels: the analysis run twice, on people's judgments with the model's filling their
 * holes and on people's alone. A broken (fixed) query rests on model labels when it is broken (fixed) with them
 * and not without them — a query only the model judged is not in the analysis without them, so each of its flips
 * rests on model labels.
 */
import {
  DEFAULT_DEPTHS,
  prepareFlips,
  reportFromPrepared,
  validateDepths,
  type FlipOptions,
  type FlipReport,
  type PreparedFlips,
} from '../flips/analyze.ts';
import type { SupportLabel } from '../flips/cohort.ts';
import type { Qrels, Run } from '../types.ts';

/** Per depth (as `report.depth_list`) and candidate: how many broken and fixed queries rest on model labels. */
export interface ModelLabelFlips {
  readonly k: number;
  readonly candidate: string;
  readonly broken_on_model_labels: number;
  readonly fixed_on_model_labels: number;
  /** The queries themselves, in the analysis's order. */
  readonly broken_queries: string[];
  readonly fixed_queries: string[];
}

/**
 * The flips at each depth that rest on model labels, from flip ranks prepared twice: on people's judgments with
 * the model's filling their holes (`withModel`) and on people's alone (`without`). A query absent from `without`
 * (only the model judged it, or only the model's labels make it relevant) is no flip there; `without` null (people
 * judge no query relevant on their own) makes every flip rest on the labels.
 */
export function modelLabelFlips(
  withModel: PreparedFlips,
  without: PreparedFlips | null,
  depths: readonly number[],
  label: SupportLabel = 'any',
): ModelLabelFlips[] {
  const at = new Map((without?.queries ?? []).map((q, i) => [q, i]));
  const out: ModelLabelFlips[] = [];
  for (const k of depths) {
    withModel.candidates.forEach((c, ci) => {
      const refWith = withModel.reference.ranks[label];
      const candWith = c.ranks[label];
      const refWithout = without?.reference.ranks[label];
      const candWithout = without?.candidates[ci]!.ranks[label];
      const broken: string[] = [];
      const fixed: string[] = [];
      withModel.queries.forEach((qid, i) => {
        const r = refWith[i]! <= k;
        const d = candWith[i]! <= k;
        if (r === d) return;
        const j = at.get(qid);
        const r0 = j !== undefined && refWithout![j]! <= k;
        const d0 = j !== undefined && candWithout![j]! <= k;
        if (r && !d && !(r0 && !d0)) broken.push(qid);
        if (!r && d && !(!r0 && d0)) fixed.push(qid);
      });
      out.push({
        k,
        candidate: c.name,
        broken_on_model_labels: broken.length,
        fixed_on_model_labels: fixed.length,
        broken_queries: broken,
        fixed_queries: fixed,
      });
    });
  }
  return out;
}

/**
 * The analysis on `layered` (people's judgments over the model's) with, for each candidate at each depth, the
 * flips that are not flips on `human` alone (`modelLabelFlips`). Options as `analyzeFlips`.
 */
export function flipsOnModelLabels(
  human: Qrels,
  layered: Qrels,
  reference: Run,
  candidates: readonly Run[],
  options: FlipOptions = {},
): { report: FlipReport; onModel: ModelLabelFlips[] } {
  const depths = validateDepths(options.depths ?? DEFAULT_DEPTHS);
  const prepare = (qrels: Qrels) =>
    prepareFlips(qrels, reference, candidates, {
      maxDepth: depths[depths.length - 1]!,
      judgedOnly: options.judgedOnly === true,
      ...(options.relevanceLevel === undefined ? {} : { relevanceLevel: options.relevanceLevel }),
      ...(options.cohortAt === undefined ? {} : { cohortAt: options.cohortAt }),
      ...(options.label === undefined ? {} : { label: options.label }),
    });
  const withModel = prepare(layered);
  const report = reportFromPrepared(withModel, options);
  return { report, onModel: modelLabelFlips(withModel, prepare(human), depths, options.label ?? 'any') };
}

/** The report with `broken_on_model_labels` and `fixed_on_model_labels` in each candidate row of each depth. */
export function withModelLabelCounts(report: FlipReport, onModel: readonly ModelLabelFlips[]): FlipReport {
  const at = new Map(onModel.map((m) => [`${m.k}\u0000${m.candidate}`, m]));
  return {
    ...report,
    depths: report.depths.map((block) => ({
      ...block,
      candidates: block.candidates.map((row) => {
        const m = at.get(`${block.k}\u0000${row.name}`);
        return m === undefined
          ? row
          : { ...row, broken_on_model_labels: m.broken_on_model_labels, fixed_on_model_labels: m.fixed_on_model_labels };
      }),
    })),
  };
}
