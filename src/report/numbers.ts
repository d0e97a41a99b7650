/**
 * Number formatting of the flip tables, character for character the same as the terminal tables of
 * `fliplab flips`: the rate, gain and p-value formatters are the core's own (src/core/flips/format.ts),
 * re-exported here; test/unit/report/numbers.test.ts checks every cell against that text. trec_eval values
 * use the core's C-printf formatting (`%6.4f`), so a report shows what `fliplab eval` prints. Counts in prose
 * (the headline sentences, the lab's views) carry thousands separators: `formatCount`, `formatSigned`, `countOf`.
 */
import { formatValue } from '../core/metrics/printf.ts';

export { gain, meanSize, pct, pval, signed } from '../core/flips/format.ts';

/** Counts in prose (the headline, the lab's views): thousands separators, and the noun they count (core/count.ts). */
export { countOf, formatCount, formatSigned } from '../core/count.ts';

/** A trec_eval measure value exactly as trec_eval prints it (`%6.4f`, halves to even), without padding. */
export const measure = (x: number): string => formatValue(x).trim();
