/**
 * The explorer's query list, as pure functions of a flip report: which per-query rows match the chosen
 * candidate, depth, transition state and search text (in report order), and how many rows each state
 * chip would show. No DOM, no Svelte: unit-tested against a naive oracle.
 */
import { candidateNames } from '../../../core/flips/analyze.ts';
import type { AgreementReport } from '../../../core/agreement/index.ts';
import type { ExplorerFilter, FlipReport, TransitionState } from '../../types.ts';

export interface ExplorerQuery {
  /** Candidate name (one of the report's candidate runs). */
  readonly candidate: string;
  /** Index into `report.depth_list`. */
  readonly depthIndex: number;
  readonly state: ExplorerFilter;
  /** Matched case-insensitively against the query id and the query text; blank matches everything. */
  readonly text: string;
}

/** One row of the explorer list. */
export interface ExplorerRow {
  readonly qid: string;
  /** Position in `report.per_query` (stable key for the list). */
  readonly index: number;
  readonly referenceRank: number | null;
  readonly candidateRank: number | null;
  readonly state: TransitionState;
}

export type StateCounts = Readonly<Record<ExplorerFilter, number>>;

export interface ExplorerResult {
  /** Rows matching every filter, in report order. */
  readonly rows: readonly ExplorerRow[];
  /** Rows per state among those matching the text (the state filter itself is not applied): chip counts. */
  readonly counts: StateCounts;
}

/** Candidate run names of a report, in report order. */

/** Case-insensitive needle (trimmed); '' matches everything. */
export function normalizeSearch(text: string): string {
  return text.trim().toLowerCase();
}

export function filterQueries(report: FlipReport, query: ExplorerQuery, queryText: (qid: string) => string): ExplorerResult {
  const perQuery = report.per_query;
  if (perQuery === undefined) throw new RangeError('the report has no per-query rows (build it with perQuery: true)');
  const ci = candidateNames(report).indexOf(query.candidate);
  if (ci < 0)
    throw new RangeError(`unknown candidate ${JSON.stringify(query.candidate)}: expected one of ${candidateNames(report).join(', ')}`);
  const d = query.depthIndex;
  if (!Number.isInteger(d) || d < 0 || d >= report.depth_list.length) {
    throw new RangeError(`depth index ${d} is outside the report's ${report.depth_list.length} depths`);
  }
  const needle = normalizeSearch(query.text);
  const counts = { all: 0, broken: 0, fixed: 0, preserved: 0, unchanged: 0 };
  const rows: ExplorerRow[] = [];
  for (let i = 0; i < perQuery.length; i++) {
    const row = perQuery[i]!;
    const cand = row.candidates[ci];
    if (cand === undefined || cand.name !== query.candidate) {
      throw new RangeError(`per-query row ${row.qid}: expected candidate ${query.candidate} at position ${ci}`);
    }
    const state = cand.states[d];
    if (state === undefined) throw new RangeError(`per-query row ${row.qid}: no state for depth index ${d}`);
    if (needle !== '' && !row.qid.toLowerCase().includes(needle) && !queryText(row.qid).toLowerCase().includes(needle)) continue;
    counts.all++;
    counts[state]++;
    if (query.state !== 'all' && query.state !== state) continue;
    rows.push({ qid: row.qid, index: i, referenceRank: row.reference_rank, candidateRank: cand.rank, state });
  }
  return { rows, counts };
}

/** Index in `depths` of the depth closest to k (the smaller one on a tie); -1 for an empty list. */
/** Query text longer than this is cut in the list (the detail shows it whole). */
const MAX_QUERY_TEXT = 160;

/** A query's text as a list row shows it. */
export const listedText = (s: string): string => (s.length > MAX_QUERY_TEXT ? `${s.slice(0, MAX_QUERY_TEXT - 1)}…` : s);

/**
 * The candidate and depth an explorer shows for `view`: the view's candidate when the analysis has it (else
 * the first), and the analysed depth nearest to view.k (index -1 and depth undefined when there is none).
 */
export function explorerFocus(
  view: { readonly candidate: string | null; readonly k: number },
  candidates: readonly string[],
  depths: readonly number[],
): { readonly candidate: string | null; readonly depthIndex: number; readonly depth: number | undefined } {
  const candidate = view.candidate !== null && candidates.includes(view.candidate) ? view.candidate : (candidates[0] ?? null);
  const depthIndex = nearestDepthIndex(depths, view.k);
  return { candidate, depthIndex, depth: depths[depthIndex] };
}

export function nearestDepthIndex(depths: readonly number[], k: number): number {
  let best = -1;
  for (let i = 0; i < depths.length; i++) {
    if (best < 0 || Math.abs(depths[i]! - k) < Math.abs(depths[best]! - k)) best = i;
  }
  return best;
}

/** One row of the agreement explorer (collections without judgments): how much a query's top k agree. */
export interface AgreementRow {
  readonly qid: string;
  /** overlap@k of the candidate with the reference: the share of the reference's top k it also returns. */
  readonly overlap: number;
  /** RBO@k (p of the report). */
  readonly rbo: number;
}

/**
 * The agreement explorer's rows for a candidate at depth index `depthIndex` of `report.depth_list`: queries
 * matching `text` (id or query text, as the flip explorer matches), least overlap first (then least RBO, then
 * report order), so the queries where the runs disagree most lead.
 */
export function agreementRows(
  report: AgreementReport,
  candidate: string,
  depthIndex: number,
  text: string,
  queryText: (qid: string) => string,
): AgreementRow[] {
  const needle = normalizeSearch(text);
  const rows: (AgreementRow & { order: number })[] = [];
  (report.per_query ?? []).forEach((q, order) => {
    const c = q.candidates.find((x) => x.name === candidate);
    if (!c) return;
    if (needle !== '' && !q.qid.toLowerCase().includes(needle) && !queryText(q.qid).toLowerCase().includes(needle)) return;
    rows.push({ qid: q.qid, overlap: c.overlap[depthIndex] ?? 0, rbo: c.rbo[depthIndex] ?? 0, order });
  });
  rows.sort((a, b) => a.overlap - b.overlap || a.rbo - b.rbo || a.order - b.order);
  return rows.map(({ qid, overlap, rbo }) => ({ qid, overlap, rbo }));
}
