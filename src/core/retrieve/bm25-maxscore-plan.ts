/**
 * The pruned search's plan for one query (`bm25-maxscore.ts`): the lists it reads (each layer of each slot's
 * term) with their bounds and read order, and the margins that keep the pruning exact under the scorer's
 * rule.
 */
import type { Bm25Postings } from './bm25-postings.ts';
import { HIST_BUCKETS, type Bm25Query, type Bm25ScoreRule } from './bm25-scoring.ts';

/** Longest list count ordered by insertion sort in `readOrderOf`. */
const INSERTION_SORT_MAX_LISTS = 64;

export interface MaxScorePlan {
  /** Per slot: the term's dense column (−1: none). */
  readonly slotColumn: Int32Array;
  readonly slotCount: number;
  /** Per list: layer, slot, bound U = multiplier × the layer's largest impact. A slot's lists are adjacent. */
  readonly listLayer: readonly number[];
  readonly listSlot: readonly number[];
  readonly listBound: readonly number[];
  readonly listCount: number;
  /** Lists by decreasing bound (a term's layers keep their order). */
  readonly readOrder: readonly number[];
  /** Bound of each slot's first layer (a later layer's bound is never higher), and its layer count. */
  readonly slotFirstBound: Float64Array;
  readonly slotLayerCount: Int32Array;
  /** No partial sum exceeds Σ of the slots' first bounds. */
  readonly sumCeiling: number;
  /** Bounds are multiplied by `widen` and thresholds by `narrow`: 1 ± ε (see `searchMaxScore`). */
  readonly widen: number;
  readonly narrow: number;
  /** Histogram buckets per unit of partial sum. */
  readonly bucketScale: number;
}

/**
 * ε, the relative distance a final score may lie from the document's float64 partial sum (a sum of
 * non-negative terms in any order): the rule's slack (its step weights against multiplier × impact), plus,
 * under float32 accumulation, (m + 2)·2⁻²³ for m additions (each rounds by at most 2⁻²⁴); in double,
 * (m + 2)·2⁻⁵⁰, plus 2⁻²³ when the sum is then rounded to float32.
 */
export function marginOf(rule: Bm25ScoreRule, m: number): number {
  if (rule.accumulate === 'float32') return rule.slack + (m + 2) * 2 ** -23;
  return rule.slack + (rule.roundFinal ? 2 ** -23 : 0) + (m + 2) * 2 ** -50;
}

/** Plans `query`: lists, read order, bounds and margins. */
export function planMaxScore(postings: Bm25Postings, query: Bm25Query, rule: Bm25ScoreRule): MaxScorePlan {
  const { termLayers, layerMaxImpact, denseColumn } = postings;
  const { slotTerm, slotMult } = query;
  const slotCount = slotTerm.length;
  const slotColumn = new Int32Array(slotCount);
  const listLayer: number[] = [];
  const listSlot: number[] = [];
  const listBound: number[] = [];
  for (let u = 0; u < slotCount; u++) {
    const t = slotTerm[u]!;
    slotColumn[u] = denseColumn[t]!;
    for (let l = termLayers[t]!; l < termLayers[t + 1]!; l++) {
      listLayer.push(l);
      listSlot.push(u);
      listBound.push(slotMult[u]! * layerMaxImpact[l]!);
    }
  }
  const listCount = listLayer.length;
  const slotFirstBound = new Float64Array(slotCount);
  for (let i = listCount - 1; i >= 0; i--) slotFirstBound[listSlot[i]!] = listBound[i]!;
  const slotLayerCount = new Int32Array(slotCount);
  for (let i = 0; i < listCount; i++) slotLayerCount[listSlot[i]!]!++;
  let sumCeiling = 0;
  for (let u = 0; u < slotCount; u++) sumCeiling += slotFirstBound[u]!;
  const eps = marginOf(rule, query.steps.length);
  return {
    slotColumn,
    slotCount,
    listLayer,
    listSlot,
    listBound,
    listCount,
    readOrder: readOrderOf(listBound),
    slotFirstBound,
    slotLayerCount,
    sumCeiling,
    widen: 1 + eps,
    narrow: 1 - eps,
    bucketScale: HIST_BUCKETS / sumCeiling,
  };
}

/**
 * List indices by decreasing bound, ties by index (so a term's layers keep their order). Queries have few
 * lists: an insertion sort, which spares a comparator closure per query; long queries use the library sort.
 */
function readOrderOf(listBound: readonly number[]): number[] {
  const count = listBound.length;
  if (count > INSERTION_SORT_MAX_LISTS) {
    return Array.from({ length: count }, (_, i) => i).sort((a, b) => listBound[b]! - listBound[a]! || a - b);
  }
  const order: number[] = [];
  for (let i = 0; i < count; i++) {
    const bound = listBound[i]!;
    order.push(i);
    let j = i;
    for (; j > 0 && listBound[order[j - 1]!]! < bound; j--) order[j] = order[j - 1]!;
    order[j] = i;
  }
  return order;
}
