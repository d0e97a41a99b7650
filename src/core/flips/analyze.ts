/**
 * The whole RAGFlip analysis of one reference against any number of candidates, as one plain object whose
 * keys are the `fliplab flips --json` contract. Every surface (CLI, worker, UI) calls this, so they print
 * the same numbers.
 */
import type { DocId, Qrels, QueryId, RankedList, Run } from '../types.ts';
import { judgedOnlyRun } from '../judged-only.ts';
import { holm, type Estimate } from '../stats/index.ts';
import { buildCohort, NEVER, supportProfile, supportRanks, type SupportLabel } from './cohort.ts';
import { alternate, reciprocalRankFusion } from './hybrids.ts';
import { pairedFlips } from './paired.ts';
import { rankBins, strata } from './strata.ts';
import { countTransitions, summarize, type TransitionState } from './transitions.ts';

export const DEFAULT_DEPTHS: readonly number[] = [1, 5, 10, 20, 50];

export interface FlipOptions {
  /** Depths k, each ≥ 1 (default 1, 5, 10, 20, 50). */
  readonly depths?: readonly number[];
  readonly label?: SupportLabel;
  /** Minimum grade that counts as relevant (trec_eval's -l; default 1). */
  readonly relevanceLevel?: number;
  /** Include per-query states (for explorers and CSV export). */
  readonly perQuery?: boolean;
  /** Analyse judged-only rankings: unjudged passages removed before any cut (trec_eval's -J; core/judged-only.ts). */
  readonly judgedOnly?: boolean;
  /**
   * One cohort across depths: only the queries the reference supports at this depth (under `label`) are
   * analysed, at every depth, so a depth curve follows one group of queries (default: every judged query).
   */
  readonly cohortAt?: number;
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
  /** Mean share of the candidate's top k that is unjudged (trec_eval 10.0's unj: a position past the list's end is not). */
  unjudged_at_k: number;
  /** Broken queries whose candidate top k holds at least one unjudged passage (a hole in the judgments could explain them). */
  broken_with_unjudged: number;
  /** Fixed queries whose reference top k holds at least one unjudged passage. */
  fixed_with_unjudged: number;
  /**
   * The lower end of the negative-flip rate's range under holes in the judgments: only broken queries whose
   * candidate top k is fully judged count (null when the reference supports no query).
   */
  negative_flip_rate_low: number | null;
  /** Negative flips over all cohort queries: broken / n (Yan et al. 2021's denominator). */
  nfr_all: Estimate;
  /** Backward trust compatibility (Srivastava et al. 2020): equal to `compatibility`. */
  btc: Estimate;
  /** Backward error compatibility: unchanged / (unchanged + broken), the candidate's failures the reference shares. */
  bec: Estimate;
  /** With a model layer (core/judging): broken queries that are not broken on people's judgments alone. */
  broken_on_model_labels?: number;
  /** With a model layer: fixed queries that are not fixed on people's judgments alone. */
  fixed_on_model_labels?: number;
}

export interface DepthBlock {
  k: number;
  reference: { name: string; supported: number; unjudged_at_k: number };
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
  /** Unjudged passages in the reference's top k, for each k of depth_list. */
  reference_unjudged: number[];
  /** `unjudged`: the same for the candidate's top k. */
  candidates: { name: string; rank: number | null; states: TransitionState[]; unjudged: number[] }[];
}

export interface FlipReport {
  queries: number;
  label: SupportLabel;
  relevance_level: number;
  /** Whether the rankings were judged-only (unjudged passages removed before any cut). */
  judged_only: boolean;
  /** The depth whose reference-supported queries are the cohort at every depth; null: every judged query. */
  cohort_at: number | null;
  depth_list: number[];
  runs: { name: string; role: 'reference' | 'candidate'; missing_queries: number }[];
  depths: DepthBlock[];
  paired: PairedRow[];
  hybrids: HybridRow[];
  strata: StratumRow[];
  per_query?: PerQueryRow[];
}

