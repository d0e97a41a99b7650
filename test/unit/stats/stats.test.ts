import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactMcNemar, holm, netGainInterval, wilson, Z_95 } from '../../../src/core/stats/index.ts';

/** Exact binomial tail with BigInt: the obviously-correct oracle for the log-space implementation. */
function naiveMcNemar(b: number, c: number): number {
  const d = b + c;
  if (d === 0) return 1;
  const s = Math.min(b, c);
  let sum = 0n;
  let comb = 1n;
  for (let i = 0; i <= s; i++) {
    if (i > 0) comb = (comb * BigInt(d - i + 1)) / BigInt(i);
    sum += comb;
  }
  // 2·sum / 2^d, computed with enough precision by scaling.
  const scale = 10n ** 30n;
  const ratio = Number((2n * sum * scale) / 2n ** BigInt(d)) / 1e30;
  return Math.min(1, ratio);
}

describe('exact McNemar', () => {
  it('matches the paper: 60 vs 26 discordant → p = 0.000317', () => {
    expect(exactMcNemar(60, 26)).toBeCloseTo(0.000317, 6);
    expect(exactMcNemar(26, 60)).toBe(exactMcNemar(60, 26));
  });

  it('is 1 without discordant pairs and for balanced counts near the centre', () => {
    expect(exactMcNemar(0, 0)).toBe(1);
    expect(exactMcNemar(5, 5)).toBe(1);
    // b = 0, c = 3: 2 · (1/2)^3
    expect(exactMcNemar(0, 3)).toBeCloseTo(2 / 8, 15);
  });

  it('equals an exact BigInt binomial tail for any counts', () => {
    fc.assert(
      fc.property(fc.nat(400), fc.nat(400), (b, c) => {
        expect(exactMcNemar(b, c)).toBeCloseTo(naiveMcNemar(b, c), 10);
      }),
    );
  });

  it('stays finite and correct far beyond 2^1023', () => {
    const p = exactMcNemar(3000, 3300);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(p).toBeCloseTo(naiveMcNemar(3000, 3300), 10);
  });

  it('rejects negative or fractional counts', () => {
    expect(() => exactMcNemar(-1, 2)).toThrow(RangeError);
    expect(() => exactMcNemar(1.5, 2)).toThrow(RangeError);
  });
});

describe('Holm', () => {
  it('adjusts [0.01, 0.2, 0.001] to [0.02, 0.2, 0.003]', () => {
    const adjusted = holm([0.01, 0.2, 0.001]);
    [0.02, 0.2, 0.003].forEach((v, i) => expect(adjusted[i]).toBeCloseTo(v, 12));
  });

  it('equals the textbook definition: max over smaller p of min(1, (m − i + 1)·p_(i))', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }), (ps) => {
        const m = ps.length;
        const sorted = [...ps].sort((a, b) => a - b);
        const adjustedSorted = sorted.map((_, j) => Math.max(...sorted.slice(0, j + 1).map((p, i) => Math.min(1, (m - i) * p))));
        const got = holm(ps);
        ps.forEach((p, i) => {
          const j = sorted.indexOf(p);
          expect(got[i]).toBeCloseTo(adjustedSorted[j]!, 12);
          expect(got[i]).toBeGreaterThanOrEqual(p);
          expect(got[i]).toBeLessThanOrEqual(1);
        });
      }),
    );
  });
});

describe('Wilson interval', () => {
  // Published values, not the formula restated: Newcombe (1998), "Two-sided confidence intervals for the
  // single proportion: comparison of seven methods", Statistics in Medicine 17:857–872, Table I, method 3
  // (Wilson score interval without continuity correction), 95%, printed to four decimals.
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0.0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i gives Newcombe’s published interval [%f, %f]', (s, t, lo, hi) => {
    const w = wilson(s, t);
    expect(w.value).toBe(s / t);
    expect(w.lo!.toFixed(4)).toBe(lo.toFixed(4));
    expect(w.hi!.toFixed(4)).toBe(hi.toFixed(4));
  });

  it('uses z = Φ⁻¹(0.975) to double precision (the reference code’s constant)', () => {
    expect(Z_95).toBe(1.959963984540054);
  });

  it('is undefined for an empty denominator, and clipped to [0, 1] at the extremes', () => {
    expect(wilson(0, 0)).toEqual({ value: null, lo: null, hi: null });
    const zero = wilson(0, 10);
    expect(zero.value).toBe(0);
    expect(zero.lo).toBe(0);
    expect(zero.hi).toBeGreaterThan(0);
    const all = wilson(10, 10);
    expect(all.hi).toBeCloseTo(1, 12);
    expect(all.hi).toBeLessThanOrEqual(1);
  });
});

describe('net-gain interval', () => {
  it('reproduces the reference implementation on NQ BGE k = 10 (1,274 fixed, 97 broken, 3,452 queries)', () => {
    const g = netGainInterval(1274, 97, 3452);
    expect(g.value).toBe(1177);
    expect(g.lo).toBeCloseTo(1115.97, 2);
    expect(g.hi).toBeCloseTo(1238.03, 2);
  });

  it('equals n·mean ± z·√(n·Var_pop) of the per-query ±1 differences', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(50), (fixed, broken, same) => {
        const d = [...Array(fixed).fill(1), ...Array(broken).fill(-1), ...Array(same).fill(0)] as number[];
        const n = d.length;
        if (n === 0) return;
        const mean = d.reduce((a, b) => a + b, 0) / n;
        const varPop = d.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
        const half = Z_95 * Math.sqrt(n * varPop);
        const g = netGainInterval(fixed, broken, n);
        expect(g.lo).toBeCloseTo(n * mean - half, 9);
        expect(g.hi).toBeCloseTo(n * mean + half, 9);
      }),
    );
  });
});
