/** The flip report as JSON: exactly what `fliplab flips --json` prints (the CLI calls this function). */
import type { DepthWarning } from '../core/depth.ts';
import type { FlipReport } from '../core/flips/analyze.ts';
import type { SignificanceReport } from '../core/stats/significance.ts';
import { recipeObject, type Recipe } from './recipe.ts';

/**
 * The flip report as JSON (the `fliplab flips --json` contract), with `warnings`: depths beyond a run's
 * depth (core/depth.ts), empty when there are none; and, when given, `recipes`: per run name what produced
 * the run (label → value, e.g. {"retriever": "BM25 …", "k1": "1.5", "b": "0.75", …}; recipe.ts); and, when
 * given, `significance`: the paired tests of the measures (`flips --significance`, the lab's table; the
 * `fliplab significance --json` shape).
 */
export function flipReportJson(
  report: FlipReport,
  warnings: readonly DepthWarning[] = [],
  recipes?: Readonly<Record<string, Recipe>>,
  significance?: SignificanceReport,
): string {
  const withRecipes =
    recipes === undefined ? {} : { recipes: Object.fromEntries(Object.entries(recipes).map(([run, r]) => [run, recipeObject(r)])) };
  const withTests = significance === undefined ? {} : { significance };
  return `${JSON.stringify({ ...report, warnings, ...withRecipes, ...withTests }, null, 2)}\n`;
}
