/**
 * The frontier's support ranks without fusing: for each mix of the sweep and each cohort query, the rank at
 * which the fused list (fusion.ts `fuseLists`, `maxDepth` deep) first — or, for the strict label, fully —
 * supports the query, computed from the two lists' ranks instead of building and sorting every fused list.
 *
 * RRF and CombSUM order the union of the two lists by score, ties to the passage alternation takes first
 * (a strict total order: no two passages share that position). A positive's rank in the fused list is then
 * 1 + the passages it loses to, counted in one pass; the first support is the best positive's rank, the full
 * one the worst positive's (never when a positive is in neither list); past `maxDepth`, never. Alternation
 * has no scores: its first `maxDepth` passages are taken as `alternateRatio` takes them, on small integers.
 * Each query's union, ranks and normalised scores are built once and shared by every mix: the sweep does one
 * pass per mix and query instead of a Map, a sort and the fused list's strings. Equal, mix by mix and query
 * by query, to fusing and profiling (test/unit/flips/frontier-ranks.test.ts).
 */
import type { DocId, RankedList, Run } from '../types.ts';
import type { Cohort } from './cohort.ts';
import { NEVER } from './cohort.ts';
import { alternateRatio, minMaxNormalised, type FusionParams } from './hybrids.ts';

/** One query's two lists over their union: slot s is a distinct passage. */
interface Union {
  readonly size: number;
  /** 1-based rank in each list; 0 where the list lacks the passage. */
  readonly candRank: Int32Array;
  readonly refRank: Int32Array;
  /** min(2·candRank − 1, 2·refRank) over the lists that have it: the tie rule. */
  readonly order: Int32Array;
  /** Min-max normalised scores over each full list (0 where absent), as CombSUM reads them. */
  readonly candNorm: Float64Array;
  readonly refNorm: Float64Array;
  /** Slots of the query's positives found in either list. */
  readonly positives: Int32Array;
  /** Positives of the query in neither list (the strict label can then never be met). */
  readonly missingPositives: number;
  readonly candSlots: Int32Array;
  readonly refSlots: Int32Array;
}

const EMPTY: RankedList = { docs: [], scores: new Float64Array(0) };

function union(cand: RankedList, ref: RankedList, positives: ReadonlySet<DocId>): Union {
  const slot = new Map<DocId, number>();
  const capacity = cand.docs.length + ref.docs.length;
  const candRank = new Int32Array(capacity);
  const refRank = new Int32Array(capacity);
  const order = new Int32Array(capacity);
  const candNorm = new Float64Array(capacity);
  const refNorm = new Float64Array(capacity);
  const candSlots = new Int32Array(cand.docs.length);
  const refSlots = new Int32Array(ref.docs.length);
  const cn = minMaxNormalised(cand.scores, cand.docs.length);
  const rn = minMaxNormalised(ref.scores, ref.docs.length);
  let size = 0;
  cand.docs.forEach((d, i) => {
    slot.set(d, size);
    candSlots[i] = size;
    candRank[size] = i + 1;
    candNorm[size] = cn[i]!;
    order[size] = 2 * (i + 1) - 1;
    size++;
  });
  ref.docs.forEach((d, i) => {
    let s = slot.get(d);
    if (s === undefined) {
      s = size++;
      slot.set(d, s);
      order[s] = 2 * (i + 1);
    } else if (2 * (i + 1) < order[s]!) order[s] = 2 * (i + 1);
    refSlots[i] = s;
    refRank[s] = i + 1;
    refNorm[s] = rn[i]!;
  });
  const found: number[] = [];
  let missingPositives = 0;
  for (const p of positives) {
    const s = slot.get(p);
    if (s === undefined) missingPositives++;
    else found.push(s);
  }
  return {
    size,
    candRank,
    refRank,
    order,
    candNorm,
    refNorm,
    positives: Int32Array.from(found),
    missingPositives,
    candSlots,
    refSlots,
  };
}

/** The fused score of every slot under `p` (RRF or CombSUM), summed in fuseLists' order: candidate, then reference. */
function scores(u: Union, p: Extract<FusionParams, { method: 'rrf' | 'combsum' }>, out: Float64Array): void {
  for (let s = 0; s < u.size; s++) {
    const rc = u.candRank[s]!;
    const rr = u.refRank[s]!;
    if (p.method === 'rrf') {
      out[s] = rc > 0 ? (rr > 0 ? 1 / (p.c + rc) + 1 / (p.c + rr) : 1 / (p.c + rc)) : 1 / (p.c + rr);
    } else {
      const a = p.alpha * u.candNorm[s]!;
      const b = (1 - p.alpha) * u.refNorm[s]!;
      out[s] = rc > 0 ? (rr > 0 ? a + b : a) : b;
    }
  }
}

/** The 1-based rank of slot `s` in the fused order: 1 + the slots ahead of it. */
function rankOf(u: Union, score: Float64Array, s: number): number {
  const mine = score[s]!;
  const mineOrder = u.order[s]!;
  let ahead = 0;
  for (let t = 0; t < u.size; t++) {
    const x = score[t]!;
    if (x > mine || (x === mine && u.order[t]! < mineOrder)) ahead++;
  }
  return ahead + 1;
}

/** Whether slot a comes before slot b in the fused order. */
const before = (u: Union, score: Float64Array, a: number, b: number): boolean =>
  score[a]! > score[b]! || (score[a] === score[b] && u.order[a]! < u.order[b]!);

/**
 * Support ranks (first, or full with `strict`) of each mix over the cohort: `ranks[m][i]` for mix m and
 * cohort query i, NEVER where the fused list of `maxDepth` passages does not support it.
 */
export function frontierRanks(
  cohort: Cohort,
  reference: Run,
  candidate: Run,
  mixes: readonly FusionParams[],
  maxDepth: number,
  strict: boolean,
): Int32Array[] {
  const n = cohort.queries.length;
  const out = mixes.map(() => new Int32Array(n).fill(NEVER));
  let score = new Float64Array(0);
  for (let i = 0; i < n; i++) {
    const q = cohort.queries[i]!;
    const cand = candidate.byQuery.get(q);
    const ref = reference.byQuery.get(q);
    if (cand === undefined && ref === undefined) continue;
    const u = union(cand ?? EMPTY, ref ?? EMPTY, cohort.positives[i]!);
    if (u.positives.length === 0 || (strict && u.missingPositives > 0)) continue;
    if (score.length < u.size) score = new Float64Array(u.size);
    mixes.forEach((p, m) => {
      let rank: number;
      if (p.method === 'alternation') {
        const fused = alternateRatio(Array.from(u.candSlots), Array.from(u.refSlots), maxDepth, p.ratio[0], p.ratio[1]);
        const isPositive = new Uint8Array(u.size);
        for (const s of u.positives) isPositive[s] = 1;
        let found = 0;
        rank = NEVER;
        for (let r = 0; r < fused.length; r++) {
          if (isPositive[fused[r]!] !== 1) continue;
          found++;
          if (!strict || found === u.positives.length) {
            rank = r + 1;
            break;
          }
        }
      } else {
        scores(u, p, score);
        // The best positive for the first support, the worst for the full one.
        let pick = u.positives[0]!;
        for (const s of u.positives) if (before(u, score, s, pick) !== strict) pick = s;
        rank = rankOf(u, score, pick);
        if (rank > maxDepth) rank = NEVER;
      }
      out[m]![i] = rank;
    });
  }
  return out;
}
