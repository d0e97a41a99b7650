import { describe, expect, it } from 'vitest';
import { adjustPValues, benjaminiHochberg } from '../../../src/core/stats/corrections.ts';
import {
  bootstrapIndices,
  bootstrapInterval,
  pairedTest,
  quantileSorted,
  risk,
  riskOfCounts,
  signFlipTest,
} from '../../../src/core/stats/paired.ts';
import { randomStream } from '../../../src/core/random.ts';
import { randomizedTukey } from '../../../src/core/stats/tukey.ts';

/** Per-query differences of a small made-up comparison: a few wins, losses and ties. */
const small = (n: number, seed: number): number[] => {
  const next = randomStream(seed, 'fixture');
  return Array.from({ length: n }, () => {
    const u = next() / 2 ** 32;
    return u < 0.15 ? 0 : Math.round((u - 0.45) * 20) / 20;
  });
};

/** p of the sign-flip test by enumerating all 2^n sign assignments. */
function exactSignFlip(d: readonly number[]): number {
  const n = d.length;
  const observed = Math.abs(d.reduce((a, b) => a + b, 0));
  const scale = d.reduce((a, b) => a + Math.abs(b), 0);
  let hits = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += mask & (1 << i) ? d[i]! : -d[i]!;
    if (Math.abs(sum) >= observed - 1e-11 * scale) hits++;
  }
  return hits / 2 ** n;
}

describe('the sign-flip randomization test', () => {
  it.each([
    [8, 1],
    [12, 2],
    [16, 3],
    [16, 4],
  ])('with n = %i (fixture %i) lands within its Monte Carlo interval of exact enumeration', (n, seed) => {
    const d = small(n, seed);
    const exact = exactSignFlip(d);
    const mc = signFlipTest(d, 10_000, randomStream(7, `test|${n}|${seed}`));
    expect(mc.ci95[0]).toBeLessThanOrEqual(exact);
    expect(mc.ci95[1]).toBeGreaterThanOrEqual(exact);
    expect(Math.abs(mc.p - exact)).toBeLessThan(0.03);
  });

  it('is 1 when nothing changed, and 1/(N + 1), never 0, when every query gains', () => {
    expect(signFlipTest([0, 0, 0, 0], 1000, randomStream(1, 'a')).p).toBe(1);
    const gains = Array.from({ length: 40 }, (_, i) => 0.1 + i / 1000);
    const all = signFlipTest(gains, 2000, randomStream(1, 'b'));
    expect(all.p).toBe(1 / 2001);
    // the Monte Carlo interval is of the share of hits, 0 of 2000
    expect(all.ci95[0]).toBeLessThan(1e-12);
  });
});

describe('the percentile bootstrap interval', () => {
  it('covers the mean, is the same drawn as used or from kept indices, and differs between seeds', () => {
    const d = small(200, 9);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const a = bootstrapInterval(d, 4000, 5);
    const b = bootstrapInterval(d, 4000, 5, bootstrapIndices(d.length, 4000, 5));
    const c = bootstrapInterval(d, 4000, 6);
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(a[0]).toBeLessThan(mean);
    expect(a[1]).toBeGreaterThan(mean);
    // The normal approximation's interval, mean ± 1.96·sd/√n, is close for n = 200.
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1));
    expect(Math.abs(a[0] - (mean - 1.96 * (sd / Math.sqrt(d.length))))).toBeLessThan(0.2 * sd);
  });

  it('reads quantiles between order statistics (type 7)', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantileSorted([10], 0.975)).toBe(10);
  });
});

describe('pairedTest', () => {
  const options = { permutations: 2000, bootstrap: 2000, seed: 3, stream: 's', riskAlphas: [1, 5] };

  it('counts wins, losses and ties, and weighs losses by 1 + α for URisk', () => {
    const r = pairedTest([0.5, 0.5, 0.2, 0.4], [0.7, 0.1, 0.2, 0.6], options);
    expect([r.wins, r.losses, r.ties, r.n]).toEqual([2, 1, 1, 4]);
    // d = 0.2, −0.4, 0, 0.2; α = 1: 0.2, −0.8, 0, 0.2 → −0.1.
    expect(r.risk['1']!.urisk).toBeCloseTo(-0.1, 12);
    expect(r.risk['5']!.urisk).toBeCloseTo((0.2 - 2.4 + 0.2) / 4, 12);
  });

  it('says what it cannot compute: one query, no change, the same change everywhere', () => {
    const one = pairedTest([0.3], [0.5], options);
    expect([one.t, one.p_t, one.d_z, one.risk['1']!.trisk]).toEqual([null, null, null, null]);
    const same = pairedTest([0.3, 0.4], [0.3, 0.4], options);
    expect([same.t, same.p_t, same.d_z, same.p_randomization]).toEqual([null, 1, null, 1]);
    expect([same.p_wilcoxon, same.p_sign, same.power_observed, same.mde, same.n_needed]).toEqual([
      null,
      null,
      null,
      null,
      { '0.02': null, '0.05': null },
    ]);
    expect(same.note).toMatch(/no query changed/);
    const shifted = pairedTest([0.25, 0.5, 0.75], [0.375, 0.625, 0.875], options);
    expect([shifted.t, shifted.p_t, shifted.d_z]).toEqual([null, 0, null]);
    // A shift that rounding leaves an sd of ~1e-17: still no variation, so no t of 1e16.
    const reference = [0.1, 0.7, 0.3, 0.9, 0.2];
    const rounded = pairedTest(
      reference,
      reference.map((x) => x + 0.1),
      options,
    );
    expect([rounded.t, rounded.d_z, rounded.risk['1']!.trisk, rounded.power_observed, rounded.mde]).toEqual([null, null, null, null, null]);
    expect(rounded.note).toMatch(/every query moved by the same \+0\.1000/);
    expect(rounded.p_t).toBe(0);
    expect(() => pairedTest([], [], options)).toThrow(/no query/);
    expect(() => pairedTest([1], [1, 2], options)).toThrow(/1 reference values against 2/);
  });
});

