/** The agreement report (overlap@k / RBO@k) as JSON: exactly what `fliplab compare --json` prints. */
import type { AgreementReport } from '../core/agreement/compare.ts';

export function agreementJson(report: AgreementReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