/** Anything that lists its runs with their roles: a flip report, an agreement report. */
export interface RunRoles {
  readonly runs: readonly { readonly name: string; readonly role: 'reference' | 'candidate' }[];
}

/** The reference run's name; every report has one. */
export function referenceName(report: RunRoles): string {
  const ref = report.runs.find((r) => r.role === 'reference');
  if (!ref) throw new RangeError('the report names no reference run');
  return ref.name;
}

/** The candidates' names, in report order. */
export function candidateNames(report: RunRoles): string[] {
  return report.runs.filter((r) => r.role === 'candidate').map((r) => r.name);
}

export function validateDepths(depths: readonly number[]): number[] {
  if (depths.length === 0) throw new RangeError('expected at least one depth');
  for (const k of depths) {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`expected depths to be positive integers, got ${k}`);
  }
  return [...new Set(depths)].sort((a, b) => a - b);
}

/** Support ranks of one ranking per cohort query, under both labels. */
export interface LabelRanks {
  readonly any: Int32Array;
  readonly strict: Int32Array;
}

export interface PreparedCandidate {
  readonly name: string;
  readonly missing: number;
  readonly ranks: LabelRanks;
  readonly alternation: LabelRanks;
  readonly rrf: LabelRanks;
  readonly union: LabelRanks;
  /** Lengths of each query's alternation / RRF list (capped at maxDepth). */
  readonly alternationLength: Int32Array;
  readonly rrfLength: Int32Array;
  /** unionSizeTotal[k]: Σ over queries of |top-k(reference) ∪ top-k(candidate)|, for k = 0..maxDepth. */
  readonly unionSizeTotal: Float64Array;
  /** Unjudged passages in the top d of query i: unjudged[i * maxDepth + d - 1] (see unjudgedCounts). */
  readonly unjudged: Uint16Array;
}

/**
 * Everything depth- and label-independent, computed once: per query and run, the rank at which each
 * ranking (the runs themselves and the three hybrids) supports the query. Any depth ≤ maxDepth and either
 * label is then a cheap pass over typed arrays (`reportFromPrepared`) — what lets the UI re-slice live.
 */
export interface PreparedFlips {
  readonly queries: readonly QueryId[];
  readonly relevanceLevel: number;
  readonly judgedOnly: boolean;
  /** The depth the cohort was fixed at (`FlipOptions.cohortAt`), or null. */
  readonly cohortAt: number | null;
  readonly maxDepth: number;
  readonly reference: { readonly name: string; readonly missing: number; readonly ranks: LabelRanks; readonly unjudged: Uint16Array };
  readonly candidates: readonly PreparedCandidate[];
}

const labelRanks = (n: number): { any: Int32Array; strict: Int32Array } => ({
  any: new Int32Array(n).fill(NEVER),
  strict: new Int32Array(n).fill(NEVER),
});

function setRanks(
  target: { any: Int32Array; strict: Int32Array },
  i: number,
  docs: readonly DocId[],
  pos: ReadonlySet<DocId>,
  tail?: RankedList['tail'],
): void {
  const r = supportRanks(docs, pos, tail);
  target.any[i] = r.first;
  target.strict[i] = r.all;
}

/**
 * For each cohort query, how many of the run's top d passages are unjudged, for d = 1..maxDepth: not in the
 * query's judgments, or judged with a negative grade (trec_eval's "in the pool but unjudged"). A position past
 * the run's list is not unjudged (trec_eval 10.0's unj). Counts fit 16 bits: maxDepth is at most 65,535.
 */
export function unjudgedCounts(qrels: Qrels, queries: readonly QueryId[], run: Run, maxDepth: number): Uint16Array {
  const out = new Uint16Array(queries.length * maxDepth);
  queries.forEach((qid, i) => {
    const docs = run.byQuery.get(qid)?.docs ?? [];
    const judged = qrels.byQuery.get(qid);
    let count = 0;
    for (let d = 1; d <= maxDepth; d++) {
      if (d <= docs.length) {
        const grade = judged?.get(docs[d - 1]!);
        if (grade === undefined || grade < 0) count++;
      }
      out[i * maxDepth + d - 1] = count;
    }
  });
  return out;
}

