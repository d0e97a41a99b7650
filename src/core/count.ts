/**
 * Counts in prose, written one way everywhere (the lab's views, the reports and the headline, the CLI's
 * sentences; src/report/numbers.ts and the views' format.ts pass them on): thousands separators in English
 * style, and the noun in the singular for exactly one ("1 query", "0 queries", "1,234 queries").
 */

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const signedCountFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0, signDisplay: 'exceptZero' });

/** A count with thousands separators: 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  return countFormat.format(n);
}

/** A signed count: 1177 → "+1,177", -3 → "-3", 0 → "0". */
export function formatSigned(n: number): string {
  return signedCountFormat.format(n);
}

/**
 * A count and its noun: `countOf(1, 'query')` → "1 query", `countOf(1234, 'query')` → "1,234 queries",
 * `countOf(3, 'run')` → "3 runs". The plural is English's regular one (a consonant's "y" becomes "ies", else
 * "s" is added); pass another as `many` (`countOf(2, 'analysis', 'analyses')`).
 */
export function countOf(n: number, one: string, many = regularPlural(one)): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

function regularPlural(noun: string): string {
  return /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}
