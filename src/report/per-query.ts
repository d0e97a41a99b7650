/**
 * Per-query transitions of a flip report: one CSV row per query × candidate, or JSON. Both need the
 * report to carry `per_query` (analyzeFlips / reportFromPrepared with `perQuery: true`).
 */
import { candidateNames, referenceName, type FlipReport, type PerQueryRow } from '../core/flips/analyze.ts';
import { toCsv, type CsvCell } from './csv.ts';

function requirePerQuery(report: FlipReport, what: string): PerQueryRow[] {
  if (report.per_query === undefined) {
    throw new RangeError(`${what}: the flip report has no per-query states; build it with perQuery: true (fliplab flips --per-query)`);
  }
  return report.per_query;
}

/**
 * Column names: qid, reference, candidate, reference_rank, candidate_rank, state@k for each depth, then the
 * unjudged passages in each run's top k: reference_unjudged@k, candidate_unjudged@k for each depth.
 */
export function perQueryCsvHeader(report: FlipReport): string[] {
  const ks = report.depth_list;
  return [
    'qid',
    'reference',
    'candidate',
    'reference_rank',
    'candidate_rank',
    ...ks.map((k) => `state@${k}`),
    ...ks.map((k) => `reference_unjudged@${k}`),
    ...ks.map((k) => `candidate_unjudged@${k}`),
  ];
}

/**
 * RFC 4180 CSV, rows in report query order, candidates in report order. Ranks are the support ranks
 * under the report's label (empty when the run never supports the query); states are preserved /
 * broken / fixed / unchanged.
 */
export function perQueryCsv(report: FlipReport): string {
  const rows = requirePerQuery(report, 'per-query CSV');
  const reference = referenceName(report);
  const records: CsvCell[][] = [];
  for (const q of rows) {
    for (const c of q.candidates)
      records.push([q.qid, reference, c.name, q.reference_rank, c.rank, ...c.states, ...q.reference_unjudged, ...c.unjudged]);
  }
  return toCsv(perQueryCsvHeader(report), records);
}

export interface PerQueryJson {
  reference: string;
  candidates: string[];
  label: FlipReport['label'];
  relevance_level: number;
  depth_list: number[];
  per_query: PerQueryRow[];
}

/** The per-query part of the report with what is needed to read it (states[i] is at depth_list[i]). */
export function perQueryObject(report: FlipReport): PerQueryJson {
  return {
    reference: referenceName(report),
    candidates: candidateNames(report),
    label: report.label,
    relevance_level: report.relevance_level,
    depth_list: report.depth_list,
    per_query: requirePerQuery(report, 'per-query JSON'),
  };
}

export function perQueryJson(report: FlipReport): string {
  return `${JSON.stringify(perQueryObject(report), null, 2)}\n`;
}