function prepareCandidate(
  queries: readonly QueryId[],
  positives: readonly ReadonlySet<DocId>[],
  reference: Run,
  candidate: Run,
  maxDepth: number,
  unjudged: Uint16Array,
): PreparedCandidate {
  const n = queries.length;
  const ranks = labelRanks(n);
  const alternation = labelRanks(n);
  const rrf = labelRanks(n);
  const union = labelRanks(n);
  const alternationLength = new Int32Array(n);
  const rrfLength = new Int32Array(n);
  const unionSizeTotal = new Float64Array(maxDepth + 1);
  let missing = 0;
  const refRank = new Map<DocId, number>();
  const seen = new Set<DocId>();
  for (let i = 0; i < n; i++) {
    const qid = queries[i]!;
    const ref = reference.byQuery.get(qid)?.docs ?? [];
    const candList = candidate.byQuery.get(qid);
    if (!candList) missing++;
    const cand = candList?.docs ?? [];
    const pos = positives[i]!;
    setRanks(ranks, i, cand, pos, candList?.tail);
    const alt = alternate(cand, ref, maxDepth);
    const fused = reciprocalRankFusion(cand, ref, maxDepth);
    setRanks(alternation, i, alt, pos);
    setRanks(rrf, i, fused, pos);
    alternationLength[i] = alt.length;
    rrfLength[i] = fused.length;

    refRank.clear();
    for (let r = 0; r < Math.min(ref.length, maxDepth); r++) refRank.set(ref[r]!, r + 1);
    seen.clear();
    for (let k = 1; k <= maxDepth; k++) {
      if (k <= ref.length) seen.add(ref[k - 1]!);
      if (k <= cand.length) seen.add(cand[k - 1]!);
      unionSizeTotal[k]! += seen.size;
    }
    // Union of the two top-k lists: a positive is in it at depth k iff min(rank_ref, rank_cand) ≤ k.
    const best = new Map<DocId, number>();
    for (const [d, r] of refRank) if (pos.has(d)) best.set(d, r);
    for (let j = 0; j < Math.min(cand.length, maxDepth); j++) {
      const d = cand[j]!;
      if (pos.has(d) && !(best.get(d)! <= j + 1)) best.set(d, j + 1);
    }
    union.any[i] = best.size === 0 ? NEVER : Math.min(...best.values());
    union.strict[i] = best.size < pos.size ? NEVER : Math.max(...best.values());
  }
  return { name: candidate.name, missing, ranks, alternation, rrf, union, alternationLength, rrfLength, unionSizeTotal, unjudged };
}

/** The depth-independent part of the analysis; `maxDepth` bounds the depths a report may ask for. */
export function prepareFlips(
  qrels: Qrels,
  reference: Run,
  candidates: readonly Run[],
  options: { relevanceLevel?: number; maxDepth: number; judgedOnly?: boolean; cohortAt?: number; label?: SupportLabel },
): PreparedFlips {
  if (candidates.length === 0) throw new RangeError('expected at least one candidate run');
  if (options.maxDepth > 0xffff) throw new RangeError(`depths up to 65,535 can be analysed, got ${options.maxDepth}`);
  const relevanceLevel = options.relevanceLevel ?? 1;
  let cohort = buildCohort(qrels, relevanceLevel);
  if (cohort.queries.length === 0) {
    throw new RangeError(`no query has a positive judgment (grade ≥ ${relevanceLevel}): nothing to analyse — check the qrels file and -l`);
  }
  const judgedOnly = options.judgedOnly === true;
  if (judgedOnly) {
    reference = judgedOnlyRun(reference, qrels);
    candidates = candidates.map((c) => judgedOnlyRun(c, qrels));
  }
  const cohortAt = options.cohortAt ?? null;
  if (cohortAt !== null) {
    if (!Number.isInteger(cohortAt) || cohortAt < 1)
      throw new RangeError(`expected the cohort depth to be a positive integer, got ${cohortAt}`);
    const profile = supportProfile(reference, cohort);
    const ranks = options.label === 'strict' ? profile.all : profile.first;
    const keep = cohort.queries.map((_, i) => ranks[i]! <= cohortAt);
    cohort = { ...cohort, queries: cohort.queries.filter((_, i) => keep[i]), positives: cohort.positives.filter((_, i) => keep[i]) };
    if (cohort.queries.length === 0) throw new RangeError(`the reference supports no query at k = ${cohortAt}: the cohort would be empty`);
  }
  const refProfile = supportProfile(reference, cohort);
  return {
    queries: cohort.queries,
    relevanceLevel,
    judgedOnly,
    cohortAt,
    maxDepth: options.maxDepth,
    reference: {
      name: reference.name,
      missing: refProfile.missing,
      ranks: { any: refProfile.first, strict: refProfile.all },
      unjudged: unjudgedCounts(qrels, cohort.queries, reference, options.maxDepth),
    },
    candidates: candidates.map((c) =>
      prepareCandidate(
        cohort.queries,
        cohort.positives,
        reference,
        c,
        options.maxDepth,
        unjudgedCounts(qrels, cohort.queries, c, options.maxDepth),
      ),
    ),
  };
}

