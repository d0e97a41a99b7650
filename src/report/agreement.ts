/** The agreement report (overlap@k / RBO@k) as JSON: exactly what `fliplab compare --json` prints. */
import type { DepthWarning } from '../core/depth.ts';
import type { AgreementReport } from '../core/agreement/compare.ts';

/** The agreement report as JSON (`fliplab compare --json`), with `warnings` as in flipReportJson. */
export function agreementJson(report: AgreementReport, warnings: readonly DepthWarning[] = []): string {
  return `${JSON.stringify({ ...report, warnings }, null, 2)}\n`;
}
