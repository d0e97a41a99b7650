/** The flip report as JSON: exactly what `fliplab flips --json` prints (the CLI calls this function). */
import type { SyntheticProvenance } from '../core/judging/synthetic.ts';
import type { DepthWarning } from '../core/depth.ts';
import type { FlipReport } from '../core/flips/analyze.ts';
import type { SignificanceReport } from '../core/stats/significance.ts';
import { recipeObject, type Recipe } from './recipe.ts';

/**
 * The flip report as JSON (the `fliplab flips --json` contract), with `warnings`: depths beyond a run's
 * depth (core/depth.ts), empty when there are none; and, when given, `recipes`: per run name what produced
 * the run (label → value, e.g. {"retriever": "BM25 …", "k1": "1.5", "b": "0.75", …}; recipe.ts); and, when
 * given, `significance`: the paired tests of the measures (`flips --significance`, the lab's table; the
 * `fliplab significance --json` shape); and, with a model layer, `model_labels` (ModelLabelsSummary), each
 * candidate row then carrying `broken_on_model_labels` and `fixed_on_model_labels`.
 */
/** Where a model layer's labels came from and what they did (`flips --model-qrels`): `model_labels` in the JSON. */
export interface ModelLabelsSummary {
  /** The model layer's file (or the judge that made it). */
  readonly source: string;
  /** Labels that filled a pair no person judged. */
  readonly filled: number;
  /** Labels for pairs people judged: people's grades were kept. */
  readonly set_aside: number;
  /** Queries only the model judged. */
  readonly model_only_queries: number;
}

export function flipReportJson(
  report: FlipReport,
  warnings: readonly DepthWarning[] = [],
  recipes?: Readonly<Record<string, Recipe>>,
  significance?: SignificanceReport,
  modelLabels?: ModelLabelsSummary,
  synthetic?: SyntheticProvenance,
): string {
  const withRecipes =
    recipes === undefined ? {} : { recipes: Object.fromEntries(Object.entries(recipes).map(([run, r]) => [run, recipeObject(r)])) };
  const withTests = significance === undefined ? {} : { significance };
  const withModel = modelLabels === undefined ? {} : { model_labels: modelLabels };
  const withQueries = synthetic === undefined ? {} : { synthetic_queries: synthetic };
  return `${JSON.stringify({ ...report, warnings, ...withRecipes, ...withTests, ...withModel, ...withQueries }, null, 2)}\n`;
}
