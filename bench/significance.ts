/**
 * The lab's paired tests at scale: what the lab worker computes after an analysis (report/significance.ts
 * LAB_SIGNIFICANCE: 10,000 sign flips, 1,000 bootstrap resamples, Holm) for 4 candidates × 5 measures on
 * 7,000 queries, from per-query values (the evaluation itself is the measures table's, cached). Goal: within
 * 1 s of the analysis. Peer, in the same run: the same tests with the CLI's default 10,000 resamples.
 *
 *   npm run bench:significance
 */
import { cpus, loadavg } from 'node:os';
import { significance, type SystemValues } from '../src/core/stats/significance.ts';
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
