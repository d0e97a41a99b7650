/**
 * The normal distribution, the noncentral t and the power of the paired t-test against outside values: Φ from
 * mpmath 1.3 at 40 digits (ncdf), the rest from R 4.2.2 (`pt(q, df, ncp)`, `power.t.test(…, type = "paired",
 * tol = 1e-13)`; n needed is `ceiling(…$n)`).
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../../src/core/stats/normal.ts';
import { minimumDetectableEffect, noncentralTCdf, pairedPower, queriesNeeded } from '../../../src/core/stats/power.ts';

describe('Φ', () => {
  it.each([
    [-10, '7.619853024160526065973343e-24'],
    [-5, '2.866515718791939116737523e-7'],
    [-1.96, '0.02499789514822043621282369'],
    [-0.5, '0.3085375387259868963622954'],
    [0, '0.5'],
    [0.3, '0.6179114221889526330722736'],
    [1.5, '0.933192798731141933995506'],
    [3, '0.9986501019683699054733482'],
  ] as const)('Φ(%f) keeps its relative precision', (x, value) => {
    expect(Math.abs(normalCdf(x) / Number(value) - 1)).toBeLessThan(1e-14);
  });

  it('is 0 and 1 at the infinities, and far in the tail underflows to 0, not NaN', () => {
    expect([normalCdf(-Infinity), normalCdf(Infinity), normalCdf(-40)]).toEqual([0, 1, 0]);
  });
});

describe('the power of the paired t-test', () => {
  it('the noncentral t equals R’s pt', () => {
    expect(Math.abs(noncentralTCdf(2, 10, 1.5) - 0.65915407244202628)).toBeLessThan(1e-12);
    expect(Math.abs(noncentralTCdf(-1, 42, 0.5) - 0.068727948446518417)).toBeLessThan(1e-12);
    expect(Math.abs(1 - noncentralTCdf(2.02, 42, 3.3) - 0.8964849143585889)).toBeLessThan(1e-12);
  });

  it.each([
    [43, 0.03, 0.15, 0.24877037146297298],
    [43, 0.01, 0.15, 0.062675186045729858],
    [300, 0.01, 0.4, 0.063214049888791535],
    [7000, 0.005, 0.3, 0.2857914087647514],
    [5, 0.2, 0.1, 0.90888486421126347],
    [2, 1, 0.5, 0.17566400371426449],
  ])('power.t.test(n = %i, delta = %f, sd = %f) = R’s', (n, delta, sd, power) => {
    expect(Math.abs(pairedPower(delta, { n, sd }) - power)).toBeLessThan(1e-9);
  });

  it.each([
    [43, 0.15, 0.065598346208507324],
    [300, 0.4, 0.064908574066847233],
    [7000, 0.3, 0.010046983076712897],
    [5, 0.1, 0.168199728221435],
  ])('the minimum detectable effect at n = %i, sd = %f is R’s delta at power 0.8', (n, sd, delta) => {
    expect(Math.abs(minimumDetectableEffect({ n, sd }) - delta)).toBeLessThan(1e-9);
  });

  it.each([
    [0.02, 0.15, 444],
    [0.05, 0.15, 73],
    [0.01, 0.4, 12561],
    [0.3, 0.1, 4],
  ])('Δ = %f at sd = %f needs R’s ceiling(n) queries', (delta, sd, n) => {
    expect(queriesNeeded(delta, sd)).toBe(n);
    // and one query fewer is not enough
    expect(pairedPower(delta, { n: n - 1, sd })).toBeLessThan(0.8);
  });
});
