/** The flip report as JSON: exactly what `fliplab flips --json` prints (the CLI calls this function). */
import type { DepthWarning } from '../core/depth.ts';
import type { FlipReport } from '../core/flips/analyze.ts';

/**
 * The flip report as JSON (the `fliplab flips --json` contract), with `warnings`: depths beyond a run's
 * depth (core/depth.ts), empty when there are none.
 */
export function flipReportJson(report: FlipReport, warnings: readonly DepthWarning[] = []): string {
  return `${JSON.stringify({ ...report, warnings }, null, 2)}\n`;
}
