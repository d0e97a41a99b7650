/** Text of an agreement report: the cells the CLI table and the lab's AgreementTable both show. */
import type { AgreementDepth, AgreementReport, MeanInterval } from './compare.ts';
import { textTable } from '../text-table.ts';

/** "0.734 [0.712, 0.756]"; "–" when undefined; the mean alone when there is no interval (one query). */
export function formatMeanInterval(m: MeanInterval, digits = 3): string {
  if (m.mean === null) return '–';
  if (m.lo === null || m.hi === null) return m.mean.toFixed(digits);
  return `${m.mean.toFixed(digits)} [${m.lo.toFixed(digits)}, ${m.hi.toFixed(digits)}]`;
}

/** Terminal tables for `fliplab compare`. */
export function formatAgreement(r: AgreementReport): string {
  const ref = r.runs.find((x) => x.role === 'reference');
  const out = [
    `Agreement with reference "${ref?.name ?? '?'}" on ${r.queries} queries (no judgments needed): overlap@k and RBO@k (p = ` +
      `${r.rbo_p}), means with ${r.interval} intervals`,
  ];
  for (const run of r.runs) {
    if (run.missing_queries > 0) out.push(`note: run "${run.name}" has no ranking for ${run.missing_queries} of these queries (scored 0)`);
  }
  for (const d of r.depths) {
    out.push('', `k = ${d.k}: RBO@${d.k} of identical rankings = ${d.rbo_max.toFixed(3)}`);
    const t = agreementDepthRows(r, d);
    out.push(textTable(t.header, t.rows));
  }
  return `${out.join('\n')}\n`;
}

/** One depth's table (header and cells): what the CLI prints and the lab's reports show, cell for cell. */
export function agreementDepthRows(r: AgreementReport, d: AgreementDepth): { header: string[]; rows: string[][] } {
  return {
    header: ['candidate', `overlap@${d.k}`, `RBO@${d.k}`, 'same top-k set'],
    rows: d.candidates.map((c) => [c.name, formatMeanInterval(c.overlap), formatMeanInterval(c.rbo), `${c.full_overlap} of ${r.queries}`]),
  };
}
