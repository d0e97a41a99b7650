import { describe, expect, it } from 'vitest';
import { studentTCdf, studentTQuantile, t95 } from '../../../src/core/stats/t-dist.ts';
import { Z_95 } from '../../../src/core/stats/index.ts';

describe("Student's t", () => {
  it('matches the closed forms for 1 and 2 degrees of freedom', () => {
    for (const q of [0.6, 0.9, 0.975, 0.995]) {
      expect(studentTQuantile(q, 1)).toBeCloseTo(Math.tan(Math.PI * (q - 0.5)), 9); // Cauchy
      expect(studentTQuantile(q, 2)).toBeCloseTo((2 * q - 1) / Math.sqrt(2 * q * (1 - q)), 9);
    }
    for (const t of [-3, -0.5, 0, 0.7, 4]) expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
  });

  it('matches scipy.stats.t.ppf(0.975, df) and tends to the normal quantile', () => {
    expect(t95(3)).toBeCloseTo(3.1824463052837078, 10);
    expect(t95(10)).toBeCloseTo(2.228138851986274, 10);
    expect(t95(30)).toBeCloseTo(2.0422724563012378, 10);
    expect(t95(1000)).toBeCloseTo(1.9623390808264083, 10);
    expect(t95(1e6)).toBeCloseTo(Z_95, 5);
  });
});
