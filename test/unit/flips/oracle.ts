/**
 * An obviously-correct, slow re-statement of the RAGFlip definitions, written from the paper's sentences
 * rather than from the implementation: top-k slices, sets and literal loops. Property tests compare the
 * fast core against it.
 */
import type { DocId, Qrels, QueryId, Run } from '../../../src/core/types.ts';

export type Label = 'any' | 'strict';

export function positivesOf(qrels: Qrels, level: number): Map<QueryId, Set<DocId>> {
  const out = new Map<QueryId, Set<DocId>>();
  for (const [q, judged] of qrels.byQuery) {
    const pos = new Set([...judged].filter(([, g]) => g >= level).map(([d]) => d));
    if (pos.size > 0) out.set(q, pos);
  }
  return out;
}

export function supported(top: readonly DocId[], pos: Set<DocId>, label: Label): boolean {
  return label === 'any' ? top.some((d) => pos.has(d)) : [...pos].every((p) => top.includes(p));
}

export const listOf = (run: Run, q: QueryId): readonly DocId[] => run.byQuery.get(q)?.docs ?? [];

export function naiveAlternation(cand: readonly DocId[], ref: readonly DocId[], k: number): DocId[] {
  const interleaved: DocId[] = [];
  for (let i = 0; i < Math.max(cand.length, ref.length); i++) {
    if (i < cand.length) interleaved.push(cand[i]!);
    if (i < ref.length) interleaved.push(ref[i]!);
  }
  return [...new Set(interleaved)].slice(0, k);
}

/** RRF with ties to the document met first in the interleaved sequence (the documented rule). */
export function naiveRrf(cand: readonly DocId[], ref: readonly DocId[], k: number): DocId[] {
  const interleaved: DocId[] = [];
  for (let i = 0; i < Math.max(cand.length, ref.length); i++) {
    if (i < cand.length) interleaved.push(cand[i]!);
    if (i < ref.length) interleaved.push(ref[i]!);
  }
  const docs = [...new Set(interleaved)];
  const score = (d: DocId) =>
    (cand.includes(d) ? 1 / (60 + cand.indexOf(d) + 1) : 0) + (ref.includes(d) ? 1 / (60 + ref.indexOf(d) + 1) : 0);
  return docs
    .map((d) => ({ d, s: score(d), first: interleaved.indexOf(d) }))
    .sort((a, b) => b.s - a.s || a.first - b.first)
    .slice(0, k)
    .map((x) => x.d);
}
