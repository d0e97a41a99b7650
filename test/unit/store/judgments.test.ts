/** The judgments layer under several writers (IndexedDB through idb; fake-indexeddb here, two real tabs in the e2e). */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { Judgment } from '../../../src/core/io/judgments.ts';
import { applyEdits, JudgmentStore } from '../../../src/store/judgments.ts';

const j = (qid: string, docid: string, grade: number, time = 't'): Judgment => ({ qid, docid, grade, time }) as Judgment;

describe('judgment edits', () => {
  it('adds go last (the last of a pair counts); drops remove a pair wherever it stands', () => {
    const layer = [j('1', 'a', 1), j('1', 'b', 0), j('1', 'a', 2)];
    expect(applyEdits(layer, [{ add: [j('2', 'c', 1)] }])).toEqual([...layer, j('2', 'c', 1)]);
    expect(applyEdits(layer, [{ drop: [['1', 'a']] }])).toEqual([j('1', 'b', 0)]);
    expect(applyEdits(layer, [{ drop: [['1', 'a']] }, { add: [j('1', 'a', 0)] }])).toEqual([j('1', 'b', 0), j('1', 'a', 0)]);
    expect(applyEdits([], [{ drop: [['9', 'z']] }])).toEqual([]);
  });

  it('two writers at once: each edit applies to the layer as stored, so neither loses the other', async () => {
    const name = `judgments-${Math.random()}`;
    const [tabA, tabB] = await Promise.all([JudgmentStore.open(name), JudgmentStore.open(name)]);
    try {
      await tabA.update('c', [{ add: [j('1', 'a', 1)] }]);
      // B has not read anything; both write now
      const [afterA, afterB] = await Promise.all([
        tabA.update('c', [{ add: [j('1', 'b', 0)] }]),
        tabB.update('c', [{ add: [j('2', 'c', 2)] }]),
      ]);
      const stored = await tabA.get('c');
      expect(stored).toHaveLength(3);
      expect(new Set(stored.map((x) => x.docid))).toEqual(new Set(['a', 'b', 'c']));
      // the later transaction returns the whole layer
      expect([afterA.length, afterB.length].sort()).toEqual([2, 3]);
      // dropping the last pair deletes the record
      await tabB.update('c', [
        {
          drop: [
            ['1', 'a'],
            ['1', 'b'],
            ['2', 'c'],
          ],
        },
      ]);
      expect(await tabA.summaries()).toEqual([]);
    } finally {
      tabA.close();
      tabB.close();
    }
  });
});
