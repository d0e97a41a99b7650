/**
 * The whole RAGFlip analysis of one reference against any number of candidates, as one plain object whose
 * keys are the `fliplab flips --json` contract. Every surface (CLI, worker, UI) calls this, so they print
 * the same numbers.
 */
import type { DocId, Qrels, QueryId, Run } from '../types.ts';
import { holm, type Estimate } from '../stats/index.ts';
import { buildCohort, NEVER, ranksFor, supportProfile, supportRanks, type SupportLabel, type SupportProfile } from './cohort.ts';
import { alternate, reciprocalRankFusion, unionSize } from './hybrids.ts';
import { pairedFlips } from './paired.ts';
import { rankBins, strata } from './strata.ts';
import { countTransitions, summarize, transitionStates, type TransitionState } from './transitions.ts';

export const DEFAULT_DEPTHS: readonly number[] = [1, 5, 10, 20, 50];

export interface FlipOptions {
  /** Depths k, each ≥ 1 (default 1, 5, 10, 20, 50). */
  readonly depths?: readonly number[];
  readonly label?: SupportLabel;
  /** Minimum grade that counts as relevant (trec_eval's -l; default 1). */
  readonly relevanceLevel?: number;
  /** Include per-query states (for explorers and CSV export). */
  readonly perQuery?: boolean;
}

export interface CandidateRow {
  name: string;
  supported: number;
  preserved: number;
  broken: number;
  fixed: number;
  unchanged: number;
  fix_rate: Estimate;
  negative_flip_rate: Estimate;
  compatibility: Estimate;
  net_gain: Estimate;
}

export interface DepthBlock {
  k: number;
  reference: { name: string; supported: number };
  candidates: CandidateRow[];
}

export interface PairedRow {
  k: number;
  a: string;
  b: string;
  only_a: number;
  only_b: number;
  p: number;
  p_holm: number;
}

export type HybridMethod = 'alternation' | 'rrf' | 'union';

export interface HybridRow {
  k: number;
  candidate: string;
  method: HybridMethod;
  /** Passages the method may return: k for alternation and RRF, 2k for the union. */
  budget: number;
  /** Mean number of passages actually returned per query. */
  mean_size: number;
  supported: number;
  preserved: number;
  broken: number;
  fixed: number;
  net_gain: number;
  negative_flip_rate: Estimate;
}

export interface StratumRow {
  k: number;
  candidate: string;
  ranks: string;
  from: number;
  to: number;
  reference_supported: number;
  broken: number;
  negative_flip_rate: Estimate;
}

export interface PerQueryRow {
  qid: string;
  /** Rank at which the reference supports the query under the label, null if never (within its list). */
  reference_rank: number | null;
  candidates: { name: string; rank: number | null; states: TransitionState[] }[];
}

export interface FlipReport {
  queries: number;
  label: SupportLabel;
  relevance_level: number;
  depth_list: number[];
  runs: { name: string; role: 'reference' | 'candidate'; missing_queries: number }[];
  depths: DepthBlock[];
  paired: PairedRow[];
  hybrids: HybridRow[];
  strata: StratumRow[];
  per_query?: PerQueryRow[];
}

export function validateDepths(depths: readonly number[]): number[] {
  if (depths.length === 0) throw new RangeError('expected at least one depth');
  for (const k of depths) {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`expected depths to be positive integers, got ${k}`);
  }
  return [...new Set(depths)].sort((a, b) => a - b);
}

/** Per-query support ranks of the three hybrids of one candidate with the reference, under a label. */
interface HybridProfiles {
  alternation: Int32Array;
  rrf: Int32Array;
  union: Int32Array;
  /** Length of each query's alternation / RRF list (≤ the largest depth). */
  alternationLength: Int32Array;
  rrfLength: Int32Array;
  /** unionSizes[d][i]: size of the union of the two top-k lists at depths[d] for query i. */
  unionSizes: Float64Array[];
}

function hybridProfiles(
  cohortQueries: readonly QueryId[],
  positives: readonly ReadonlySet<DocId>[],
  reference: Run,
  candidate: Run,
  label: SupportLabel,
  depths: readonly number[],
): HybridProfiles {
  const n = cohortQueries.length;
  const maxK = depths[depths.length - 1]!;
  const alternation = new Int32Array(n).fill(NEVER);
  const rrf = new Int32Array(n).fill(NEVER);
  const union = new Int32Array(n).fill(NEVER);
  const alternationLength = new Int32Array(n);
  const rrfLength = new Int32Array(n);
  const unionSizes = depths.map(() => new Float64Array(n));
  const pick = (r: { first: number; all: number }) => (label === 'any' ? r.first : r.all);
  for (let i = 0; i < n; i++) {
    const qid = cohortQueries[i]!;
    const ref = reference.byQuery.get(qid)?.docs ?? [];
    const cand = candidate.byQuery.get(qid)?.docs ?? [];
    const pos = positives[i]!;
    const alt = alternate(cand, ref, maxK);
    const fused = reciprocalRankFusion(cand, ref, maxK);
    alternation[i] = pick(supportRanks(alt, pos));
    rrf[i] = pick(supportRanks(fused, pos));
    alternationLength[i] = alt.length;
    rrfLength[i] = fused.length;
    // Union of the two top-k lists: a positive is in it at depth k iff min(rank_ref, rank_cand) ≤ k.
    const best = new Map<DocId, number>();
    for (let r = 0; r < Math.min(ref.length, maxK); r++) if (pos.has(ref[r]!)) best.set(ref[r]!, r + 1);
    for (let r = 0; r < Math.min(cand.length, maxK); r++) {
      const d = cand[r]!;
      if (pos.has(d) && !(best.get(d)! <= r + 1)) best.set(d, r + 1);
    }
    if (label === 'any') {
      union[i] = best.size === 0 ? NEVER : Math.min(...best.values());
    } else {
      union[i] = best.size < pos.size ? NEVER : Math.max(...best.values());
    }
    depths.forEach((k, d) => {
      unionSizes[d]![i] = unionSize(cand, ref, k);
    });
  }
  return { alternation, rrf, union, alternationLength, rrfLength, unionSizes };
}

