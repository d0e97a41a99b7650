/**
 * The judgments a user added, kept per collection in IndexedDB (idb): one record per collection holding its
 * layer in the order judged (core/io/judgments.ts `Judgment`: query, passage, grade, who, when). The layer is
 * written whole after each change — a few hundred judgments is a few kilobytes — so a reload finds exactly
 * what was on screen. A database of its own: clearing it never touches embeddings or answers, and no schema
 * migration couples them.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Judgment } from '../core/io/judgments.ts';

export const JUDGMENTS_DB_NAME = 'fliplab-judgments';
const DB_VERSION = 1;

export interface StoredJudgments {
  readonly collectionId: string;
  readonly judgments: readonly Judgment[];
  readonly savedAt: number;
}

interface JudgmentsDB extends DBSchema {
  layers: { key: string; value: StoredJudgments };
}

export class JudgmentStore {
  private constructor(private readonly db: IDBPDatabase<JudgmentsDB>) {}

  static async open(name: string = JUDGMENTS_DB_NAME): Promise<JudgmentStore> {
    const db = await openDB<JudgmentsDB>(name, DB_VERSION, {
      upgrade(d) {
        d.createObjectStore('layers', { keyPath: 'collectionId' });
      },
    });
    return new JudgmentStore(db);
  }

  /** The collection's layer (empty when none was kept). */
  async get(collectionId: string): Promise<Judgment[]> {
    return [...((await this.db.get('layers', collectionId))?.judgments ?? [])];
  }

  /** Replace the collection's layer; an empty one is deleted. */
  async put(collectionId: string, judgments: readonly Judgment[]): Promise<void> {
    if (judgments.length === 0) await this.db.delete('layers', collectionId);
    else await this.db.put('layers', { collectionId, judgments: [...judgments], savedAt: Date.now() });
  }

  /** Judgments kept per collection (the Storage panel's rows). */
  async summaries(): Promise<{ collectionId: string; judgments: number }[]> {
    return (await this.db.getAll('layers')).map((r) => ({ collectionId: r.collectionId, judgments: r.judgments.length }));
  }

  async clear(): Promise<void> {
    await this.db.clear('layers');
  }

  close(): void {
    this.db.close();
  }
}
