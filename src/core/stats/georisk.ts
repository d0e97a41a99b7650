/**
 * Risk across a whole track: GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016) scores each run against what every
 * run achieves on each query, not against one reference. With x_iq run i's value on query q:
 * S_i = Σ_q x_iq, T_q = Σ_i x_iq, N = Σ x, the expected e_iq = S_i·T_q/N and z_iq = (x_iq − e_iq)/√e_iq;
 * ZRisk_i = Σ of the z_iq ≥ 0 plus (1 + α)·Σ of the z_iq < 0; GeoRisk_i = √(S_i/c · Φ(ZRisk_i/c)), c the
 * number of queries. Queries where every run scores 0 are left out (their e_iq are 0) and counted. A run that
 * scores 0 everywhere has e_iq = 0 too: its z are taken as 0 (it is exactly what is expected of it).
 */
import { normalCdf } from './normal.ts';

export interface GeoRiskRow {
  readonly name: string;
  readonly zrisk: number;
  readonly georisk: number;
}

export interface GeoRiskResult {
  /** Queries kept (some run scores above 0). */
  readonly queries_kept: number;
  /** Queries every run scores 0 on. */
  readonly queries_dropped: number;
  /** By α as written ("1", "5"): one row per run, in input order. */
  readonly alpha: Readonly<Record<string, readonly GeoRiskRow[]>>;
}

/** `values[i][q]`: run i's value on query q, every run over the same queries in the same order. */
export function geoRisk(names: readonly string[], values: readonly ArrayLike<number>[], alphas: readonly number[]): GeoRiskResult {
  const m = names.length;
  if (m === 0 || values.length !== m) throw new RangeError('GeoRisk: one row of values a run');
  const n = values[0]!.length;
  if (values.some((v) => v.length !== n)) throw new RangeError('GeoRisk: every run needs a value for every query');
  const kept: number[] = [];
  for (let q = 0; q < n; q++) if (values.some((v) => v[q] !== 0)) kept.push(q);
  const c = kept.length;
  const runTotals = values.map((v) => kept.reduce((s, q) => s + v[q]!, 0));
  const queryTotals = kept.map((q) => values.reduce((s, v) => s + v[q]!, 0));
  const total = runTotals.reduce((s, x) => s + x, 0);
  // Σ of the positive and of the negative z_iq of each run (α only weighs the second).
  const sums = values.map((v, i) => {
    let positive = 0;
    let negative = 0;
    kept.forEach((q, k) => {
      const expected = (runTotals[i]! * queryTotals[k]!) / total;
      if (expected === 0) return;
      const z = (v[q]! - expected) / Math.sqrt(expected);
      if (z >= 0) positive += z;
      else negative += z;
    });
    return { positive, negative };
  });
  const alpha = Object.fromEntries(
    alphas.map((a) => [
      String(a),
      names.map((name, i) => {
        const zrisk = sums[i]!.positive + (1 + a) * sums[i]!.negative;
        const georisk = c === 0 ? 0 : Math.sqrt((runTotals[i]! / c) * normalCdf(zrisk / c));
        return { name, zrisk, georisk };
      }),
    ]),
  );
  return { queries_kept: c, queries_dropped: n - c, alpha };
}
