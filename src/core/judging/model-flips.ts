/**
 * Which flips rest on model labels: the analysis run twice, on people's judgments with the model's filling their
 * holes and on people's alone. A broken (fixed) query rests on model labels when it is broken (fixed) with them
 * and not without them — a query only the model judged is not in the analysis without them, so each of its flips
 * rests on model labels.
 */
import { analyzeFlips, type FlipOptions, type FlipReport } from '../flips/analyze.ts';
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
 * The analysis on `layered` (people's judgments over the model's) with, for each candidate at each depth, the
 * flips that are not flips on `human` alone. Options as `analyzeFlips` (per-query states are computed either way).
 */
export function flipsOnModelLabels(
  human: Qrels,
  layered: Qrels,
  reference: Run,
  candidates: readonly Run[],
  options: FlipOptions = {},
): { report: FlipReport; onModel: ModelLabelFlips[] } {
  const report = analyzeFlips(layered, reference, candidates, { ...options, perQuery: true });
  const without = analyzeFlips(human, reference, candidates, { ...options, perQuery: true });
  const states = new Map(without.per_query!.map((row) => [row.qid, row]));
  const onModel: ModelLabelFlips[] = [];
  report.depth_list.forEach((k, d) =>
    report.runs
      .filter((r) => r.role === 'candidate')
      .forEach((run, c) => {
        const broken: string[] = [];
        const fixed: string[] = [];
        for (const row of report.per_query!) {
          const state = row.candidates[c]!.states[d];
          if (state !== 'broken' && state !== 'fixed') continue;
          const before = states.get(row.qid)?.candidates[c]?.states[d];
          if (before !== state) (state === 'broken' ? broken : fixed).push(row.qid);
        }
        onModel.push({
          k,
          candidate: run.name,
          broken_on_model_labels: broken.length,
          fixed_on_model_labels: fixed.length,
          broken_queries: broken,
          fixed_queries: fixed,
        });
      }),
  );
  if (options.perQuery !== true) delete report.per_query;
  return { report, onModel };
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
