/**
 * Flip-analysis speed on a HotpotQA-sized cohort (7,405 queries, the paper's largest) with a reference and
 * three candidates, depth 50: the one-off preparation, and the live re-slice the UI does on every change
 * of depth or label (goal: all tables for 5 depths in ≤ 16 ms, one frame). The peer is the literal
 * definition — slice each top k and test membership — measured in the same run on the transition table only.
 */
import { prepareFlips, reportFromPrepared } from '../src/core/flips/index.ts';
import type { DocId, Qrels, QueryId, RankedList, Run } from '../src/core/types.ts';
import { median, mulberry32 } from './lib/rng.ts';

const QUERIES = 7405;
const DEPTH = 50;
const POOL = 200_000;
const DEPTHS = [1, 5, 10, 20, 50];
const rand = mulberry32(7405);

const qids = Array.from({ length: QUERIES }, (_, i) => `q${i}` as QueryId);
const judged = new Map<QueryId, Map<DocId, number>>();
for (const q of qids) judged.set(q, new Map([[`${q}-p1` as DocId, 1], [`${q}-p2` as DocId, 1], [`${q}-n` as DocId, 0]]));
const qrels: Qrels = { byQuery: judged };

function makeRun(name: string, hitRate: number): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const q of qids) {
    const docs = new Set<DocId>();
    while (docs.size < DEPTH) docs.add(`d${Math.floor(rand() * POOL)}` as DocId);
    const list = [...docs];
    if (rand() < hitRate) list[Math.floor(rand() ** 2 * DEPTH)] = `${q}-p1` as DocId;
    if (rand() < hitRate / 2) list[Math.floor(rand() * DEPTH)] = `${q}-p2` as DocId;
    byQuery.set(q, { docs: [...new Set(list)], scores: Float64Array.from(list, (_, i) => DEPTH - i) });
  }
  return { name, byQuery };
}

const reference = makeRun('bm25', 0.75);
const candidates = [makeRun('bge', 0.85), makeRun('e5', 0.85), makeRun('splade', 0.8)];

let t = performance.now();
const prepared = prepareFlips(qrels, reference, candidates, { maxDepth: DEPTH });
const prepareMs = performance.now() - t;

const sliceTimes: number[] = [];
for (let i = 0; i < 30; i++) {
  t = performance.now();
  reportFromPrepared(prepared, { depths: DEPTHS, label: i % 2 === 0 ? 'any' : 'strict' });
  sliceTimes.push(performance.now() - t);
}

// Peer: the definition, literally (transition counts only — a strict subset of the work above).
const naiveTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  for (const k of DEPTHS) {
    for (const c of candidates) {
      let preserved = 0, broken = 0, fixed = 0;
      for (const q of qids) {
        const pos = new Set([...judged.get(q)!].filter(([, g]) => g > 0).map(([d]) => d));
        const B = reference.byQuery.get(q)!.docs.slice(0, k).some((d) => pos.has(d));
        const Dq = c.byQuery.get(q)!.docs.slice(0, k).some((d) => pos.has(d));
        if (B && Dq) preserved++;
        else if (B) broken++;
        else if (Dq) fixed++;
      }
      if (preserved + broken + fixed < 0) throw new Error('unreachable');
    }
  }
  naiveTimes.push(performance.now() - t);
}

const slice = median(sliceTimes);
const naive = median(naiveTimes);
console.log(`flips: ${QUERIES} queries × (1 reference + ${candidates.length} candidates) × depths ${DEPTHS.join(',')}, lists ${DEPTH} deep`);
console.log(`  prepare (once per run change, incl. hybrids) ${prepareMs.toFixed(1)} ms`);
console.log(`  full report from prepared ranks (median of 30) ${slice.toFixed(2)} ms   [goal ≤ 16 ms: ${slice <= 16 ? 'PASS' : 'FAIL'}]`);
console.log(`  peer: literal top-k slicing, transitions only (median of 5) ${naive.toFixed(1)} ms → ${(naive / slice).toFixed(1)}× slower than the full report`);
