/** Small synthetic runs and qrels for the export tests: seeded, so every run of the suite sees the same data. */
import type { DocId, Qrels, QueryId, RankedList, Run } from '../../../src/core/types.ts';

export function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists)) {
    byQuery.set(q as QueryId, { docs: docs as DocId[], scores: Float64Array.from(docs, (_, i) => docs.length - i) });
  }
  return { name, byQuery };
}

export function makeQrels(judged: Record<string, Record<string, number>>): Qrels {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const [q, docs] of Object.entries(judged)) byQuery.set(q as QueryId, new Map(Object.entries(docs).map(([d, g]) => [d as DocId, g])));
  return { byQuery };
}

/** Park–Miller LCG in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed % 2147483647 || 1;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

function shuffled<T>(xs: readonly T[], r: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/**
 * `nq` queries over a 30-document pool each, 1–3 positives per query (grades 1–2, plus a judged 0),
 * a reference and `names.length` candidates that are independent shuffles cut to 20 documents; the
 * last query is missing from the first candidate.
 */
export function syntheticCase(seed: number, names: readonly string[], nq = 40) {
  const r = rng(seed);
  const judged: Record<string, Record<string, number>> = {};
  const lists: Record<string, string[]>[] = [{}, ...names.map(() => ({}))];
  for (let q = 0; q < nq; q++) {
    const pool = Array.from({ length: 30 }, (_, i) => `q${q}d${i}`);
    const pos = 1 + Math.floor(r() * 3);
    judged[`q${q}`] = Object.fromEntries([...pool.slice(0, pos).map((d) => [d, 1 + Math.floor(r() * 2)]), [pool[29]!, 0]]);
    lists.forEach((l, i) => {
      if (i === 1 && q === nq - 1) return;
      l[`q${q}`] = shuffled(pool, r).slice(0, 20);
    });
  }
  return {
    qrels: makeQrels(judged),
    reference: makeRun('reference', lists[0]!),
    candidates: names.map((n, i) => makeRun(n, lists[i + 1]!)),
  };
}
