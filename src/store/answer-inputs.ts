/**
 * What the user gave the answer level, kept per collection in IndexedDB (idb) so a reload or a second visit
 * finds it again: a loaded gold-answers file (one per collection: the last one loaded) and each run's
 * imported predictions (one per collection and run name). Stored parsed (what the lab uses), with the file's
 * name as their source. Gold riding in a collection's own queries is not stored here: it comes with the
 * collection. A database of its own, apart from the reader's answer cache (`answers.ts`): clearing one never
 * touches the other, and no schema migration couples them.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from './open-db.ts';

export const ANSWER_INPUTS_DB_NAME = 'fliplab-answer-inputs';
const DB_VERSION = 1;

export interface StoredGold {
  readonly collectionId: string;
  /** The file's name, as the panel shows it. */
  readonly source: string;
  readonly gold: Readonly<Record<string, readonly string[]>>;
  readonly savedAt: number;
}

export interface StoredPredictions {
  readonly collectionId: string;
  readonly run: string;
  /** The depth the predictions were imported for (they answer that run's top k). */
  readonly k: number;
  readonly source: string;
  readonly predictions: Readonly<Record<string, string>>;
  readonly savedAt: number;
}

/** One collection's stored inputs, without their contents (the Storage panel's row). */
export interface StoredInputsSummary {
  readonly collectionId: string;
  readonly gold: { readonly source: string; readonly queries: number } | null;
  readonly predictions: readonly { readonly run: string; readonly source: string; readonly k: number; readonly count: number }[];
}

interface AnswerInputsDB extends DBSchema {
  gold: { key: string; value: StoredGold };
  predictions: { key: [string, string]; value: StoredPredictions; indexes: { byCollection: string } };
}

export class AnswerInputStore {
  private constructor(private readonly db: IDBPDatabase<AnswerInputsDB>) {}

  static async open(name: string = ANSWER_INPUTS_DB_NAME): Promise<AnswerInputStore> {
    const db = await openStore<AnswerInputsDB>(name, DB_VERSION, (d) => {
      d.createObjectStore('gold', { keyPath: 'collectionId' });
      d.createObjectStore('predictions', { keyPath: ['collectionId', 'run'] }).createIndex('byCollection', 'collectionId');
    });
    return new AnswerInputStore(db);
  }

  /** Store (or replace) the collection's gold file. */
  async putGold(record: StoredGold): Promise<void> {
    await this.db.put('gold', record);
  }

  async getGold(collectionId: string): Promise<StoredGold | undefined> {
    return this.db.get('gold', collectionId);
  }

  async deleteGold(collectionId: string): Promise<void> {
    await this.db.delete('gold', collectionId);
  }

  /** Store (or replace) one run's imported predictions. */
  async putPredictions(record: StoredPredictions): Promise<void> {
    await this.db.put('predictions', record);
  }

  /** Every run's imported predictions for a collection, by run name. */
  async predictionsOf(collectionId: string): Promise<StoredPredictions[]> {
    const all = await this.db.getAllFromIndex('predictions', 'byCollection', collectionId);
    return all.sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0));
  }

  async deletePredictions(collectionId: string, run: string): Promise<void> {
    await this.db.delete('predictions', [collectionId, run]);
  }

  /** What is stored, per collection (sorted by id), with counts instead of contents. */
  async summaries(): Promise<StoredInputsSummary[]> {
    const tx = this.db.transaction(['gold', 'predictions'], 'readonly');
    const [golds, predictions] = await Promise.all([tx.objectStore('gold').getAll(), tx.objectStore('predictions').getAll(), tx.done]);
    const byId = new Map<string, { gold: StoredInputsSummary['gold']; predictions: StoredInputsSummary['predictions'][number][] }>();
    const entry = (id: string) => {
      let e = byId.get(id);
      if (e === undefined) byId.set(id, (e = { gold: null, predictions: [] }));
      return e;
    };
    for (const g of golds) entry(g.collectionId).gold = { source: g.source, queries: Object.keys(g.gold).length };
    for (const p of predictions)
      entry(p.collectionId).predictions.push({ run: p.run, source: p.source, k: p.k, count: Object.keys(p.predictions).length });
    return [...byId]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([collectionId, e]) => ({ collectionId, gold: e.gold, predictions: e.predictions }));
  }

  /** Delete a collection's gold file and every run's predictions, in one transaction. */
  async deleteCollection(collectionId: string): Promise<void> {
    const tx = this.db.transaction(['gold', 'predictions'], 'readwrite');
    const predictions = tx.objectStore('predictions');
    const keys = await predictions.index('byCollection').getAllKeys(collectionId);
    await Promise.all([tx.objectStore('gold').delete(collectionId), ...keys.map((k) => predictions.delete(k)), tx.done]);
  }

  async clear(): Promise<void> {
    const tx = this.db.transaction(['gold', 'predictions'], 'readwrite');
    await Promise.all([tx.objectStore('gold').clear(), tx.objectStore('predictions').clear(), tx.done]);
  }

  close(): void {
    this.db.close();
  }
}