const rankOrNull = (r: number): number | null => (r === NEVER ? null : r);

function meanCapped(lengths: Int32Array, k: number): number {
  let total = 0;
  for (let i = 0; i < lengths.length; i++) total += Math.min(k, lengths[i]!);
  return total / lengths.length;
}

export function analyzeFlips(qrels: Qrels, reference: Run, candidates: readonly Run[], options: FlipOptions = {}): FlipReport {
  const depths = validateDepths(options.depths ?? DEFAULT_DEPTHS);
  const prepared = prepareFlips(qrels, reference, candidates, {
    maxDepth: depths[depths.length - 1]!,
    judgedOnly: options.judgedOnly === true,
    ...(options.relevanceLevel === undefined ? {} : { relevanceLevel: options.relevanceLevel }),
    ...(options.cohortAt === undefined ? {} : { cohortAt: options.cohortAt }),
    ...(options.label === undefined ? {} : { label: options.label }),
  });
  return reportFromPrepared(prepared, options);
}

/** Build the report for any depths (≤ prepared.maxDepth) and label from prepared ranks. */
export function reportFromPrepared(p: PreparedFlips, options: Omit<FlipOptions, 'relevanceLevel'> = {}): FlipReport {
  const depths = validateDepths(options.depths ?? DEFAULT_DEPTHS);
  if (depths[depths.length - 1]! > p.maxDepth)
    throw new RangeError(`depth ${depths[depths.length - 1]} exceeds the prepared maximum ${p.maxDepth}`);
  const label = options.label ?? 'any';
  const n = p.queries.length;
  const refRanks = p.reference.ranks[label];
  const cands = p.candidates;

  const unjudgedAt = (counts: Uint16Array, i: number, k: number): number => counts[i * p.maxDepth + k - 1]!;
  const meanUnjudged = (counts: Uint16Array, k: number): number => {
    let total = 0;
    for (let i = 0; i < n; i++) total += unjudgedAt(counts, i, k) / k;
    return total / n;
  };
  const depthBlocks: DepthBlock[] = depths.map((k) => {
    let refSupported = 0;
    for (let i = 0; i < n; i++) if (refRanks[i]! <= k) refSupported++;
    return {
      k,
      reference: { name: p.reference.name, supported: refSupported, unjudged_at_k: meanUnjudged(p.reference.unjudged, k) },
      candidates: cands.map((c) => {
        const candRanks = c.ranks[label];
        let brokenWithUnjudged = 0;
        let fixedWithUnjudged = 0;
        for (let i = 0; i < n; i++) {
          const refIn = refRanks[i]! <= k;
          const candIn = candRanks[i]! <= k;
          if (refIn && !candIn && unjudgedAt(c.unjudged, i, k) > 0) brokenWithUnjudged++;
          if (!refIn && candIn && unjudgedAt(p.reference.unjudged, i, k) > 0) fixedWithUnjudged++;
        }
        const s = summarize(countTransitions(refRanks, c.ranks[label], k));
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
          unjudged_at_k: meanUnjudged(c.unjudged, k),
          broken_with_unjudged: brokenWithUnjudged,
          fixed_with_unjudged: fixedWithUnjudged,
          negative_flip_rate_low: s.referenceSupported === 0 ? null : (s.broken - brokenWithUnjudged) / s.referenceSupported,
          nfr_all: s.nfrAll,
          btc: s.compatibility,
          bec: s.backwardErrorCompatibility,
        };
      }),
    };
  });

  const paired: PairedRow[] = [];
  for (let a = 0; a < cands.length; a++) {
    for (let b = a + 1; b < cands.length; b++) {
      const rows = depths.map((k) => ({ k, ...pairedFlips(refRanks, cands[a]!.ranks[label], cands[b]!.ranks[label], k) }));
      const adjusted = holm(rows.map((r) => r.p));
      rows.forEach((r, i) =>
        paired.push({ k: r.k, a: cands[a]!.name, b: cands[b]!.name, only_a: r.onlyA, only_b: r.onlyB, p: r.p, p_holm: adjusted[i]! }),
      );
    }
  }

  const hybrids: HybridRow[] = [];
  for (const c of cands) {
    for (const k of depths) {
      for (const method of ['alternation', 'rrf', 'union'] as const) {
        const counts = countTransitions(refRanks, c[method][label], k);
        const meanSize =
          method === 'union' ? c.unionSizeTotal[k]! / n : meanCapped(method === 'rrf' ? c.rrfLength : c.alternationLength, k);
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
          negative_flip_rate: summarize(counts).negativeFlipRate,
        });
      }
    }
  }

  const bins = rankBins(depths);
  const strataRows: StratumRow[] = [];
  for (const c of cands) {
    for (const k of depths) {
      for (const s of strata(refRanks, c.ranks[label], k, bins)) {
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
  }

  const report: FlipReport = {
    queries: n,
    label,
    relevance_level: p.relevanceLevel,
    judged_only: p.judgedOnly,
    cohort_at: p.cohortAt,
    depth_list: depths,
    runs: [
      { name: p.reference.name, role: 'reference', missing_queries: p.reference.missing },
      ...cands.map((c) => ({ name: c.name, role: 'candidate' as const, missing_queries: c.missing })),
    ],
    depths: depthBlocks,
    paired,
    hybrids,
    strata: strataRows,
  };
  if (options.perQuery) {
    // Depths are sorted, so "rank ≤ k" holds from some depth index on: a query's states over the depths are
    // fixed by two such indices. The ≤ (|depths| + 1)² distinct state lists are built once and shared
    // (frozen), which keeps this per-frame work to one small object per query and candidate.
    const firstDepth = (rank: number): number => {
      let d = 0;
      while (d < depths.length && depths[d]! < rank) d++;
      return d;
    };
    const lists = new Map<number, readonly TransitionState[]>();
    const statesFor = (refRank: number, candRank: number): TransitionState[] => {
      const a = firstDepth(refRank);
      const b = firstDepth(candRank);
      const key = a * (depths.length + 1) + b;
      let list = lists.get(key);
      if (!list) {
        list = Object.freeze(depths.map((_, d) => (d >= a ? (d >= b ? 'preserved' : 'broken') : d >= b ? 'fixed' : 'unchanged')));
        lists.set(key, list);
      }
      return list as TransitionState[];
    };
    const unjudgedList = (counts: Uint16Array, i: number): number[] => depths.map((k) => unjudgedAt(counts, i, k));
    report.per_query = p.queries.map((qid, i) => {
      const r = refRanks[i]!;
      return {
        qid,
        reference_rank: rankOrNull(r),
        reference_unjudged: unjudgedList(p.reference.unjudged, i),
        candidates: cands.map((c) => {
          const cr = c.ranks[label][i]!;
          return { name: c.name, rank: rankOrNull(cr), states: statesFor(r, cr), unjudged: unjudgedList(c.unjudged, i) };
        }),
      };
    });
  }
  return report;
}
