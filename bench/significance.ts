/**
 * The lab's paired tests at scale: what the lab worker computes after an analysis (report/significance.ts
 * LAB_SIGNIFICANCE: 10,000 sign flips, 1,000 bootstrap resamples, Wilcoxon, sign test and power, Holm) for
 * 4 candidates × 5 measures on 7,000 queries, from per-query values (the evaluation itself is the measures
 * table's, cached). Goal: within 1 s of the analysis. Peers, in the same run: the same tests with the CLI's
 * default 10,000 resamples, and the rank tests and power alone. Then `significance --georisk` as the CLI runs it
 * on a 40-run × 43-query track (goal ≤ 1 s), beside GeoRisk alone.
 *
 *   npm run bench:significance
 */
import { cpus, loadavg } from 'node:os';
import { geoRisk } from '../src/core/stats/georisk.ts';
import { meanSd } from '../src/core/stats/paired.ts';
import { minimumDetectableEffect, pairedPower, queriesNeeded } from '../src/core/stats/power.ts';
import { signTest, wilcoxonSignedRank } from '../src/core/stats/rank-tests.ts';
import { DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, significance, type SystemValues } from '../src/core/stats/significance.ts';
import { LAB_SIGNIFICANCE } from '../src/report/significance.ts';
import { median, mulberry32 } from './lib/rng.ts';

const QUERIES = 7000;
const CANDIDATES = 4;
const MEASURES = ['recip_rank_cut_10', 'ndcg_cut_10', 'ncg_cut_100', 'recall_100', 'map'];

const random = mulberry32(7);
const ids = Array.from({ length: QUERIES }, (_, i) => `q${i}`);
/** Per-query values in [0, 1]: a reference, and candidates that move each query by a little, some by a lot. */
const base = MEASURES.map(() => ids.map(() => random()));
const system = (name: string, shift: number): SystemValues => ({
  name,
  byMeasure: new Map(
    MEASURES.map((m, j) => [
      m,
      new Map(ids.map((q, i) => [q, Math.min(1, Math.max(0, base[j]![i]! + (random() < 0.2 ? random() - 0.5 + shift : 0)))])),
    ]),
  ),
});
const reference = system('reference', 0);
const candidates = Array.from({ length: CANDIDATES }, (_, c) => system(`candidate-${c}`, (c - 1.5) / 20));

const time = (options: typeof LAB_SIGNIFICANCE): number => {
  const t = performance.now();
  significance(reference, candidates, MEASURES, options);
  return performance.now() - t;
};
time(LAB_SIGNIFICANCE); // warm-up
const lab = median([time(LAB_SIGNIFICANCE), time(LAB_SIGNIFICANCE), time(LAB_SIGNIFICANCE)]);
const cli = time({ ...LAB_SIGNIFICANCE, bootstrap: 10_000 });
console.log(
  `bench:significance — node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; ` +
    `${CANDIDATES} candidates × ${MEASURES.length} measures on ${QUERIES.toLocaleString('en-US')} queries`,
);
console.log(
  `  lab's tests (10,000 sign flips, 1,000 resamples; median of 3) ${lab.toFixed(0)} ms   [goal ≤ 1 s: ${lab <= 1000 ? 'PASS' : 'NOT MET'}]`,
);
console.log(`  peer: the CLI's defaults (10,000 resamples) ${cli.toFixed(0)} ms → ${(cli / lab).toFixed(1)}× the lab's`);

// The rank tests and the power alone, on the same 20 rows.
const rankAndPower = (): number => {
  const t = performance.now();
  for (const c of candidates) {
    for (const m of MEASURES) {
      const r = reference.byMeasure.get(m)!;
      const v = c.byMeasure.get(m)!;
      const d = ids.map((q) => v.get(q)! - r.get(q)!);
      wilcoxonSignedRank(d);
      signTest(d.filter((x) => x > 0).length, d.filter((x) => x < 0).length);
      const { mean, sd } = meanSd(d);
      pairedPower(mean, { n: d.length, sd });
      minimumDetectableEffect({ n: d.length, sd });
      for (const delta of [0.02, 0.05]) queriesNeeded(delta, sd);
    }
  }
  return performance.now() - t;
};
rankAndPower();
const added = median([rankAndPower(), rankAndPower(), rankAndPower()]);
console.log(
  `  of which Wilcoxon, the sign test and power (median of 3) ${added.toFixed(0)} ms (${((100 * added) / lab).toFixed(0)}% of the lab's)`,
);

// A track: 40 runs × 43 queries (TREC DL 2019's size), every run against the first, with GeoRisk, as the CLI runs it.
const TRACK_QUERIES = 43;
const trackIds = ids.slice(0, TRACK_QUERIES);
const track: SystemValues[] = Array.from({ length: 40 }, (_, s) => ({
  name: `run-${s}`,
  byMeasure: new Map([['ndcg_cut_10', new Map(trackIds.map((q) => [q, Math.min(1, Math.max(0, random() * 0.6 + s / 100))]))]]),
}));
const trackTime = (): number => {
  const t = performance.now();
  significance(track[0]!, track.slice(1), ['ndcg_cut_10'], {
    ...LAB_SIGNIFICANCE,
    permutations: DEFAULT_PERMUTATIONS,
    bootstrap: DEFAULT_BOOTSTRAP,
    georisk: true,
  });
  return performance.now() - t;
};
trackTime();
const whole = median([trackTime(), trackTime(), trackTime()]);
const geoOnly = (): number => {
  const t = performance.now();
  geoRisk(
    track.map((s) => s.name),
    track.map((s) => Float64Array.from(trackIds, (q) => s.byMeasure.get('ndcg_cut_10')!.get(q)!)),
    [1, 5],
  );
  return performance.now() - t;
};
geoOnly();
const geo = median([geoOnly(), geoOnly(), geoOnly()]);
console.log(
  `  significance --georisk, 40 runs × 43 queries (CLI defaults; median of 3) ${whole.toFixed(0)} ms   ` +
    `[goal ≤ 1 s: ${whole <= 1000 ? 'PASS' : 'NOT MET'}]; GeoRisk alone ${geo.toFixed(2)} ms`,
);
