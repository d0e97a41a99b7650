/** The flip report as JSON: exactly what `fliplab flips --json` prints (the CLI calls this function). */
import type { FlipReport } from '../core/flips/analyze.ts';

export function flipReportJson(report: FlipReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
