/**
 * What a judge is given and how its verdicts become grades (core/judging/select.ts, grades.ts, label.ts), against
 * hand-made collections: the holes behind flips come before the others and none is a judged pair; the audit sample
 * keeps each grade; thresholds are the balanced-accuracy cut found by a brute-force oracle; UMBRELA's 0–3 on
 * binary and 0–2 scales; the prompt takes query and passage as text.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkJudgePrompt,
  fillJudgePrompt,
  fitThresholds,
  gradeOfProbabilities,
  gradeOfScore,
  umbrelaToScale,
  UMBRELA_PROMPT,
} from '../../../src/core/judging/grades.ts';
import { auditSample, holesToJudge } from '../../../src/core/judging/select.ts';
import { labelVerdicts } from '../../../src/core/judging/label.ts';
import type { DocId, Qrels, QueryId, Run } from '../../../src/core/types.ts';

const qrels = (rows: [string, string, number][]): Qrels => {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const [q, d, g] of rows) {
    if (!byQuery.has(q as QueryId)) byQuery.set(q as QueryId, new Map());
    byQuery.get(q as QueryId)!.set(d as DocId, g);
  }
  return { byQuery };
};
const run = (name: string, lists: Record<string, string[]>): Run => ({
  name,
  byQuery: new Map(
    Object.entries(lists).map(([q, docs]) => [q as QueryId, { docs: docs as DocId[], scores: new Float64Array(docs.length) }]),
  ),
});

describe('holesToJudge', () => {
  it('gives the holes behind flips first, then the rest, never a judged pair, within the budget', () => {
    const q = qrels([
      ['a', 'r1', 1],
      ['b', 'r2', 1],
      ['c', 'r3', 1],
      ['c', 'n3', 0],
    ]);
    const ref = run('ref', { a: ['r1', 'x1', 'x2'], b: ['y1', 'y2', 'y3'], c: ['r3', 'n3', 'z1'] });
    const cand = run('cand', { a: ['w1', 'w2', 'r1'], b: ['y1', 'r2', 'v1'], c: ['z2', 'r3', 'z1'] });
    // k = 2: a broken (ref has r1, cand not), b fixed (cand has r2), c preserved.
    const holes = holesToJudge(q, [ref, cand], 2);
    expect(holes.map((h) => [h.qid, h.docid, h.why])).toEqual([
      ['a', 'w1', 1],
      ['a', 'w2', 1],
      ['a', 'x1', 1],
      ['b', 'y1', 1],
      ['b', 'y2', 1],
      ['c', 'z2', 2],
    ]);
    expect(holesToJudge(q, [ref, cand], 2, 4)).toHaveLength(4);
  });

  it('judges the holes of queries no one judged when asked to (typed queries of a made collection)', () => {
    const q = qrels([['a', 'r1', 2]]);
    const ref = run('ref', { a: ['r1', 'x1'], t: ['t1', 't2'] });
    const cand = run('cand', { a: ['r1', 'x2'], t: ['t3'] });
    const of = (holes: readonly { qid: string; docid: string }[]) => holes.map((h) => `${h.qid}/${h.docid}`);
    expect(of(holesToJudge(q, [ref, cand], 2))).toEqual(['a/x1', 'a/x2']);
    expect(of(holesToJudge(q, [ref, cand], 2, undefined, ['a', 't'] as QueryId[]))).toEqual(['a/x1', 'a/x2', 't/t1', 't/t2', 't/t3']);
  });
});

describe('auditSample', () => {
  it('keeps every grade, splits fit and audit alternately, never repeats a pair', () => {
    const rows: [string, string, number][] = [];
    for (let i = 0; i < 90; i++) rows.push([`q${i % 7}`, `d${i}`, i < 60 ? 0 : i < 85 ? 1 : 2]);
    const { fit, audit } = auditSample(qrels(rows), 20, 7);
    const all = [...fit, ...audit];
    expect(new Set(all.map((p) => `${p.qid}/${p.docid}`)).size).toBe(all.length);
    const grade = (p: { docid: string }) => rows.find((r) => r[1] === p.docid)![2];
    expect(new Set(all.map(grade))).toEqual(new Set([0, 1, 2]));
    expect(Math.abs(fit.length - audit.length)).toBeLessThanOrEqual(1);
    expect(fit.every((p) => p.why === 'fit') && audit.every((p) => p.why === 'audit')).toBe(true);
  });
});

describe('grades', () => {
  it('fitThresholds picks the cut a brute-force balanced-accuracy search picks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 0, max: 2 })), { minLength: 4, maxLength: 40 }),
        (pairs) => {
          const scores = pairs.map((p) => p[0] / 4);
          const grades = pairs.map((p) => p[1]);
          const fitted = fitThresholds(scores, grades, 2);
          const oneSided = [1, 2].some((g) => grades.every((x) => x >= g) || grades.every((x) => x < g));
          if (oneSided) {
            expect(fitted).toBeNull();
            return;
          }
          const cuts = [...new Set(scores), Infinity].sort((a, b) => a - b);
          let previous = -Infinity;
          [1, 2].forEach((g, i) => {
            const bal = (t: number) => {
              const pos = grades.filter((x) => x >= g).length;
              const neg = grades.length - pos;
              const tp = scores.filter((s, j) => s >= t && grades[j]! >= g).length;
              const tn = scores.filter((s, j) => s < t && grades[j]! < g).length;
              return (tp / pos + tn / neg) / 2;
            };
            const best = Math.max(...cuts.map(bal));
            const want = Math.max(
              previous,
              cuts.find((t) => bal(t) === best)!,
            );
            expect(fitted![i]).toBe(want);
            previous = want;
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('maps scores, probabilities and UMBRELA grades as stated', () => {
    expect([-1, 0, 0.5, 3].map((s) => gradeOfScore(s, [0, 1, 2]))).toEqual([0, 1, 1, 3]);
    const p = gradeOfProbabilities([0.1, 0.4, 0.4, 0.1]);
    expect(p.grade).toBe(1);
    expect(p.expected).toBeCloseTo(1.5, 12);
    expect([0, 1, 2, 3].map((g) => umbrelaToScale(g, 1))).toEqual([0, 0, 1, 1]);
    expect([0, 1, 2, 3].map((g) => umbrelaToScale(g, 2))).toEqual([0, 0, 1, 2]);
    expect([0, 1, 2, 3].map((g) => umbrelaToScale(g, 3))).toEqual([0, 1, 2, 3]);
  });

  it('fills the prompt with text only, once each', () => {
    const filled = fillJudgePrompt(UMBRELA_PROMPT, 'what is {passage}?', 'a passage about {query}');
    expect(filled).toContain('Query: what is {passage}?\nPassage: a passage about {query}\n');
    expect(checkJudgePrompt(UMBRELA_PROMPT.template)).toBeNull();
    expect(checkJudgePrompt('{query} only')).toMatch(/\{passage\} exactly once; it holds it 0 times/);
  });
});

describe('labelVerdicts: a cross-encoder fitted on people’s pairs, audited on the others', () => {
  const task = (qid: string, docid: string, why: 1 | 2 | 'fit' | 'audit') => ({
    qid: qid as QueryId,
    docid: docid as DocId,
    why,
    query: `query ${qid}`,
    passage: `passage ${docid}`,
  });
  // People's grades 0, 1, 2 with scores that separate them cleanly: the cuts are 0.5 and 0.9.
  const fit: [string, number, number][] = [
    ['f0a', 0, 0.1],
    ['f0b', 0, 0.2],
    ['f1a', 1, 0.5],
    ['f1b', 1, 0.6],
    ['f2a', 2, 0.9],
    ['f2b', 2, 1.0],
  ];
  // The audit half: the judge agrees on three pairs and calls a non-relevant one (people: 0) grade 2.
  const audit: [string, number, number][] = [
    ['a0', 0, 0.15],
    ['a1', 1, 0.55],
    ['a2', 2, 0.95],
    ['a3', 0, 0.92],
  ];
  const holes: [string, number][] = [
    ['h0', 0.05],
    ['h1', 0.7],
    ['h2', 0.99],
  ];
  const plan = {
    tasks: [
      ...fit.map(([d]) => task('q', d, 'fit')),
      ...audit.map(([d]) => task('q', d, 'audit')),
      ...holes.map(([d], i) => task('q', d, i === 0 ? 1 : 2)),
    ],
    peopleGrades: new Map([...fit, ...audit].map(([d, g]) => [`q\u0000${d}`, g])),
    fit: fit.length,
    audit: audit.length,
    holes: holes.length,
    holesBehindFlips: 1,
    unknown: 0,
  };
  const verdicts = new Map(
    [...fit, ...audit, ...holes.map(([d, s]) => [d, 0, s] as const)].map(([d, , s]) => [`q\u0000${d}`, { qid: 'q', docid: d, score: s }]),
  );

  it('fits the cuts on the fitting half, grades every pair by them, and audits only the other half', () => {
    const layer = labelVerdicts(plan, verdicts, { kind: 'cross-encoder', scaleMax: 2, level: 1, presetThresholds: [0, 1, 2] });
    expect(layer.thresholds).toEqual([0.5, 0.9]);
    expect(layer.thresholdsFrom).toBe('fitted on 6 pairs people judged');
    const grade = (d: string) => layer.labels.find((l) => l.docId === d)?.grade;
    expect(holes.map(([d]) => grade(d))).toEqual([0, 1, 2]);
    expect(layer.audit?.pairs).toBe(4);
    // At level 1: people 0,1,1,0 vs model 0,1,1,1 → 3 of 4 agree.
    expect(layer.audit?.agreement).toBe(0.75);
    expect(layer.audit?.confusion).toEqual({
      labels: [0, 1, 2],
      counts: [
        [1, 0, 1],
        [0, 1, 0],
        [0, 0, 1],
      ],
    });
  });

  it('takes given thresholds over the fit, and refuses to guess when nothing can fit and no preset is known', () => {
    const given = labelVerdicts(plan, verdicts, { kind: 'cross-encoder', scaleMax: 2, level: 1, thresholds: [0.3, 0.8] });
    expect([given.thresholds, given.thresholdsFrom]).toEqual([[0.3, 0.8], 'given']);
    const oneSided = { ...plan, peopleGrades: new Map([...plan.peopleGrades.keys()].map((k) => [k, 1])) };
    expect(() => labelVerdicts(oneSided, verdicts, { kind: 'cross-encoder', scaleMax: 2, level: 1, name: 'my judge' })).toThrow(
      /my judge has no preset thresholds, and people's judgments cannot fit them/,
    );
  });
});
