/**
 * Fusing a reference and a candidate into one run, and the fusion frontier: which mix breaks fewest queries
 * for the net gain it buys.
 *
 * Methods (definitions the CLI's `fuse` and `frontier` and the lab share, hybrids.ts implements them):
 * - alternation a:b — `a` passages from the candidate, then `b` from the reference, duplicates skipped;
 * - RRF with constant c — Σ 1/(c + rank) over the two full lists;
 * - CombSUM with weight α — α·(min-max normalised candidate score) + (1 − α)·(the reference's), normalised
 *   over each run's full list for the query (all 1 when max = min), a missing passage contributing 0.
 * Ranks are each run's own order (as support uses); ties go to the passage alternation would take first.
 *
 * The frontier sweeps each method's parameter (c = 1…200, α = 0…1 by 0.05, ratios 1:3…3:1), measures
 * broken, fixed and net gain against the reference at k (as `flips` does on the fused run), and marks the
 * points no other point beats on both counts (fewer or as many broken, more or as much net gain, one strictly).
 */
import type { QueryId, RankedList, Run } from '../types.ts';
import { buildCohort, NEVER, supportProfile, type SupportLabel } from './cohort.ts';
import { countTransitions } from './transitions.ts';
import { frontierRanks } from './frontier-ranks.ts';
import { riskOfCounts } from '../stats/paired.ts';
import { alternateRatio, combSum, reciprocalRankFusionScored, type FusionParams } from './hybrids.ts';
import type { Qrels } from '../types.ts';

export type { FusionMethod, FusionParams } from './hybrids.ts';

/** "rrf c=60", "alternation 2:1", "combsum α=0.30": a fused run's parameter in words (and its default name). */
export function fusionLabel(p: FusionParams): string {
  if (p.method === 'alternation') return `alternation ${p.ratio[0]}:${p.ratio[1]}`;
  if (p.method === 'rrf') return `rrf c=${p.c}`;
  return `combsum α=${p.alpha.toFixed(2)}`;
}

const EMPTY: RankedList = { docs: [], scores: new Float64Array(0) };

/** One query's fused list, `depth` passages deep, with a score per passage (descending with rank). */
export function fuseLists(candidate: RankedList, reference: RankedList, p: FusionParams, depth: number): RankedList {
  if (p.method === 'combsum') {
    const fused = combSum(candidate, reference, depth, p.alpha);
    return { docs: fused.docs, scores: Float64Array.from(fused.scores) };
  }
  if (p.method === 'rrf') {
    if (!(p.c > 0)) throw new RangeError(`expected an RRF constant > 0, got ${p.c}`);
    return reciprocalRankFusionScored(candidate.docs, reference.docs, depth, p.c);
  }
  const docs = alternateRatio(candidate.docs, reference.docs, depth, p.ratio[0], p.ratio[1]);
  // Alternation has no score of its own: the rank, reversed (so higher is better, as in any run).
  return { docs, scores: Float64Array.from(docs, (_, i) => docs.length - i) };
}

/** Both runs fused query by query (every query either run answers), `depth` passages deep. */
export function fuseRuns(reference: Run, candidate: Run, p: FusionParams, depth: number, name = fusionLabel(p)): Run {
  const byQuery = new Map<QueryId, RankedList>();
  const queries = [...new Set([...candidate.byQuery.keys(), ...reference.byQuery.keys()])];
  for (const q of queries) {
    byQuery.set(q, fuseLists(candidate.byQuery.get(q) ?? EMPTY, reference.byQuery.get(q) ?? EMPTY, p, depth));
  }
  return { name, byQuery };
}

/** RRF constants the frontier sweeps: dense where the ranking changes fastest, up to 200. */
export const SWEEP_RRF_C: readonly number[] = [1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 60, 70, 80, 100, 120, 150, 200];

/** The parameters a frontier sweeps: RRF c in SWEEP_RRF_C, CombSUM α = 0…1 by 0.05, alternation 1:3…3:1. */
export function sweepParams(): FusionParams[] {
  const out: FusionParams[] = SWEEP_RRF_C.map((c) => ({ method: 'rrf', c }));
  for (let i = 0; i <= 20; i++) out.push({ method: 'combsum', alpha: i / 20 });
  const ratios: [number, number][] = [
    [1, 3],
    [1, 2],
    [2, 3],
    [1, 1],
    [3, 2],
    [2, 1],
    [3, 1],
  ];
  for (const ratio of ratios) out.push({ method: 'alternation', ratio });
  return out;
}

export interface FrontierPoint {
  /** "reference", "candidate", "union", or the fusion's label. */
  readonly label: string;
  readonly params: FusionParams | null;
  /** Passages the point may return per query: k, or 2k for the union of both top k (the paper's third hybrid). */
  readonly budget: number;
  readonly broken: number;
  readonly fixed: number;
  readonly net_gain: number;
  /** No other point has fewer or as many broken queries and more or as much net gain, one of them strictly. */
  readonly frontier: boolean;
  /** One of the paper's three hybrids (alternation 1:1, RRF c = 60, the union at 2k). */
  readonly paper: boolean;
  /** Net gain per query: (fixed − broken) / queries. */
  readonly mean_gain: number;
  /**
   * TRisk with α = 1 of the per-query support changes (+1 fixed, −1 broken, 0 else): a broken query weighs
   * twice; below −2 the mix is a risky switch, above +2 a safe gain (null when nothing changes).
   */
  readonly trisk: number | null;
}

