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
import type { DocId, QueryId, RankedList, Run } from '../types.ts';
import { buildCohort, NEVER, supportProfile, type SupportLabel } from './cohort.ts';
import { countTransitions } from './transitions.ts';
import { alternateRatio, combSum, reciprocalRankFusion } from './hybrids.ts';
import type { Qrels } from '../types.ts';

export type FusionMethod = 'alternation' | 'rrf' | 'combsum';

export type FusionParams =
  | { readonly method: 'alternation'; readonly ratio: readonly [number, number] }
  | { readonly method: 'rrf'; readonly c: number }
  | { readonly method: 'combsum'; readonly alpha: number };

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
    const docs = reciprocalRankFusion(candidate.docs, reference.docs, depth, p.c);
    const rank = (list: readonly DocId[]): Map<DocId, number> => new Map(list.map((d, i) => [d, i + 1]));
    const rc = rank(candidate.docs);
    const rr = rank(reference.docs);
    const score = (d: DocId): number => (rc.has(d) ? 1 / (p.c + rc.get(d)!) : 0) + (rr.has(d) ? 1 / (p.c + rr.get(d)!) : 0);
    return { docs, scores: Float64Array.from(docs, score) };
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

/** The parameters a frontier sweeps. */
export function sweepParams(): FusionParams[] {
  const out: FusionParams[] = [];
  for (let c = 1; c <= 200; c++) out.push({ method: 'rrf', c });
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
 * The sweep at budget k: every fused run's transitions against the reference at k (what `flips` reports for
 * it at that depth), plus the two ends — the candidate itself and the reference (nothing broken or fixed).
 * Only each query's fused top k is built, and only supports are counted (no paired tests or hybrids of
 * hybrids), so a sweep of 228 mixes over a TREC run takes a fraction of a second.
 */
export function fusionFrontier(
  qrels: Qrels,
  reference: Run,
  candidate: Run,
  k: number,
  options: { label?: SupportLabel; relevanceLevel?: number; params?: readonly FusionParams[] } = {},
): Frontier {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`expected a budget k ≥ 1, got ${k}`);
  const cohort = buildCohort(qrels, options.relevanceLevel ?? 1);
  if (cohort.queries.length === 0) throw new RangeError('no query has a positive judgment: nothing to analyse');
  const label = options.label ?? 'any';
  const ranks = (run: Run): Int32Array => {
    const profile = supportProfile(run, cohort);
    return label === 'any' ? profile.first : profile.all;
  };
  const ref = ranks(reference);
  const point = (name: string, p: FusionParams | null, run: Run, budget = k) => {
    // A list judged at another budget (the union at 2k) against the reference at k: supported or not.
    const own = ranks(run).map((r) => (r <= budget ? 1 : NEVER));
    const c = countTransitions(ref, own, k);
    return {
      label: name,
      params: p,
      budget,
      broken: c.broken,
      fixed: c.fixed,
      net_gain: c.fixed - c.broken,
      paper:
        budget !== k ||
        (p !== null && ((p.method === 'rrf' && p.c === 60) || (p.method === 'alternation' && p.ratio[0] === 1 && p.ratio[1] === 1))),
    };
  };
  // The union of both top k as one list (reference first, so its support rank is ≤ 2k exactly when one of
  // the two top k supports the query): judged at 2k.
  const union: Run = {
    name: 'union',
    byQuery: new Map(
      [...new Set([...reference.byQuery.keys(), ...candidate.byQuery.keys()])].map((q) => {
        const docs = [
          ...new Set([...(reference.byQuery.get(q)?.docs ?? []).slice(0, k), ...(candidate.byQuery.get(q)?.docs ?? []).slice(0, k)]),
        ];
        return [q, { docs, scores: Float64Array.from(docs, (_, i) => docs.length - i) }];
      }),
    ),
  };
  const params = options.params ?? sweepParams();
  const points = [
    point('reference', null, reference),
    point('candidate', null, candidate),
    ...params.map((p) => point(fusionLabel(p), p, fuseRuns(reference, candidate, p, k))),
    point('union', null, union, 2 * k),
  ];
  return { k, queries: cohort.queries.length, points: markFrontier(points, k) };
}
