/** Progress wording shared by the collection and retriever panels. */
import { countOf, formatCount } from '../../../core/count.ts';
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
  const cached = p.cached > 0 ? ` (${count(p.cached)} cached)` : '';
  return `${count(p.done)} of ${counted(p, p.total)}${cached}`;
}

/** "570 of 5,183 passages": the one wording for how much of a partial run is in the analysis. */
export function partialPassages(p: { readonly encodedDocs: number; readonly totalDocs: number }): string {
  return `${count(p.encodedDocs)} of ${countOf(p.totalDocs, 'passage')}`;
}

const count = formatCount;
/** The noun of a job's unit, singular and plural (documents are the lab's passages). */
const NOUNS: Readonly<Record<JobProgress['unit'], readonly [one: string, many: string]>> = {
  documents: ['passage', 'passages'],
  queries: ['query', 'queries'],
  bytes: ['byte', 'bytes'],
};
const unitName = (p: JobProgress): string => NOUNS[p.unit][1];
/** `n` of the job's units, in words: "1 passage", "5,183 passages". */
const counted = (p: JobProgress, n: number): string => countOf(n, ...NOUNS[p.unit]);

/** "35 passages/s", "2.4 passages/s": the rate an encoder's row shows while it encodes. */
export function formatPerSecond(perSecond: number, unit: string): string {
  return `${perSecond >= 10 ? Math.round(perSecond).toLocaleString('en-US') : perSecond.toFixed(1)} ${unit}/s`;
}

/**
 * A retriever row's progress line, by the phase its status names (the job says which; nothing is guessed
 * from the counts): the cache lookup, the model load, or the work itself with its rate and ETA.
 */
export function describeRowProgress(status: string, p: JobProgress): string {
  const unit = unitName(p);
  const checked = p.checked ?? p.total;
  switch (status) {
    case 'checking':
      return `${count(checked)} of ${counted(p, p.total)} looked up · none stored yet`;
    case 'restoring':
      return `${count(p.cached)} of ${counted(p, p.total)} restored` + (checked < p.total ? ` · ${count(checked)} looked up` : '');
    case 'elsewhere':
      return `another tab of this browser encodes this run: ${count(p.done)} of ${counted(p, p.total)} stored so far`;
    case 'loading':
    case 'agreement':
    case 'confirm':
      return p.cached > 0
        ? `${count(p.cached)} of ${counted(p, p.total)} restored · ${count(p.total - p.cached)} to encode once the model is loaded`
        : `${counted(p, p.total)} to encode once the model is loaded`;
    default: {
      const rate = p.perSecond != null ? ` · ${formatPerSecond(p.perSecond, unit)}` : '';
      const sized = p.planBoundBy === undefined ? '' : ` · batches sized to the device's memory by the ${p.planBoundBy}`;
      const retries = p.oomRetries ? ` · ${countOf(p.oomRetries, 'out-of-memory retry')}` : '';
      return `${describeProgress(p)} · ${Math.round(share(p.done, p.total) * 100)}%${rate} · ${formatEta(p.etaMs)}${sized}${retries}`;
    }
  }
}

/** What a row's progress bar measures in its phase: the lookup while reading the cache, else the work. */
export function rowBar(status: string, p: JobProgress): { readonly value: number; readonly max: number } {
  if (status === 'checking' || status === 'restoring') return { value: p.checked ?? p.total, max: p.total };
  return { value: p.done, max: p.total };
}

/** What a candidate held out of the analysis is doing, in its job's phase. */
function activity(r: { readonly status: string; readonly progress?: JobProgress | undefined }): string {
  switch (r.status) {
    case 'checking':
      return "is checking this browser's cache";
    case 'restoring': {
      const p = r.progress;
      return `is being restored from this browser's cache${p ? ` (${count(p.cached)} of ${counted(p, p.total)})` : ''}`;
    }
    case 'confirm':
      return 'waits for your go-ahead to download its model';
    case 'elsewhere':
      return 'is being encoded in another tab';
    case 'loading':
      return 'is loading its model';
    case 'agreement':
      return 'is being checked against WASM fp32';
    case 'encoding':
      return r.progress?.unit === 'queries' ? 'is encoding its queries' : 'is encoding its first passages';
    default:
      return 'is being prepared';
  }
}

/**
 * The analysis' "Updating:" line for the candidates it holds back, each with what it is really doing:
 * "Updating: bge-small is loading its model; e5-small is being restored from this browser's cache (…); the
 * analysis shows them when complete."
 */
export function updatingText(
  rows: readonly { readonly name: string; readonly status: string; readonly progress?: JobProgress | undefined }[],
): string {
  const parts = rows.map((r) => `${r.name} ${activity(r)}`);
  return `Updating: ${parts.join('; ')}; the analysis shows ${rows.length === 1 ? 'it' : 'them'} when complete.`;
}
