/**
 * The agreement report (overlap@k / RBO@k) for collections without judgments: JSON exactly as `fliplab
 * compare --json` prints it, a per-query CSV, and the report section (the CLI's table cells) that the
 * Markdown and HTML reports show in place of the flip analysis.
 */
import type { DepthWarning } from '../core/depth.ts';
import type { AgreementReport } from '../core/agreement/compare.ts';
import { agreementDepthRows } from '../core/agreement/format.ts';
import { countOf } from '../core/count.ts';
import { toCsv, type CsvCell } from './csv.ts';
import type { Section, Table } from './document.ts';

/** The agreement report as JSON (`fliplab compare --json`), with `warnings` as in flipReportJson. */
export function agreementJson(report: AgreementReport, warnings: readonly DepthWarning[] = []): string {
  return `${JSON.stringify({ ...report, warnings }, null, 2)}\n`;
}

/**
 * One row per query and candidate: `qid,candidate,overlap@k,rbo@k` for each k of `depth_list`, in the
 * report's query order. Needs the per-query values (compareRuns with `perQuery`).
 */
export function agreementCsv(report: AgreementReport): string {
  if (report.per_query === undefined) throw new RangeError('the agreement report has no per-query values (compare with perQuery)');
  const header = ['qid', 'candidate', ...report.depth_list.flatMap((k) => [`overlap@${k}`, `rbo@${k}`])];
  const rows: CsvCell[][] = [];
  for (const q of report.per_query)
    for (const c of q.candidates)
      rows.push([q.qid, c.name, ...report.depth_list.flatMap((_, i) => [c.overlap[i] ?? null, c.rbo[i] ?? null])]);
  return toCsv(header, rows);
}

/** The report's sections for an agreement report: the runs, then one table per depth, with the depth warnings said. */
export function agreementSections(
  report: AgreementReport,
  warnings: readonly DepthWarning[] = [],
  descriptions: Readonly<Record<string, string>> = {},
): Section[] {
  const ref = report.runs.find((r) => r.role === 'reference');
  const numeric = (header: readonly string[]) => header.map((_, i) => i > 0);
  const runs: Table = {
    caption: 'Runs',
    header: ['run', 'role', 'missing queries', 'description'],
    rows: report.runs.map((r) => [r.name, r.role, `${r.missing_queries}`, descriptions[r.name] ?? '']),
    numeric: [false, false, true, false],
  };
  return [
    {
      id: 'retrievers',
      heading: 'Retrievers',
      notes: [
        `No relevance judgments: runs are compared with the reference "${ref?.name ?? '?'}" by overlap@k and RBO@k ` +
          `(p = ${report.rbo_p}) on ${countOf(report.queries, 'query')}; depths ${report.depth_list.join(', ')}.`,
        'A query missing from a run scores 0 for both measures.',
      ],
      tables: [runs],
    },
    {
      id: 'agreement',
      heading: 'Agreement with the reference',
      notes: [
        `Means over queries with ${report.interval} intervals. Overlap@k: the share of the reference's top k that the candidate also ` +
          'returns; RBO@k: rank-biased overlap truncated at k (identical rankings score 1 − p^k).',
        ...warnings.map((w) => `Warning: ${w.message}.`),
      ],
      tables: report.depths.map((d) => {
        const t = agreementDepthRows(report, d);
        return { caption: `k = ${d.k}: RBO@${d.k} of identical rankings = ${d.rbo_max.toFixed(3)}`, ...t, numeric: numeric(t.header) };
      }),
    },
  ];
}
