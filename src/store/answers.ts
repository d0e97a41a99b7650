/**
 * Reader answers in IndexedDB (idb), one record per answer, keyed by everything the answer depends on
 * (core/answers/prompt.ts `answerKey`: model, revision, dtype, template name, k, passage ids, question).
 * Each answer is committed as soon as it exists, so a reload mid-generation loses at most the question in
 * flight and the next run starts where this one stopped. A separate database from the embeddings: no
 * schema migration couples the two. The record is the answer job's `AnswerRecord`, the one shape the CLI's
 * answers file maps its lines to as well.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from './open-db.ts';
import type { AnswerCache, AnswerRecord } from '../encoders/answer-job.ts';

export type { AnswerRecord };

export const ANSWERS_DB_NAME = 'fliplab-answers';
/** Version 1 stores `AnswerRecord` as the answer job makes it (device, newTokens and createdAt always set). */
const DB_VERSION = 1;

interface AnswersDB extends DBSchema {
  answers: { key: string; value: AnswerRecord; indexes: { byModel: string } };
}

/** The lab's answer cache (`answerWithCache` in src/encoders/answer-job.ts). */
export class AnswerStore implements AnswerCache {
  private constructor(private readonly db: IDBPDatabase<AnswersDB>) {}

  static async open(name: string = ANSWERS_DB_NAME): Promise<AnswerStore> {
    const db = await openStore<AnswersDB>(name, DB_VERSION, (d) => {
      const store = d.createObjectStore('answers', { keyPath: 'key' });
      store.createIndex('byModel', 'model');
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
