/**
 * Number formatting of the flip tables, character for character the same as the terminal tables of
 * `fliplab flips` (src/core/flips/format.ts keeps these helpers private; they are restated here and
 * test/unit/report/numbers.test.ts checks every cell against that text). trec_eval values use the core's
 * C-printf formatting (`%6.4f`), so a report shows what `fliplab eval` prints.
 */
import type { Estimate } from '../core/stats/index.ts';
import { formatValue } from '../core/metrics/printf.ts';

/** "12.3% [10.1, 14.9]", or "undefined" when the denominator is zero. */
export const pct = (e: Estimate): string =>
  e.value === null ? 'undefined' : `${(100 * e.value).toFixed(1)}% [${(100 * e.lo!).toFixed(1)}, ${(100 * e.hi!).toFixed(1)}]`;

/** "+3", "0", "-2". */
export const signed = (x: number): string => (x > 0 ? `+${x}` : `${x}`);

/** "+184 [160.2, 207.8]". */
export const gain = (e: Estimate): string => (e.value === null ? 'undefined' : `${signed(e.value)} [${e.lo!.toFixed(1)}, ${e.hi!.toFixed(1)}]`);

/** p-values: four decimals, or scientific below 0.0001. */
export const pval = (p: number): string => (p < 0.0001 ? p.toExponential(2) : p.toFixed(4));

/** Mean hybrid list size, one decimal. */
export const meanSize = (x: number): string => x.toFixed(1);

/** A trec_eval measure value exactly as trec_eval prints it (`%6.4f`, halves to even), without padding. */
export const measure = (x: number): string => formatValue(x).trim();
