/** Gold files and imported predictions per collection (IndexedDB through idb; fake-indexeddb here, the real one in the e2e). */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { AnswerInputStore, type StoredGold, type StoredPredictions } from '../../../src/store/answer-inputs.ts';

const gold = (collectionId: string, source: string, answers: Record<string, string[]>): StoredGold => ({
  collectionId,
  source,
  gold: answers,
  savedAt: 1,
});
const predictions = (collectionId: string, run: string, k: number, rows: Record<string, string>): StoredPredictions => ({
  collectionId,
  run,
  k,
  source: `${run}.jsonl`,
  predictions: rows,
  savedAt: 1,
});

describe('AnswerInputStore', () => {
  it('keeps one gold file per collection: the last one stored replaces the earlier, other collections keep theirs', async () => {
    const store = await AnswerInputStore.open('inputs-test-gold');
    try {
      expect(await store.getGold('files:qa')).toBeUndefined();
      await store.putGold(gold('files:qa', 'first.jsonl', { q1: ['red'] }));
      await store.putGold(gold('beir:hotpotqa', 'hotpot.jsonl', { h1: ['Paris', 'paris, france'] }));
      await store.putGold(gold('files:qa', 'second.jsonl', { q1: ['blue'], q2: ['green'] }));
      expect(await store.getGold('files:qa')).toEqual(gold('files:qa', 'second.jsonl', { q1: ['blue'], q2: ['green'] }));
      expect((await store.getGold('beir:hotpotqa'))?.gold).toEqual({ h1: ['Paris', 'paris, france'] });
      await store.deleteGold('files:qa');
      expect(await store.getGold('files:qa')).toBeUndefined();
      expect(await store.getGold('beir:hotpotqa')).toBeDefined();
    } finally {
      store.close();
    }
  });

  it('keeps predictions per collection and run, lists a collection’s own, and deletes one run at a time', async () => {
    const store = await AnswerInputStore.open('inputs-test-predictions');
    try {
      await store.putPredictions(predictions('files:qa', 'bm25-rm3', 2, { q1: 'red' }));
      await store.putPredictions(predictions('files:qa', 'bm25', 2, { q1: 'blue', q2: 'unknown' }));
      // The same run name in another collection is another record (run names repeat across collections).
      await store.putPredictions(predictions('files:other', 'bm25', 5, { x: 'y' }));
      // The same collection and run again replaces, at its new k.
      await store.putPredictions(predictions('files:qa', 'bm25-rm3', 3, { q1: 'green', q3: 'old' }));
      const own = await store.predictionsOf('files:qa');
      expect(own.map((p) => [p.run, p.k, p.predictions])).toEqual([
        ['bm25', 2, { q1: 'blue', q2: 'unknown' }],
        ['bm25-rm3', 3, { q1: 'green', q3: 'old' }],
      ]);
      await store.deletePredictions('files:qa', 'bm25');
      expect((await store.predictionsOf('files:qa')).map((p) => p.run)).toEqual(['bm25-rm3']);
      expect((await store.predictionsOf('files:other')).map((p) => p.predictions)).toEqual([{ x: 'y' }]);
      expect(await store.predictionsOf('files:none')).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('summarizes what is stored per collection with counts, and deletes one collection’s inputs or all', async () => {
    const store = await AnswerInputStore.open('inputs-test-summary');
    try {
      expect(await store.summaries()).toEqual([]);
      await store.putGold(gold('files:qa', 'gold.jsonl', { q1: ['red'], q2: ['blue'], q3: ['x'] }));
      await store.putPredictions(predictions('files:qa', 'bm25', 2, { q1: 'red', q2: 'blue' }));
      await store.putPredictions(predictions('files:only-runs', 'dense', 10, { a: 'b' }));
      expect(await store.summaries()).toEqual([
        { collectionId: 'files:only-runs', gold: null, predictions: [{ run: 'dense', source: 'dense.jsonl', k: 10, count: 1 }] },
        {
          collectionId: 'files:qa',
          gold: { source: 'gold.jsonl', queries: 3 },
          predictions: [{ run: 'bm25', source: 'bm25.jsonl', k: 2, count: 2 }],
        },
      ]);
      await store.deleteCollection('files:qa');
      expect(await store.getGold('files:qa')).toBeUndefined();
      expect(await store.predictionsOf('files:qa')).toEqual([]);
      expect((await store.summaries()).map((s) => s.collectionId)).toEqual(['files:only-runs']);
      await store.clear();
      expect(await store.summaries()).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('keeps everything across opening the database again (what a reload does)', async () => {
    const first = await AnswerInputStore.open('inputs-test-reopen');
    await first.putGold(gold('files:qa', 'gold.jsonl', { q1: ['red'] }));
    await first.putPredictions(predictions('files:qa', 'bm25', 2, { q1: 'red' }));
    first.close();
    const again = await AnswerInputStore.open('inputs-test-reopen');
    try {
      expect((await again.getGold('files:qa'))?.gold).toEqual({ q1: ['red'] });
      expect((await again.predictionsOf('files:qa')).map((p) => p.predictions)).toEqual([{ q1: 'red' }]);
    } finally {
      again.close();
    }
  });
});
