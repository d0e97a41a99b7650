/** Progress wording shared by the collection and retriever panels. */
import type { JobProgress } from '../../types.ts';

export function formatEta(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return 'estimating…';
  if (ms < 1000) return 'less than a second left';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s left`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s left`;
  return `${Math.floor(m / 60)} h ${m % 60} min left`;
}

export const share = (done: number, total: number): number => (total > 0 ? Math.min(1, done / total) : 0);

export function describeProgress(p: JobProgress): string {
  const cached = p.cached > 0 ? ` (${p.cached.toLocaleString('en-US')} cached)` : '';
  const unit = p.unit === 'documents' ? 'passages' : p.unit;
  return `${p.done.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} ${unit}${cached}`;
}

/** "570 of 5,183 passages": the one wording for how much of a partial run is in the analysis. */
export function partialPassages(p: { readonly encodedDocs: number; readonly totalDocs: number }): string {
  return `${p.encodedDocs.toLocaleString('en-US')} of ${p.totalDocs.toLocaleString('en-US')} passages`;
}
