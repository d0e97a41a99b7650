/**
 * Fixed-budget combinations of a candidate with the reference (RAGFlip §3.3), each built once per query
 * from the full ranked lists; a depth k then takes the first k documents, so every depth sees the same
 * combined ranking (like the paper's truncations of one top-50).
 */
import type { DocId } from '../types.ts';

export type FusionMethod = 'alternation' | 'rrf' | 'combsum';

/** A fusion of a candidate with the reference and its parameter (fusion.ts fuses runs with it). */
export type FusionParams =
  | { readonly method: 'alternation'; readonly ratio: readonly [number, number] }
  | { readonly method: 'rrf'; readonly c: number }
  | { readonly method: 'combsum'; readonly alpha: number };

/** Cormack et al. (2009) constant. */
export const RRF_K = 60;

/**
 * Rank alternation: candidate[0], reference[0], candidate[1], reference[1], …, skipping documents already
 * taken; when one list runs out the other continues. Stops after `limit` distinct documents.
 * At k = 1 it equals the candidate's top 1, as in the paper.
 */
export function alternate(candidate: readonly DocId[], reference: readonly DocId[], limit: number): DocId[] {
  const out: DocId[] = [];
  const seen = new Set<DocId>();
  const n = Math.max(candidate.length, reference.length);
  for (let i = 0; i < n && out.length < limit; i++) {
    for (const list of [candidate, reference]) {
      const d = list[i];
      if (d === undefined || seen.has(d)) continue;
      seen.add(d);
      out.push(d);
      if (out.length === limit) break;
    }
  }
  return out;
}

/**
 * Reciprocal rank fusion over the full lists: score(d) = Σ_r 1/(RRF_K + rank_r(d)), ranks 1-based, a list
 * that lacks d contributes nothing. Returns up to `limit` documents by score descending.
 *
 * Ties (common: a document at rank r of one list only, against another at rank r of the other list) go to
 * the document alternation would take first — the smaller of 2·rank_candidate − 1 and 2·rank_reference —
 * so the candidate's document wins an exact tie. The reference implementation breaks ties by corpus row
 * index, which a run file does not carry; this rule is deterministic from the runs alone.
 */
export function reciprocalRankFusion(candidate: readonly DocId[], reference: readonly DocId[], limit: number, k = RRF_K): DocId[] {
  return reciprocalRankFusionScored(candidate, reference, limit, k).docs;
}

/** `reciprocalRankFusion` with each returned document's fused score (what a fused run file writes). */
export function reciprocalRankFusionScored(
  candidate: readonly DocId[],
  reference: readonly DocId[],
  limit: number,
  k = RRF_K,
): { docs: DocId[]; scores: Float64Array } {
  // One slot per distinct document (scores and alternation order in typed arrays): a Map lookup per
  // comparison made the sort the costliest step of a large analysis.
  const slot = new Map<DocId, number>();
  const docs: DocId[] = [];
  const score = new Float64Array(candidate.length + reference.length);
  const order = new Float64Array(candidate.length + reference.length);
  candidate.forEach((d, i) => {
    slot.set(d, docs.length);
    score[docs.length] = 1 / (k + i + 1);
    order[docs.length] = 2 * (i + 1) - 1;
    docs.push(d);
  });
  reference.forEach((d, i) => {
    const alt = 2 * (i + 1);
    const at = slot.get(d);
    if (at === undefined) {
      slot.set(d, docs.length);
      score[docs.length] = 1 / (k + i + 1);
      order[docs.length] = alt;
      docs.push(d);
    } else {
      score[at] = score[at]! + 1 / (k + i + 1);
      if (alt < order[at]!) order[at] = alt;
    }
  });
  const idx = Array.from({ length: docs.length }, (_, i) => i);
  idx.sort((a, b) => score[b]! - score[a]! || order[a]! - order[b]!);
  const n = Math.min(limit, idx.length);
  const out = new Array<DocId>(n);
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = docs[idx[i]!]!;
    scores[i] = score[idx[i]!]!;
  }
  return { docs: out, scores };
}

