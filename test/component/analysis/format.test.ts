/** The analysis formatters: the exact strings the tables show. */
import { describe, expect, test } from 'vitest';
import {
  fileSafe,
  formatCount,
  formatMeasure,
  formatNetGain,
  formatPercent,
  formatPValue,
  formatRate,
  formatShare,
  formatSigned,
  undefinedReason,
} from '../../../src/app/views/analysis/format.ts';
import { depthListText, parseDepthList } from '../../../src/app/views/analysis/depths.ts';
import { exactMcNemar, netGainInterval, UNDEFINED_ESTIMATE, wilson } from '../../../src/core/stats/index.ts';

describe('number formatting', () => {
  test('counts carry thousands separators, signed counts a sign', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatSigned(1177)).toBe('+1,177');
    expect(formatSigned(-3)).toBe('-3');
    expect(formatSigned(0)).toBe('0');
  });

  test('percentages have one decimal and undefined is a dash, never 0', () => {
    expect(formatPercent(0.1234)).toBe('12.3%');
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(null)).toBe('—');
    expect(formatShare(1, 3)).toBe('33.3%');
    expect(formatShare(0, 0)).toBe('—');
  });

  test('rates print as "p% [lo, hi]" from the Wilson interval', () => {
    expect(formatRate({ value: 0.123, lo: 0.101, hi: 0.148 })).toBe('12.3% [10.1, 14.8]');
    const w = wilson(63, 1600);
    expect(formatRate(w)).toBe(`${(100 * w.value!).toFixed(1)}% [${(100 * w.lo!).toFixed(1)}, ${(100 * w.hi!).toFixed(1)}]`);
    expect(formatRate(UNDEFINED_ESTIMATE)).toBe('—');
    expect(formatRate(wilson(0, 0))).toBe('—');
  });

  test('net gain prints the signed count with its interval at one decimal', () => {
    // The paper's NQ BGE k = 10 interval (DESIGN.md): +1,177 [1,115.97, 1,238.03].
    expect(formatNetGain({ value: 1177, lo: 1115.97, hi: 1238.03 })).toBe('+1,177 [1,116.0, 1,238.0]');
    const e = netGainInterval(3, 7, 20);
    expect(formatNetGain(e)).toBe(`-4 [${e.lo!.toFixed(1)}, ${e.hi!.toFixed(1)}]`);
    expect(formatNetGain(netGainInterval(1, 1, 0))).toBe('—');
  });

  test('p-values: "< 0.0001" below it, four significant digits otherwise', () => {
    expect(formatPValue(0.00005)).toBe('< 0.0001');
    expect(formatPValue(0.0001)).toBe('0.0001000');
    expect(formatPValue(exactMcNemar(60, 26))).toBe(exactMcNemar(60, 26).toPrecision(4));
    expect(formatPValue(exactMcNemar(60, 26))).toMatch(/^0\.0003\d{3}$/);
    expect(formatPValue(1)).toBe('1.000');
    expect(formatPValue(0.04567891)).toBe('0.04568');
  });

  test('measures have four decimals as trec_eval prints them', () => {
    expect(formatMeasure(0.123456)).toBe('0.1235');
    expect(formatMeasure(undefined)).toBe('—');
  });

  test('undefined reasons name the depth and the empty denominator', () => {
    expect(undefinedReason('negative_flip_rate', 1)).toMatch(/k = 1.*denominator 0/);
    expect(undefinedReason('fix_rate', 50)).toMatch(/every query at k = 50/);
    expect(undefinedReason('stratum', 10, '6-10')).toMatch(/ranks 6-10/);
    expect(fileSafe('BM25 (k1=1.2)/b')).toBe('BM25-k1-1.2-b');
  });
});

describe('depth list parsing', () => {
  test('sorts, deduplicates and accepts spaces, commas, semicolons', () => {
    expect(parseDepthList('10, 1, 5')).toEqual({ ok: true, depths: [1, 5, 10] });
    expect(parseDepthList('5 5;1')).toEqual({ ok: true, depths: [1, 5] });
    expect(depthListText([1, 5, 10])).toBe('1, 5, 10');
  });

  test('rejects zero, fractions, words, empty text and depths beyond the runs', () => {
    for (const bad of ['0, 5', '1.5', 'a,b', '', ' , ', '-3']) {
      const r = parseDepthList(bad);
      expect(r.ok, bad).toBe(false);
    }
    const zero = parseDepthList('0, 5');
    expect(!zero.ok && zero.error).toMatch(/positive integers, got 0/);
    const word = parseDepthList('a,b');
    expect(!word.ok && word.error).toMatch(/"a" is not a number/);
    const deep = parseDepthList('1, 100', 50);
    expect(!deep.ok && deep.error).toMatch(/100 exceeds 50/);
    expect(parseDepthList('1, 50', 50).ok).toBe(true);
  });
});
