/**
 * Comparing retrievers on a collection without judgments: per query overlap@k and RBO@k (rank-overlap.ts)
 * of each candidate against the reference, averaged over queries with 95% Student-t intervals. One plain
 * object with snake_case keys like the flip report (the `fliplab compare --json` contract).
 *
 * Queries: every query that the reference or any candidate ranks (reference order first). A query that
 * one run of a pair lacks scores 0 for both measures; each run's `missing_queries` counts them.
 * Interval: mean ± t_{0.975, n−1} · s / √n (s the sample standard deviation, divisor n − 1), clipped to
 * the measure's range ([0, 1] for overlap, [0, 1 − p^k] for RBO@k); null bounds when n < 2.
 */
import { validateDepths } from '../flips/analyze.ts';
import type { QueryId, Run } from '../types.ts';
import { agreementProfile, RBO_P } from './rank-overlap.ts';
import { t95 } from '../stats/t-dist.ts';

export interface MeanInterval {
  mean: number | null;
  lo: number | null;
  hi: number | null;
}

export interface AgreementRow {
  name: string;
  overlap: MeanInterval;
  rbo: MeanInterval;
  /** Queries whose top-k lists hold the same k documents (overlap@k = 1). */
  full_overlap: number;
}

export interface AgreementDepth {
  k: number;
  /** RBO@k of two identical rankings: 1 − p^k. */
  rbo_max: number;
  candidates: AgreementRow[];
}

export interface AgreementReport {
  queries: number;
  depth_list: number[];
  rbo_p: number;
  interval: 'student-t 95%';
  runs: { name: string; role: 'reference' | 'candidate'; missing_queries: number }[];
  depths: AgreementDepth[];
  /** Per query and candidate, overlap and RBO at each depth of depth_list (with `perQuery`). */
  per_query?: { qid: string; candidates: { name: string; overlap: number[]; rbo: number[] }[] }[];
}

export interface CompareOptions {
  /** RBO persistence p in (0, 1); default 0.9. */
  readonly p?: number;
  readonly perQuery?: boolean;
}

/** Mean with a 95% t interval, clipped to [0, max]. */
export function meanInterval(values: ArrayLike<number>, max = 1): MeanInterval {
  const n = values.length;
  if (n === 0) return { mean: null, lo: null, hi: null };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const mean = sum / n;
  if (n < 2) return { mean, lo: null, hi: null };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i]! - mean) ** 2;
  const half = (t95(n - 1) * Math.sqrt(ss / (n - 1))) / Math.sqrt(n);
  return { mean, lo: Math.max(0, mean - half), hi: Math.min(max, mean + half) };
}

/** Every query any run ranks: the reference's in its order, then the candidates' new ones. */
function queryUnion(runs: readonly Run[]): QueryId[] {
  const seen = new Set<QueryId>();
  for (const r of runs) for (const q of r.byQuery.keys()) seen.add(q);
  return [...seen];
}

export function compareRuns(
  reference: Run,
  candidates: readonly Run[],
  depths: readonly number[],
  options: CompareOptions = {},
): AgreementReport {
  if (candidates.length === 0) throw new RangeError('expected at least one candidate run');
  const p = options.p ?? RBO_P;
  if (!(p > 0 && p < 1)) throw new RangeError(`expected the RBO persistence p in (0, 1), got ${p}`);
  const ks = validateDepths(depths);
  const queries = queryUnion([reference, ...candidates]);
  const n = queries.length;
  const missing = (run: Run) => queries.reduce((m, q) => m + (run.byQuery.has(q) ? 0 : 1), 0);

  // values[c][d][i]: candidate c, depth index d, query i.
  const overlap = candidates.map(() => ks.map(() => new Float64Array(n)));
  const rbo = candidates.map(() => ks.map(() => new Float64Array(n)));
  queries.forEach((qid, i) => {
    const a = reference.byQuery.get(qid)?.docs;
    candidates.forEach((cand, c) => {
      const b = cand.byQuery.get(qid)?.docs;
      if (!a || !b) return; // missing from one run: 0 for both measures
      const prof = agreementProfile(a, b, ks, p);
      for (let d = 0; d < ks.length; d++) {
        overlap[c]![d]![i] = prof.overlap[d]!;
        rbo[c]![d]![i] = prof.rbo[d]!;
      }
    });
  });

  const report: AgreementReport = {
    queries: n,
    depth_list: ks,
    rbo_p: p,
    interval: 'student-t 95%',
    runs: [
      { name: reference.name, role: 'reference', missing_queries: missing(reference) },
      ...candidates.map((c) => ({ name: c.name, role: 'candidate' as const, missing_queries: missing(c) })),
    ],
    depths: ks.map((k, d) => {
      const rboMax = 1 - p ** k;
      return {
        k,
        rbo_max: rboMax,
        candidates: candidates.map((cand, c) => ({
          name: cand.name,
          overlap: meanInterval(overlap[c]![d]!, 1),
          rbo: meanInterval(rbo[c]![d]!, rboMax),
          full_overlap: overlap[c]![d]!.reduce((m, v) => m + (v === 1 ? 1 : 0), 0),
        })),
      };
    }),
  };
  if (options.perQuery) {
    report.per_query = queries.map((qid, i) => ({
      qid,
      candidates: candidates.map((cand, c) => ({
        name: cand.name,
        overlap: ks.map((_, d) => overlap[c]![d]![i]!),
        rbo: ks.map((_, d) => rbo[c]![d]![i]!),
      })),
    }));
  }
  return report;
}
