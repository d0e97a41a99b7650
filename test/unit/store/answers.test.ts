/** The reader-answer cache (IndexedDB through idb; fake-indexeddb here, the real one in the e2e). */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { answerKey } from '../../../src/core/answers/prompt.ts';
import { AnswerStore, type AnswerRecord } from '../../../src/store/answers.ts';

const parts = {
  model: 'org/m',
  revision: 'main',
  dtype: 'q8',
  template: 'fliplab-short-answer@v1',
  k: 10,
  passageIds: ['d1'],
  question: 'q?',
};
const record = (queryId: string, question: string, prediction: string): AnswerRecord => ({
  key: answerKey({ ...parts, question }),
  queryId,
  prediction,
  ...parts,
  question,
  device: 'wasm',
  newTokens: 3,
  createdAt: 1,
});

describe('AnswerStore', () => {
  it('returns stored answers by key, leaves unknown keys out, counts and clears', async () => {
    const store = await AnswerStore.open('answers-test-1');
    try {
      await store.put(record('q1', 'first?', 'red'));
      await store.put(record('q2', 'second?', 'blue'));
      const keys = [answerKey({ ...parts, question: 'first?' }), answerKey({ ...parts, question: 'nope?' })];
      const found = await store.getMany(keys);
      expect([...found.keys()]).toEqual([keys[0]]);
      expect(found.get(keys[0]!)?.prediction).toBe('red');
      expect(await store.count()).toBe(2);
      // The same key again replaces (a regenerated answer), it does not add.
      await store.put(record('q1', 'first?', 'green'));
      expect(await store.count()).toBe(2);
      await store.clear();
      expect(await store.count()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('keeps answers across opening the database again (what a reload does)', async () => {
    const first = await AnswerStore.open('answers-test-2');
    await first.put(record('q1', 'first?', 'red'));
    first.close();
    const again = await AnswerStore.open('answers-test-2');
    try {
      expect((await again.getMany([answerKey({ ...parts, question: 'first?' })])).size).toBe(1);
    } finally {
      again.close();
    }
  });
});
