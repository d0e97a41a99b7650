/**
 * What the user loads at the answer level, kept in this browser per collection (src/store/answer-inputs.ts):
 * a gold file and each run's imported predictions, read back when the collection opens again, and announced
 * to the other tabs of the lab when they change.
 */
import { AnswerInputStore, type StoredGold, type StoredPredictions } from '../../store/answer-inputs.ts';
import { withStore } from '../../store/with-store.ts';
import { tabChannel, type TabChannel } from './tabs.ts';

/** The stored gold files and predictions as the lab uses them (IndexedDB; component tests pass their own). */
export type AnswerInputs = Pick<
  AnswerInputStore,
  'putGold' | 'getGold' | 'deleteGold' | 'putPredictions' | 'predictionsOf' | 'deletePredictions'
>;

/** Opens the store for one piece of work and closes it after (a connection held open would block a later schema upgrade). */
export type AnswerInputsAccess = <T>(use: (store: AnswerInputs) => Promise<T>) => Promise<T>;

const indexedDbInputs: AnswerInputsAccess = (use) => withStore(() => AnswerInputStore.open(), use);

export class KeptAnswers {
  readonly #inputs: AnswerInputsAccess;
  readonly #tabs: TabChannel;

  /** `changedElsewhere`: another tab kept a gold file or predictions for collection `id`. */
  constructor(inputs: AnswerInputsAccess | undefined, changedElsewhere: (id: string) => void) {
    this.#inputs = inputs ?? indexedDbInputs;
    this.#tabs = tabChannel((m) => {
      if (m.kind === 'answers') changedElsewhere(m.collectionId);
    });
  }

  /** What this browser kept for collection `id`. */
  read(id: string): Promise<{ readonly gold: StoredGold | undefined; readonly predictions: readonly StoredPredictions[] }> {
    return this.#inputs(async (s) => ({ gold: await s.getGold(id), predictions: await s.predictionsOf(id) }));
  }

  /** Keep a change for collection `id`, and tell the other tabs. */
  async keep(id: string, job: (s: AnswerInputs) => Promise<void>): Promise<void> {
    await this.#inputs(job);
    this.#tabs.post({ kind: 'answers', collectionId: id });
  }

  close(): void {
    this.#tabs.close();
  }
}
