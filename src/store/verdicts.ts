/**
 * Model judges' verdicts in IndexedDB (idb), one record per (judge, query text, passage text), keyed as the
 * judge job keys them (encoders/judge-job.ts `judgmentKey`). Each batch is committed before the next starts, so
 * Cancel, a crash or a reload keeps every verdict made; a second visit judges nothing it judged before. A database
 * of its own: no schema migration couples it to the embeddings or the answers.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import type { JudgmentCache, JudgmentRecord } from '../encoders/judge-job.ts';
import { openStore } from './open-db.ts';

export const VERDICTS_DB_NAME = 'fliplab-verdicts';
const DB_VERSION = 1;

interface VerdictsDB extends DBSchema {
  verdicts: { key: string; value: JudgmentRecord; indexes: { byJudge: string } };
}

export class VerdictStore implements JudgmentCache {
  private constructor(private readonly db: IDBPDatabase<VerdictsDB>) {}

  static async open(name: string = VERDICTS_DB_NAME): Promise<VerdictStore> {
    const db = await openStore<VerdictsDB>(name, DB_VERSION, (d) => {
      const store = d.createObjectStore('verdicts', { keyPath: 'key' });
      store.createIndex('byJudge', 'judge');
    });
    return new VerdictStore(db);
  }

  async getMany(keys: readonly string[]): Promise<Map<string, JudgmentRecord>> {
    const tx = this.db.transaction('verdicts', 'readonly');
    const found = await Promise.all(keys.map((k) => tx.store.get(k)));
    await tx.done;
    const out = new Map<string, JudgmentRecord>();
    found.forEach((r, i) => {
      if (r !== undefined) out.set(keys[i]!, r);
    });
    return out;
  }

  /** One transaction per batch: all of it is stored, or none. */
  async putMany(records: readonly JudgmentRecord[]): Promise<void> {
    const tx = this.db.transaction('verdicts', 'readwrite');
    await Promise.all([...records.map((r) => tx.store.put(r)), tx.done]);
  }

  async count(): Promise<number> {
    return this.db.count('verdicts');
  }

  async clear(): Promise<void> {
    await this.db.clear('verdicts');
  }

  close(): void {
    this.db.close();
  }
}
