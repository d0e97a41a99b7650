/** Counts in prose: thousands separators, and the noun in the singular for exactly one. */
import { describe, expect, it } from 'vitest';
import { countOf, formatCount } from '../../src/core/count.ts';

describe('countOf', () => {
  it('says one in the singular and every other count in the plural', () => {
    expect(countOf(1, 'query', 'queries')).toBe('1 query');
    expect(countOf(0, 'query', 'queries')).toBe('0 queries');
    expect(countOf(2, 'query', 'queries')).toBe('2 queries');
    expect(countOf(1, 'run')).toBe('1 run');
    expect(countOf(3, 'run')).toBe('3 runs');
  });

  it("makes English's regular plural unless told another", () => {
    expect(countOf(2, 'query')).toBe('2 queries');
    expect(countOf(2, 'out-of-memory retry')).toBe('2 out-of-memory retries');
    expect(countOf(2, 'day')).toBe('2 days');
    expect(countOf(2, 'analysis', 'analyses')).toBe('2 analyses');
  });

  it('writes thousands the way formatCount does', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(countOf(1234, 'query', 'queries')).toBe('1,234 queries');
    expect(countOf(1000, 'passage')).toBe('1,000 passages');
  });
});
