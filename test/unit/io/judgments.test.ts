import { describe, expect, it } from 'vitest';
import {
  formatJudgmentsJsonl,
  formatJudgmentsQrels,
  judgmentsToQrels,
  latestJudgments,
  mergeQrels,
  parseJudgments,
  type Judgment,
} from '../../../src/core/io/judgments.ts';
import { asDocId, asQueryId } from '../../../src/core/io/ids.ts';
import type { Qrels } from '../../../src/core/types.ts';

const q = (entries: [string, string, number][]): Qrels => {
  const byQuery = new Map();
  for (const [qid, d, g] of entries) {
    if (!byQuery.has(qid)) byQuery.set(qid, new Map());
    byQuery.get(qid).set(d, g);
  }
  return { byQuery };
};
const flat = (qrels: Qrels) => [...qrels.byQuery].flatMap(([qid, m]) => [...m].map(([d, g]) => `${qid} ${d} ${g}`));
const j = (qid: string, docid: string, grade: number, assessor?: string, time?: string): Judgment => ({
  qid: asQueryId(qid),
  docid: asDocId(docid),
  grade,
  ...(assessor === undefined ? {} : { assessor }),
  ...(time === undefined ? {} : { time }),
});

describe('mergeQrels', () => {
  it('lets the later source win per pair, counts additions and changes, and lists disagreements', () => {
    const base = q([
      ['1', 'a', 1],
      ['1', 'b', 0],
    ]);
    const first = q([
      ['1', 'b', 2],
      ['1', 'c', 1],
      ['2', 'x', 1],
    ]);
    const second = q([
      ['1', 'b', 2],
      ['1', 'c', 0],
    ]);
    const m = mergeQrels([
      { name: 'base', qrels: base },
      { name: 'ann', qrels: first },
      { name: 'bob', qrels: second },
    ]);
    expect(flat(m.qrels)).toEqual(['1 a 1', '1 b 2', '1 c 0', '2 x 1']);
    expect([m.added, m.changed]).toEqual([2, 2]);
    expect(m.conflicts).toEqual([
      {
        qid: '1',
        docid: 'b',
        grades: [
          { source: 'base', grade: 0 },
          { source: 'ann', grade: 2 },
          { source: 'bob', grade: 2 },
        ],
      },
      {
        qid: '1',
        docid: 'c',
        grades: [
          { source: 'ann', grade: 1 },
          { source: 'bob', grade: 0 },
        ],
      },
    ]);
    expect(flat(base)).toEqual(['1 a 1', '1 b 0']); // inputs untouched
  });
});

describe('added judgments as files', () => {
  const judgments = [j('1', 'a', 2, 'ann', '2026-12-02T10:00:00.000Z'), j('1', 'b', 0), j('1', 'a', 1, 'bob')];

  it('writes the last grade of each pair as TREC qrels, and every judgment as JSONL with provenance', () => {
    expect(latestJudgments(judgments).map((x) => `${x.docid}${x.grade}`)).toEqual(['b0', 'a1']);
    expect(formatJudgmentsQrels(judgments)).toBe('1 0 b 0\n1 0 a 1\n');
    expect(formatJudgmentsJsonl(judgments, 'covid').split('\n')[0]).toBe(
      '{"qid":"1","docid":"a","grade":2,"assessor":"ann","time":"2026-12-02T10:00:00.000Z","collection":"covid"}',
    );
    expect(flat(judgmentsToQrels(judgments))).toEqual(['1 a 1', '1 b 0']);
  });

  it('reads both formats back', async () => {
    expect((await parseJudgments(formatJudgmentsJsonl(judgments), 'j.jsonl')).value).toEqual(judgments);
    expect((await parseJudgments(formatJudgmentsQrels(judgments), 'j.qrels')).value).toEqual([j('1', 'b', 0), j('1', 'a', 1)]);
  });

  it('names the file and line of bad input', async () => {
    await expect(parseJudgments('{"qid":"1","docid":"a","grade":1}\n{"qid":"1","grade":1}\n', 'x.jsonl')).rejects.toThrow(
      /x\.jsonl:2: expected "docid" to be a non-empty id, got "nothing"/,
    );
    await expect(parseJudgments('{"qid":"1",\n', 'x.jsonl')).rejects.toThrow(/x\.jsonl:1: expected one JSON object per line/);
    await expect(parseJudgments('1 0 a high\n', 'x.qrels')).rejects.toThrow(/x\.qrels:1: expected an integer relevance grade/);
    await expect(parseJudgments('\n\n', 'empty')).rejects.toThrow(/empty: expected judgments/);
  });
});
