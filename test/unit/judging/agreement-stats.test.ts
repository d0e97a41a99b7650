/**
 * The agreement statistics of model judgments against published and independent values: Cohen's κ on the
 * textbook 2 × 2 table (Wikipedia's worked example: κ = 0.4), weighted κ reducing to κ on two grades, Kendall's
 * τ-b with ties against scipy 1.17's `kendalltau(x, y, variant='b')`, and τ_AP's defining properties (Yilmaz,
 * Aslam & Robertson 2008: ±1 at the ends; a swap at the top costs more than one at the bottom, while τ is blind
 * to where it is).
 */
import { describe, expect, it } from 'vitest';
import { cohenKappa, confusion, kappaWords, kendallTauB, tauAp, weightedKappa } from '../../../src/core/judging/agreement-stats.ts';

const repeat = <T>(value: T, n: number): T[] => Array.from({ length: n }, () => value);

describe('Cohen’s κ', () => {
  it('is 0.4 on the textbook table (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no)', () => {
    const a = [...repeat(true, 25), ...repeat(false, 25)];
    const b = [...repeat(true, 20), ...repeat(false, 5), ...repeat(true, 10), ...repeat(false, 15)];
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 12);
    expect(kappaWords(0.4)).toBe('fair');
  });

  it('is 1 on full agreement, and undefined when both raters give one label', () => {
    expect(cohenKappa([true, false, true], [true, false, true])).toBe(1);
    expect(cohenKappa([true, true], [true, true])).toBeNull();
    expect(cohenKappa([], [])).toBeNull();
  });
});

describe('weighted κ', () => {
  it('equals κ on two grades, linear or quadratic', () => {
    const h = [1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1];
    const m = [1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1];
    const kappa = cohenKappa(
      h.map((g) => g >= 1),
      m.map((g) => g >= 1),
    )!;
    const table = confusion(h, m);
    expect(table).toEqual({
      labels: [0, 1],
      counts: [
        [4, 2],
        [1, 5],
      ],
    });
    expect(weightedKappa(table, 'linear')).toBeCloseTo(kappa, 12);
    expect(weightedKappa(table, 'quadratic')).toBeCloseTo(kappa, 12);
  });

  it('weighs a miss by the distance between grade values', () => {
    // The same pattern of misses, once between adjacent grades and once between 0 and 3.
    const near = weightedKappa(confusion([0, 0, 2, 2, 3, 3], [0, 0, 2, 3, 3, 2]), 'linear')!;
    const far = weightedKappa(confusion([0, 0, 2, 2, 3, 3], [0, 3, 2, 2, 3, 0]), 'linear')!;
    expect(near).toBeGreaterThan(far);
    expect(weightedKappa(confusion([2, 2], [2, 2]), 'quadratic')).toBeNull();
  });
});

describe('Kendall’s τ-b and τ_AP', () => {
  it('τ-b equals scipy’s with ties in both scorings', () => {
    const x = [0.51, 0.48, 0.48, 0.4, 0.33, 0.3, 0.3, 0.21];
    const y = [0.45, 0.47, 0.41, 0.41, 0.2, 0.35, 0.1, 0.1];
    // scipy.stats.kendalltau(x, y, variant='b').statistic
    expect(kendallTauB(x, y)).toBeCloseTo(0.7692307692307694, 14);
    expect(kendallTauB([1, 1], [1, 2])).toBeNull();
  });

  it('τ_AP is 1 and −1 at the ends, and a swap at the top costs more than one at the bottom', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const truth = [6, 5, 4, 3, 2, 1];
    expect(tauAp(names, truth, truth)).toBeCloseTo(1, 14);
    expect(tauAp(names, truth, [1, 2, 3, 4, 5, 6])).toBeCloseTo(-1, 14);
    const top = [5, 6, 4, 3, 2, 1];
    const bottom = [6, 5, 4, 3, 1, 2];
    expect(kendallTauB(truth, top)).toBeCloseTo(kendallTauB(truth, bottom)!, 14);
    expect(tauAp(names, truth, top)!).toBeLessThan(tauAp(names, truth, bottom)!);
    // Top swap: C(2) = 0, every later item has all above it right: 2/5 (0 + 1 + 1 + 1 + 1) − 1.
    expect(tauAp(names, truth, top)).toBeCloseTo((2 / 5) * 4 - 1, 14);
    expect(tauAp(['a'], [1], [1])).toBeNull();
  });
});
