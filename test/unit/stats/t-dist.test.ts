import { describe, expect, it } from 'vitest';
import { lnGamma, regularizedBeta, tTwoSided } from '../../../src/core/stats/t-dist.ts';

/**
 * Two-sided tails P(|T| ≥ t) to 25 digits, from mpmath 1.3 at 40 digits (betainc(ν/2, 1/2, 0, ν/(ν+t²),
 * regularized=True)); the first rows also follow from the closed forms below.
 */
const PUBLISHED: readonly [t: number, df: number, tail: string][] = [
  [2.0, 5, '0.1019394788298583562453611'],
  [1.0, 1, '0.5'],
  [0.5, 30, '0.6207230048851272859604003'],
  [3.2, 12, '0.007632538800810797175680867'],
  [10.0, 3, '0.00212839905841415005740368'],
  [1.96, 1000, '0.0502731849557487184348983'],
  [4.5, 100, '0.00001838461154761552874203701'],
  [0.1, 2, '0.9294654384141401692236489'],
  [2.5, 7.5, '0.03882025827362555718339955'],
  [6.0, 40, '0.0000004726455132788187513782968'],
  [1.3, 6979, '0.193643901783705866262894'],
];

describe('Student t tail', () => {
  it.each(PUBLISHED)('P(|T| ≥ %f; ν = %f) matches the published value to 1e-10', (t, df, tail) => {
    expect(Math.abs(tTwoSided(t, df) - Number(tail))).toBeLessThan(1e-10);
    expect(Math.abs(tTwoSided(-t, df) - Number(tail))).toBeLessThan(1e-10);
  });

  it('keeps relative precision far in the tail', () => {
    const tail = Number('3.482138581776172744846542e-132'); // t = 25, ν = 6979 (mpmath, as above)
    expect(Math.abs(tTwoSided(25, 6979) / tail - 1)).toBeLessThan(1e-9);
  });

  it('agrees with the closed forms for 1–4 degrees of freedom', () => {
    for (let t = 0; t <= 40; t += 0.37) {
      const cauchy = 1 - (2 / Math.PI) * Math.atan(t);
      const two = 1 - t / Math.sqrt(2 + t * t);
      const three = 1 - (2 / Math.PI) * (t / (Math.sqrt(3) * (1 + (t * t) / 3)) + Math.atan(t / Math.sqrt(3)));
      const u = (t * t) / (4 + t * t);
      const four = 1 - Math.sqrt(u) * (1.5 - 0.5 * u);
      expect(Math.abs(tTwoSided(t, 1) - cauchy)).toBeLessThan(1e-12);
      expect(Math.abs(tTwoSided(t, 2) - two)).toBeLessThan(1e-12);
      expect(Math.abs(tTwoSided(t, 3) - three)).toBeLessThan(1e-12);
      expect(Math.abs(tTwoSided(t, 4) - four)).toBeLessThan(1e-12);
    }
  });

  it('is 1 at t = 0, 0 at infinity, and refuses a degree of freedom that is not positive', () => {
    expect(tTwoSided(0, 7)).toBe(1);
    expect(tTwoSided(Infinity, 7)).toBe(0);
    expect(tTwoSided(-Infinity, 7)).toBe(0);
    expect(Number.isNaN(tTwoSided(Number.NaN, 7))).toBe(true);
    expect(() => tTwoSided(1, 0)).toThrow(/degrees of freedom/);
  });

  it('ln Γ and I_x(a, b) hold their identities', () => {
    expect(Math.abs(lnGamma(1))).toBeLessThan(1e-14);
    expect(Math.abs(lnGamma(0.5) - 0.5 * Math.log(Math.PI))).toBeLessThan(1e-14);
    expect(Math.abs(lnGamma(10) - Math.log(362880))).toBeLessThan(1e-12);
    // I_x(a, 1) = x^a and I_x(1, b) = 1 − (1 − x)^b.
    for (const x of [0.01, 0.3, 0.5, 0.77, 0.999]) {
      expect(Math.abs(regularizedBeta(x, 3.5, 1) - x ** 3.5)).toBeLessThan(1e-13);
      expect(Math.abs(regularizedBeta(x, 1, 2.5) - (1 - (1 - x) ** 2.5))).toBeLessThan(1e-13);
    }
  });
});