describe('risk of flip counts', () => {
  it.each([
    [7, 10, 300, 1],
    [0, 5, 50, 5],
    [12, 0, 40, 1],
    [3, 2, 5, 1],
  ])('%i fixed, %i broken of %i queries (α = %i) equal URisk/TRisk of the expanded ±1 differences', (gains, losses, n, alpha) => {
    const d = [...Array<number>(gains).fill(1), ...Array<number>(losses).fill(-1), ...Array<number>(n - gains - losses).fill(0)];
    const expanded = risk(d, alpha);
    const counted = riskOfCounts(gains, losses, n, alpha);
    expect(counted.urisk).toBeCloseTo(expanded.urisk, 12);
    expect(counted.trisk === null ? null : counted.trisk).toBeCloseTo(expanded.trisk!, 10);
  });

  it('has no TRisk when nothing changes', () => {
    expect(riskOfCounts(0, 0, 30, 1)).toEqual({ urisk: 0, trisk: null });
  });
});

describe('corrections over a family', () => {
  it('Benjamini–Hochberg equals its definition, min over j ≥ i of m·p_(j)/j', () => {
    const p = [0.01, 0.04, 0.03, 0.2, 0.005, 0.5];
    const sorted = [...p].sort((a, b) => a - b);
    const naive = p.map((x) => {
      const i = sorted.indexOf(x);
      return Math.min(1, ...sorted.slice(i).map((y, j) => (p.length * y) / (i + j + 1)));
    });
    benjaminiHochberg(p).forEach((x, i) => expect(x).toBeCloseTo(naive[i]!, 15));
  });

  it('treats an undefined p as 1 in the family and keeps it undefined', () => {
    expect(adjustPValues([0.01, null, 0.02], 'bonferroni')).toEqual([0.03, null, 0.06]);
    expect(adjustPValues([0.01, null, 0.02], 'none')).toEqual([0.01, null, 0.02]);
    expect(adjustPValues([0.01, null, 0.02], 'holm')).toEqual([0.03, null, 0.04]);
  });
});

describe('randomized Tukey HSD', () => {
  const queries = 60;
  const base = small(queries, 11).map((x) => 0.5 + x);
  const noise = (seed: number) => small(queries, seed).map((x) => x / 10);
  const systems = {
    a: base.map((x, i) => x + noise(21)[i]!),
    b: base.map((x, i) => x + noise(22)[i]!),
    c: base.map((x, i) => x + 0.3 + noise(23)[i]!),
  };

  it('tells a shifted system from two alike, and groups the alike', () => {
    const r = randomizedTukey(Object.keys(systems), Object.values(systems), { permutations: 2000, seed: 1, stream: 'm' });
    const p = (a: string, b: string) => r.pairs.find((x) => x.a === a && x.b === b)!.p;
    expect(p('a', 'b')).toBeGreaterThan(0.05);
    expect(p('a', 'c')).toBeLessThan(0.01);
    expect(p('b', 'c')).toBeLessThan(0.01);
    expect(r.groups).toEqual([['c'], expect.arrayContaining(['a', 'b'])]);
    expect(r.pairs.find((x) => x.a === 'a' && x.b === 'c')!.diff).toBeCloseTo(
      -0.3 + (noise(21).reduce((s, x) => s + x, 0) - noise(23).reduce((s, x) => s + x, 0)) / queries,
      12,
    );
  });

  it('is reproducible from its seed and never smaller than the pairwise randomization p', () => {
    const options = { permutations: 1000, seed: 9, stream: 'm' };
    const one = randomizedTukey(Object.keys(systems), Object.values(systems), options);
    const two = randomizedTukey(Object.keys(systems), Object.values(systems), options);
    expect(one).toEqual(two);
    // The max-range statistic is at least any one pair's difference: HSD is the more conservative test.
    const d = systems.a.map((x, i) => systems.b[i]! - x);
    const pairwise = signFlipTest(d, 4000, randomStream(1, 'pair')).p;
    expect(one.pairs.find((x) => x.a === 'a' && x.b === 'b')!.p).toBeGreaterThanOrEqual(pairwise - 0.05);
  });
});
