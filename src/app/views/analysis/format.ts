/**
 * Pure text formatting for the analysis views (and anything that wants to print their numbers the same
 * way, e.g. the HTML report). The column meanings follow `src/core/flips/format.ts` (the CLI tables); the
 * display differs only in typography: thousands separators, "—" for an undefined rate, p-values to four
 * significant digits. A rate whose denominator is zero arrives as an `Estimate` with `value: null`; it is
 * shown as "—" with an explanation (`undefinedReason`), never as 0.
 */
import type { Estimate } from '../../../core/stats/index.ts';
import { countOf, formatCount, formatSigned } from '../../../report/numbers.ts';

/** What an undefined cell shows. */
export const UNDEFINED_TEXT = '—';

const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * Counts in prose (1234567 → "1,234,567", 1177 → "+1,177", `countOf(1, 'query')` → "1 query"): the headline's
 * and the reports', shared with `fliplab demo`.
 */
export { countOf, formatCount, formatSigned };

/** One decimal with thousands separators: 1115.97 → "1,116.0". */
export function formatDecimal(x: number): string {
  return oneDecimal.format(x);
}

/** A proportion as a percentage with one decimal (0.1234 → "12.3%"); null → "—". */
export function formatPercent(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return UNDEFINED_TEXT;
  return `${(100 * x).toFixed(1)}%`;
}

/** A rate with its 95% interval: "12.3% [10.1, 14.8]" (bounds in percent); undefined → "—". */
export function formatRate(e: Estimate | null | undefined): string {
  if (!e || e.value === null || e.lo === null || e.hi === null) return UNDEFINED_TEXT;
  return `${formatPercent(e.value)} [${(100 * e.lo).toFixed(1)}, ${(100 * e.hi).toFixed(1)}]`;
}

/** Net gain with its interval: "+1,177 [1,116.0, 1,238.0]"; undefined → "—". */
export function formatNetGain(e: Estimate | null | undefined): string {
  if (!e || e.value === null || e.lo === null || e.hi === null) return UNDEFINED_TEXT;
  return `${formatSigned(e.value)} [${formatDecimal(e.lo)}, ${formatDecimal(e.hi)}]`;
}

/** A p-value: below 0.0001 "< 0.0001", otherwise four significant digits (0.000317 → "0.0003170"). */
export function formatPValue(p: number): string {
  if (!Number.isFinite(p)) return UNDEFINED_TEXT;
  if (p < 0.0001) return '< 0.0001';
  return p.toPrecision(4);
}

/** A share of a total as a percentage with one decimal; "—" when the total is 0. */
export function formatShare(count: number, total: number): string {
  return total > 0 ? formatPercent(count / total) : UNDEFINED_TEXT;
}

/** A mean size with one decimal ("9.8"). */
export function formatMean(x: number): string {
  return Number.isFinite(x) ? formatDecimal(x) : UNDEFINED_TEXT;
}

/** A trec_eval measure value with four decimals (as trec_eval prints it); missing → "—". */
export function formatMeasure(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return UNDEFINED_TEXT;
  return x.toFixed(4);
}

export type RateKind = 'fix_rate' | 'negative_flip_rate' | 'compatibility' | 'net_gain' | 'stratum';

/**
 * Why a rate is undefined, in words, for a title/aria text next to "—". `k` is the depth; for strata,
 * `ranks` names the stratum.
 */
export function undefinedReason(kind: RateKind, k: number, ranks?: string): string {
  switch (kind) {
    case 'negative_flip_rate':
      return `Undefined: the reference supports no query at k = ${k}, so there is no success to lose (denominator 0).`;
    case 'compatibility':
      return `Undefined: the reference supports no query at k = ${k}, so there is no success to preserve (denominator 0).`;
    case 'fix_rate':
      return `Undefined: the reference supports every query at k = ${k}, so there is no failure to fix (denominator 0).`;
    case 'net_gain':
      return 'Undefined: there are no queries to compare.';
    case 'stratum':
      return (
        `Undefined: no query is first supported by the reference at rank${ranks?.includes('-') ? 's' : ''} ` +
        `${ranks ?? '?'} (denominator 0).`
      );
  }
}

/** Makes a string safe as (part of) a file name: anything but letters, digits, ".", "_" and "-" → "-". */
export function fileSafe(s: string): string {
  const cleaned = s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'run' : cleaned;
}
