/**
 * Fixed-budget combinations of a candidate with the reference (RAGFlip §3.3), each built once per query
 * from the full ranked lists; a depth k then takes the first k documents, so every depth sees the same
 * combined ranking (like the paper's truncations of one top-50).
 */
import type { DocId } from '../types.ts';

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
  for (let i = 0; i < n; i++) out[i] = docs[idx[i]!]!;
  return out;
}