/**
 * Rank alternation with a ratio: `a` documents from the candidate, then `b` from the reference, and again,
 * skipping documents already taken; when one list runs out the other continues. `a = b = 1` is `alternate`.
 */
export function alternateRatio<T = DocId>(candidate: readonly T[], reference: readonly T[], limit: number, a: number, b: number): T[] {
  if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a + b > 0))
    throw new RangeError(`expected a ratio of non-negative integers, not both 0, got ${a}:${b}`);
  const out: T[] = [];
  const seen = new Set<T>();
  const next = [0, 0];
  const lists = [candidate, reference] as const;
  const take = (which: 0 | 1): boolean => {
    const list = lists[which];
    while (next[which]! < list.length) {
      const d = list[next[which]!++]!;
      if (seen.has(d)) continue;
      seen.add(d);
      out.push(d);
      return true;
    }
    return false;
  };
  while (out.length < limit && (next[0]! < candidate.length || next[1]! < reference.length)) {
    let took = false;
    for (let i = 0; i < a && out.length < limit; i++) took = take(0) || took;
    for (let i = 0; i < b && out.length < limit; i++) took = take(1) || took;
    // One list is spent and its turn took nothing: the other continues alone.
    if (!took && a > 0 && b > 0) continue;
    if (a === 0 && next[1]! >= reference.length) while (out.length < limit && take(0));
    if (b === 0 && next[0]! >= candidate.length) while (out.length < limit && take(1));
  }
  return out;
}

/** The first `n` scores mapped to [0, 1]: (s − min) / (max − min), every one 1 when max = min (CombSUM's). */
export function minMaxNormalised(scores: ArrayLike<number>, n = scores.length): Float64Array {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  return Float64Array.from({ length: n }, (_, i) => (max === min ? 1 : (scores[i]! - min) / (max - min)));
}

/**
 * CombSUM of min-max normalised scores: each run's scores for the query are mapped to [0, 1] over its full
 * list ((s − min) / (max − min); every score 1 when max = min), and a document scores
 * α·norm_candidate + (1 − α)·norm_reference, a list that lacks it contributing 0. Ties go to the document
 * rank alternation would take first, as in `reciprocalRankFusion`. Returns up to `limit` documents.
 */
export function combSum(
  candidate: { readonly docs: readonly DocId[]; readonly scores: ArrayLike<number> },
  reference: { readonly docs: readonly DocId[]; readonly scores: ArrayLike<number> },
  limit: number,
  alpha: number,
): { docs: DocId[]; scores: number[] } {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`expected α in [0, 1], got ${alpha}`);
  const slot = new Map<DocId, number>();
  const docs: DocId[] = [];
  const score: number[] = [];
  const order: number[] = [];
  const add = (list: typeof candidate, weight: number, position: (i: number) => number): void => {
    const normalised = minMaxNormalised(list.scores, list.docs.length);
    list.docs.forEach((d, i) => {
      const norm = normalised[i]!;
      const at = slot.get(d);
      if (at === undefined) {
        slot.set(d, docs.length);
        docs.push(d);
        score.push(weight * norm);
        order.push(position(i));
      } else {
        score[at] = score[at]! + weight * norm;
        order[at] = Math.min(order[at]!, position(i));
      }
    });
  };
  add(candidate, alpha, (i) => 2 * (i + 1) - 1);
  add(reference, 1 - alpha, (i) => 2 * (i + 1));
  const idx = Array.from({ length: docs.length }, (_, i) => i);
  idx.sort((x, y) => score[y]! - score[x]! || order[x]! - order[y]!);
  const top = idx.slice(0, limit);
  return { docs: top.map((i) => docs[i]!), scores: top.map((i) => score[i]!) };
}
