/**
 * Reader answers in IndexedDB (idb), one record per answer, keyed by everything the answer depends on
 * (core/answers/prompt.ts `answerKey`: model, revision, dtype, template name, k, passage ids, question).
 * Each answer is committed as soon as it exists, so a reload mid-generation loses at most the question in
 * flight and the next run starts where this one stopped. A separate database from the embeddings: no
 * schema migration couples the two.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

export const ANSWERS_DB_NAME = 'fliplab-answers';
const DB_VERSION = 1;

export interface AnswerRecord {
  readonly key: string;
  readonly queryId: string;
  readonly prediction: string;
  readonly model: string;
  readonly revision: string;
  readonly dtype: string;
  readonly template: string;
  readonly k: number;
  readonly passageIds: readonly string[];
  readonly question: string;
  /** Device that generated it (recorded, not part of the key: greedy decoding gives the same tokens). */
  readonly device: string;
  readonly newTokens: number;
  readonly createdAt: number;
}

interface AnswersDB extends DBSchema {
  answers: { key: string; value: AnswerRecord; indexes: { byModel: string } };
}

export class AnswerStore {
  private constructor(private readonly db: IDBPDatabase<AnswersDB>) {}

  static async open(name: string = ANSWERS_DB_NAME): Promise<AnswerStore> {
    const db = await openDB<AnswersDB>(name, DB_VERSION, {
      upgrade(d) {
        const store = d.createObjectStore('answers', { keyPath: 'key' });
        store.createIndex('byModel', 'model');
      },
    });
    return new AnswerStore(db);
  }

  /** The stored answers among `keys` (missing keys are absent from the map). */
  async getMany(keys: readonly string[]): Promise<Map<string, AnswerRecord>> {
    const tx = this.db.transaction('answers', 'readonly');
    const found = await Promise.all(keys.map((k) => tx.store.get(k)));
    await tx.done;
    const out = new Map<string, AnswerRecord>();
    found.forEach((r, i) => {
      if (r !== undefined) out.set(keys[i] as string, r);
    });
    return out;
  }

  async put(record: AnswerRecord): Promise<void> {
    await this.db.put('answers', record);
  }

  async count(): Promise<number> {
    return this.db.count('answers');
  }

  /** Delete every stored answer (Storage panel). */
  async clear(): Promise<void> {
    await this.db.clear('answers');
  }

  close(): void {
    this.db.close();
  }
}