const rankOrNull = (r: number): number | null => (r === NEVER ? null : r);

export function analyzeFlips(qrels: Qrels, reference: Run, candidates: readonly Run[], options: FlipOptions = {}): FlipReport {
  if (candidates.length === 0) throw new RangeError('expected at least one candidate run');
  const depths = validateDepths(options.depths ?? DEFAULT_DEPTHS);
  const label = options.label ?? 'any';
  const relevanceLevel = options.relevanceLevel ?? 1;
  const cohort = buildCohort(qrels, relevanceLevel);
  const n = cohort.queries.length;
  if (n === 0) {
    throw new RangeError(`no query has a positive judgment (grade ≥ ${relevanceLevel}): nothing to analyse — check the qrels file and -l`);
  }

  const refProfile = supportProfile(reference, cohort);
  const candProfiles: SupportProfile[] = candidates.map((c) => supportProfile(c, cohort));
  const refRanks = ranksFor(refProfile, label);
  const candRanks = candProfiles.map((p) => ranksFor(p, label));

  const depthBlocks: DepthBlock[] = depths.map((k) => {
    let refSupported = 0;
    for (let i = 0; i < n; i++) if (refRanks[i]! <= k) refSupported++;
    return {
      k,
      reference: { name: reference.name, supported: refSupported },
      candidates: candidates.map((c, ci) => {
        const s = summarize(countTransitions(refRanks, candRanks[ci]!, k));
        return {
          name: c.name,
          supported: s.candidateSupported,
          preserved: s.preserved,
          broken: s.broken,
          fixed: s.fixed,
          unchanged: s.unchanged,
          fix_rate: s.fixRate,
          negative_flip_rate: s.negativeFlipRate,
          compatibility: s.compatibility,
          net_gain: s.netGain,
        };
      }),
    };
  });

  const paired: PairedRow[] = [];
  for (let a = 0; a < candidates.length; a++) {
    for (let b = a + 1; b < candidates.length; b++) {
      const rows = depths.map((k) => ({ k, ...pairedFlips(refRanks, candRanks[a]!, candRanks[b]!, k) }));
      const adjusted = holm(rows.map((r) => r.p));
      rows.forEach((r, i) =>
        paired.push({ k: r.k, a: candidates[a]!.name, b: candidates[b]!.name, only_a: r.onlyA, only_b: r.onlyB, p: r.p, p_holm: adjusted[i]! }),
      );
    }
  }

  const hybrids: HybridRow[] = [];
  candidates.forEach((c, ci) => {
    const h = hybridProfiles(cohort.queries, cohort.positives, reference, c, label, depths);
    depths.forEach((k, d) => {
      for (const method of ['alternation', 'rrf', 'union'] as const) {
        const counts = countTransitions(refRanks, h[method], k);
        let total = 0;
        if (method === 'union') for (const size of h.unionSizes[d]!) total += size;
        else for (const len of method === 'rrf' ? h.rrfLength : h.alternationLength) total += Math.min(k, len);
        const meanSize = n > 0 ? total / n : 0;
        const s = summarize(counts);
        hybrids.push({
          k,
          candidate: c.name,
          method,
          budget: method === 'union' ? 2 * k : k,
          mean_size: meanSize,
          supported: counts.candidateSupported,
          preserved: counts.preserved,
          broken: counts.broken,
          fixed: counts.fixed,
          net_gain: counts.fixed - counts.broken,
          negative_flip_rate: s.negativeFlipRate,
        });
      }
    });
  });

  const bins = rankBins(depths);
  const strataRows: StratumRow[] = [];
  candidates.forEach((c, ci) => {
    for (const k of depths) {
      for (const s of strata(refRanks, candRanks[ci]!, k, bins)) {
        strataRows.push({
          k,
          candidate: c.name,
          ranks: s.bin.label,
          from: s.bin.from,
          to: Math.min(s.bin.to, k),
          reference_supported: s.referenceSupported,
          broken: s.broken,
          negative_flip_rate: s.negativeFlipRate,
        });
      }
    }
  });

  const report: FlipReport = {
    queries: n,
    label,
    relevance_level: relevanceLevel,
    depth_list: depths,
    runs: [
      { name: reference.name, role: 'reference', missing_queries: refProfile.missing },
      ...candProfiles.map((p) => ({ name: p.name, role: 'candidate' as const, missing_queries: p.missing })),
    ],
    depths: depthBlocks,
    paired,
    hybrids,
    strata: strataRows,
  };
  if (options.perQuery) {
    const states = candRanks.map((cr) => depths.map((k) => transitionStates(refRanks, cr, k)));
    report.per_query = cohort.queries.map((qid, i) => ({
      qid,
      reference_rank: rankOrNull(refRanks[i]!),
      candidates: candidates.map((c, ci) => ({
        name: c.name,
        rank: rankOrNull(candRanks[ci]![i]!),
        states: depths.map((_, d) => states[ci]![d]![i]!),
      })),
    }));
  }
  return report;
}
