/**
 * What the answers panel tests give the real `AnswerLab`: a lab of the same shape (runes-backed fields the test
 * sets, spies for the worker calls it makes) and an in-memory stand-in for the IndexedDB store of gold files and
 * imported predictions (jsdom has no IndexedDB; the store itself is tested in test/unit/store, the real one in
 * the e2e).
 */
import { vi, type Mock } from 'vitest';
import type { PreparedFlips } from '../../../src/core/flips/analyze.ts';
import type { CollectionSummary } from '../../../src/worker/engine.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/app/settings.ts';
import type { AnswerInputs, AnswerInputsAccess } from '../../../src/app/state/kept-answers.ts';
import type { Lab } from '../../../src/app/state/lab.svelte.ts';
import type { StoredGold, StoredPredictions } from '../../../src/store/answer-inputs.ts';

export class FakeAnswerLabHost {
  settings: Settings = $state({ ...DEFAULT_SETTINGS });
  collection: CollectionSummary | null = $state.raw(null);
  collectionId: string | null = $state(null);
  prepared: PreparedFlips | null = $state.raw(null);
  queryTexts: Record<string, string> = $state.raw({});

  lab: {
    goldAnswers: Mock<() => Promise<Record<string, string[]>>>;
    parseGoldFile: Mock<(file: CollectionFile) => Promise<{ gold: Record<string, string[]>; warnings: string[] }>>;
    parsePredictionsFile: Mock<(file: CollectionFile) => Promise<Record<string, string>>>;
  } = {
    goldAnswers: vi.fn(async () => ({})),
    parseGoldFile: vi.fn(() => Promise.reject(new Error('parseGoldFile: not set up by the test'))),
    parsePredictionsFile: vi.fn(() => Promise.reject(new Error('parsePredictionsFile: not set up by the test'))),
  };
}

/** The fake as the `Lab` that `AnswerLab` and the panel are typed with. */
export function asLab(fake: FakeAnswerLabHost): Lab {
  return fake as unknown as Lab;
}

/** Gold files and predictions in maps, keyed as the IndexedDB store keys them. */
export class MemoryInputs implements AnswerInputs {
  // Plain maps: a store, never rendered.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly gold = new Map<string, StoredGold>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly predictions = new Map<string, StoredPredictions>();
  #key = (collectionId: string, run: string) => JSON.stringify([collectionId, run]);

  async putGold(record: StoredGold): Promise<void> {
    this.gold.set(record.collectionId, structuredClone(record));
  }
  async getGold(collectionId: string): Promise<StoredGold | undefined> {
    return this.gold.get(collectionId);
  }
  async deleteGold(collectionId: string): Promise<void> {
    this.gold.delete(collectionId);
  }
  async putPredictions(record: StoredPredictions): Promise<void> {
    this.predictions.set(this.#key(record.collectionId, record.run), structuredClone(record));
  }
  async predictionsOf(collectionId: string): Promise<StoredPredictions[]> {
    return [...this.predictions.values()].filter((p) => p.collectionId === collectionId);
  }
  async deletePredictions(collectionId: string, run: string): Promise<void> {
    this.predictions.delete(this.#key(collectionId, run));
  }

  readonly access: AnswerInputsAccess = (use) => use(this);
}