export interface Frontier {
  readonly k: number;
  readonly queries: number;
  readonly points: readonly FrontierPoint[];
}

/**
 * Mark the Pareto frontier among points of the same budget: fewer broken and more net gain are better. A
 * point of another budget (the union's 2k) is never on it and never pushes a point off it.
 */
export function markFrontier<T extends { broken: number; net_gain: number; budget: number }>(
  points: readonly T[],
  budget: number,
): (T & { frontier: boolean })[] {
  const same = points.filter((o) => o.budget === budget);
  return points.map((p) => ({
    ...p,
    frontier:
      p.budget === budget &&
      !same.some((o) => o.broken <= p.broken && o.net_gain >= p.net_gain && (o.broken < p.broken || o.net_gain > p.net_gain)),
  }));
}

/**
 * The depth-independent part of a frontier: each mix fused once, `maxDepth` deep, and reduced to the rank at
 * which it supports each cohort query (the reference's and the candidate's too). Any budget k ≤ maxDepth is
 * then a count over these ranks (`frontierAt`): what lets the lab redraw on a change of k within a frame.
 */
export interface PreparedFrontier {
  readonly queries: number;
  readonly maxDepth: number;
  readonly reference: Int32Array;
  readonly candidate: Int32Array;
  readonly mixes: readonly { readonly label: string; readonly params: FusionParams; readonly ranks: Int32Array }[];
}

export function prepareFrontier(
  qrels: Qrels,
  reference: Run,
  candidate: Run,
  options: { maxDepth: number; label?: SupportLabel; relevanceLevel?: number; params?: readonly FusionParams[] },
): PreparedFrontier {
  const { maxDepth } = options;
  if (!Number.isInteger(maxDepth) || maxDepth < 1) throw new RangeError(`expected a budget k ≥ 1, got ${maxDepth}`);
  const cohort = buildCohort(qrels, options.relevanceLevel ?? 1);
  if (cohort.queries.length === 0) throw new RangeError('no query has a positive judgment: nothing to analyse');
  const strict = options.label === 'strict';
  const ranks = (run: Run): Int32Array => {
    const profile = supportProfile(run, cohort);
    return strict ? profile.all : profile.first;
  };
  const params = options.params ?? sweepParams();
  // Each mix's support ranks from the two lists' ranks (frontier-ranks.ts): equal to fusing every list and
  // profiling it, at a fraction of the cost.
  const mixRanks = frontierRanks(cohort, reference, candidate, params, maxDepth, strict);
  return {
    queries: cohort.queries.length,
    maxDepth,
    reference: ranks(reference),
    candidate: ranks(candidate),
    mixes: params.map((p, m) => ({ label: fusionLabel(p), params: p, ranks: mixRanks[m]! })),
  };
}

/** The α of the frontier's risk view: a broken query weighs twice a fixed one. */
export const FRONTIER_RISK_ALPHA = 1;

const isPaper = (p: FusionParams | null): boolean =>
  p !== null && ((p.method === 'rrf' && p.c === 60) || (p.method === 'alternation' && p.ratio[0] === 1 && p.ratio[1] === 1));

/**
 * The frontier at budget k ≤ prepared.maxDepth: each mix's broken, fixed and net gain against the reference at
 * k (what `flips` reports for the fused run at that depth), the two ends, and the union of both top k (the
 * paper's third hybrid, budget 2k: it supports a query when either top k does).
 */
export function frontierAt(p: PreparedFrontier, k: number): Frontier {
  if (!Number.isInteger(k) || k < 1 || k > p.maxDepth) throw new RangeError(`expected a budget k in [1, ${p.maxDepth}], got ${k}`);
  const point = (label: string, params: FusionParams | null, ranks: Int32Array, budget = k) => {
    const c = countTransitions(p.reference, ranks, k);
    return {
      label,
      params,
      budget,
      broken: c.broken,
      fixed: c.fixed,
      net_gain: c.fixed - c.broken,
      paper: budget !== k || isPaper(params),
      mean_gain: p.queries === 0 ? 0 : (c.fixed - c.broken) / p.queries,
      trisk: riskOfCounts(c.fixed, c.broken, p.queries, FRONTIER_RISK_ALPHA).trisk,
    };
  };
  const union = p.reference.map((r, i) => (r <= k || p.candidate[i]! <= k ? 1 : NEVER));
  const points = [
    point('reference', null, p.reference),
    point('candidate', null, p.candidate),
    ...p.mixes.map((m) => point(m.label, m.params, m.ranks)),
    point('union', null, union, 2 * k),
  ];
  return { k, queries: p.queries, points: markFrontier(points, k) };
}

/** The frontier at budget k in one call (the CLI's `frontier`). */
export function fusionFrontier(
  qrels: Qrels,
  reference: Run,
  candidate: Run,
  k: number,
  options: { label?: SupportLabel; relevanceLevel?: number; params?: readonly FusionParams[] } = {},
): Frontier {
  return frontierAt(prepareFrontier(qrels, reference, candidate, { ...options, maxDepth: k }), k);
}
