/**
 * frontier-ranks.ts against its definition: every mix of the sweep fused query by query (fusion.ts
 * `fuseRuns`, `maxDepth` deep) and profiled (cohort.ts `supportProfile`), on random runs with tied scores,
 * passages in one list only, queries in one run only or in neither, and positives in neither list.
 */
import { describe, expect, it } from 'vitest';
import { buildCohort, supportProfile } from '../../../src/core/flips/cohort.ts';
import { frontierRanks } from '../../../src/core/flips/frontier-ranks.ts';
import { fuseRuns, sweepParams } from '../../../src/core/flips/fusion.ts';
import type { DocId, QueryId, Qrels, RankedList, Run } from '../../../src/core/types.ts';
import { randomStream } from '../../../src/core/random.ts';

function world(seed: number): { qrels: Qrels; reference: Run; candidate: Run } {
  const next = randomStream(seed, 'frontier-ranks');
  const pick = (n: number) => Math.floor((next() / 2 ** 32) * n);
  const list = (q: number, length: number): RankedList => {
    const docs = [...new Set(Array.from({ length }, () => `q${q}d${pick(40)}` as DocId))];
    // Coarse scores: many ties for CombSUM to break; descending as a run's are.
    const scores = Float64Array.from(docs, (_, i) => Math.round((docs.length - i) / 3) + (pick(4) === 0 ? 0.5 : 0));
    scores.sort().reverse();
    return { docs, scores };
  };
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  const reference = new Map<QueryId, RankedList>();
  const candidate = new Map<QueryId, RankedList>();
  for (let q = 0; q < 60; q++) {
    const qid = `q${q}` as QueryId;
    const judged = new Map<DocId, number>();
    for (let j = 0; j < 1 + pick(5); j++) judged.set(`q${q}d${pick(45)}` as DocId, pick(3));
    byQuery.set(qid, judged);
    const where = pick(8);
    if (where !== 0) reference.set(qid, list(q, 1 + pick(30)));
    if (where !== 1) candidate.set(qid, list(q, 1 + pick(30)));
    if (where === 2) reference.delete(qid);
    if (where === 3) {
      reference.delete(qid);
      candidate.delete(qid);
    }
  }
  return { qrels: { byQuery }, reference: { name: 'ref', byQuery: reference }, candidate: { name: 'cand', byQuery: candidate } };
}

describe('frontierRanks', () => {
  it.each([1, 2, 3, 4, 5, 6])('equals fusing and profiling every mix (world %i), both labels, at several depths', (seed) => {
    const { qrels, reference, candidate } = world(seed);
    const mixes = sweepParams();
    for (const level of [1, 2]) {
      const cohort = buildCohort(qrels, level);
      for (const maxDepth of [1, 5, 20, 50]) {
        for (const strict of [false, true]) {
          const fast = frontierRanks(cohort, reference, candidate, mixes, maxDepth, strict);
          mixes.forEach((p, m) => {
            const profile = supportProfile(fuseRuns(reference, candidate, p, maxDepth), cohort);
            expect(Array.from(fast[m]!), `${JSON.stringify(p)} depth ${maxDepth} ${strict ? 'strict' : 'any'}`).toEqual(
              Array.from(strict ? profile.all : profile.first),
            );
          });
        }
      }
    }
  });
});
