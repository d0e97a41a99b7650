/**
 * The headline's holes sentence, from a real analysis: broken queries whose candidate top k holds an unjudged
 * passage are counted in words, with the negative-flip rate's range (lower end: only fully judged broken ones).
 */
import { describe, expect, it } from 'vitest';
import { analyzeFlips } from '../../../src/core/flips/analyze.ts';
import { asDocId, asQueryId } from '../../../src/core/io/ids.ts';
import type { Qrels, RankedList, Run } from '../../../src/core/types.ts';
import { headlineLines, holesSentence } from '../../../src/app/views/analysis/headline.ts';

const list = (docs: string[]): RankedList => ({ docs: docs.map(asDocId), scores: Float64Array.from(docs.map((_, i) => 10 - i)) });
const run = (name: string, lists: Record<string, string[]>): Run => ({
  name,
  byQuery: new Map(Object.entries(lists).map(([q, d]) => [asQueryId(q), list(d)])),
});
const qrels: Qrels = {
  byQuery: new Map(
    ['1', '2', '3', '4'].map((q) => [
      asQueryId(q),
      new Map([
        [asDocId(`rel${q}`), 1],
        [asDocId(`non${q}`), 0],
      ]),
    ]),
  ),
};
// Every query supported by the reference at k = 2. The candidate breaks 1, 2 and 3: 1 and 2 with an unjudged
// passage in its top 2, 3 with a fully judged top 2; it keeps 4.
const reference = run('bm25', { 1: ['rel1', 'x'], 2: ['rel2'], 3: ['rel3'], 4: ['rel4'] });
const candidate = run('dense', { 1: ['new1', 'non1'], 2: ['non2', 'new2'], 3: ['non3'], 4: ['rel4'] });

describe('headline holes sentence', () => {
  it('counts broken queries with unjudged passages and gives the negative-flip range', () => {
    const report = analyzeFlips(qrels, reference, [candidate], { depths: [2] });
    const row = report.depths[0]!.candidates[0]!;
    expect([row.broken, row.broken_with_unjudged, row.negative_flip_rate_low]).toEqual([3, 2, 0.25]);
    expect(holesSentence(row, 2)).toBe(" 2 of the 3 broken have unjudged passages in dense's top 2: negative-flip rate 25.0%–75.0%.");
    expect(headlineLines(report, 2, [])[0]!.text).toBe(
      "Replacing bm25 by dense at k = 2 fixes 0 and breaks 3 of 4 queries (net -3). 2 of the 3 broken have unjudged passages in dense's top 2: " +
        'negative-flip rate 25.0%–75.0%.',
    );
    // Qrels that judge only relevant passages: every other passage is unjudged, so the sentence is left out.
    expect(headlineLines(report, 2, [], {}, { holes: false })[0]!.text).toBe(
      'Replacing bm25 by dense at k = 2 fixes 0 and breaks 3 of 4 queries (net -3).',
    );
  });

  it('says nothing when no broken query has a hole, and "All" when every one has', () => {
    const judgedOnly = analyzeFlips(qrels, reference, [candidate], { depths: [2], judgedOnly: true });
    const row = judgedOnly.depths[0]!.candidates[0]!;
    expect(row.broken_with_unjudged).toBe(0);
    expect(holesSentence(row, 2)).toBe('');
    const all = analyzeFlips(qrels, reference, [run('dense', { 1: ['new1'], 2: ['new2'], 3: ['rel3'], 4: ['rel4'] })], { depths: [1] });
    expect(holesSentence(all.depths[0]!.candidates[0]!, 1)).toBe(
      " All 2 broken have unjudged passages in dense's top 1: negative-flip rate 0.0%–50.0%.",
    );
  });
});
