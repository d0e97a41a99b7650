/**
 * The judgments a user added, kept per collection in IndexedDB (idb): one record per collection holding its
 * layer in the order judged (core/io/judgments.ts `Judgment`: query, passage, grade, who, when). A database
 * of its own: clearing it never touches embeddings or answers, and no schema migration couples them.
 *
 * Several tabs may judge the same collection at once. A change is therefore never a layer written whole from
 * what one tab holds: it is a list of edits per (query, passage) — add these judgments, drop every judgment
 * of these pairs — applied to the layer as stored, inside one read-write transaction (IndexedDB runs the
 * transactions of all tabs on a store one after another), and the tab takes back the layer that results,
 * with the other tabs' judgments in it.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from './open-db.ts';
import type { Judgment } from '../core/io/judgments.ts';

export const JUDGMENTS_DB_NAME = 'fliplab-judgments';
const DB_VERSION = 1;

/** One edit of a layer: add judgments (the last of a pair counts), or drop every judgment of some pairs. */
export type JudgmentEdit = { readonly add: readonly Judgment[] } | { readonly drop: readonly (readonly [qid: string, docid: string])[] };

/** The layer after `edits`, in order: drops remove a pair's judgments wherever they stand, adds go last. */
export function applyEdits(layer: readonly Judgment[], edits: readonly JudgmentEdit[]): Judgment[] {
  let out = [...layer];
  for (const e of edits) {
    if ('add' in e) out.push(...e.add);
    else {
      const gone = new Set(e.drop.map(([q, d]) => pairKey(q, d)));
      out = out.filter((j) => !gone.has(pairKey(j.qid, j.docid)));
    }
  }
  return out;
}

export const pairKey = (qid: string, docid: string): string => `${qid}\u0000${docid}`;

/** The last grade of each pair, by pairKey (the grade that counts). */
export function latestGrades(layer: readonly Judgment[]): ReadonlyMap<string, number> {
  return new Map(layer.map((j) => [pairKey(j.qid, j.docid), j.grade]));
}

/** The distinct (query, passage) pairs the judgments name, first appearance first. */
export function pairsOf(judgments: readonly Judgment[]): [qid: string, docid: string][] {
  return [...new Map(judgments.map((j) => [pairKey(j.qid, j.docid), [j.qid, j.docid] as [string, string]])).values()];
}

/** The judgments of these pairs, in layer order. */
export function judgmentsOfPairs(layer: readonly Judgment[], pairs: readonly (readonly [string, string])[]): Judgment[] {
  const keys = new Set(pairs.map(([q, d]) => pairKey(q, d)));
  return layer.filter((j) => keys.has(pairKey(j.qid, j.docid)));
}

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
    const db = await openStore<JudgmentsDB>(name, DB_VERSION, (d) => {
      d.createObjectStore('layers', { keyPath: 'collectionId' });
    });
    return new JudgmentStore(db);
  }

  /** The collection's layer (empty when none was kept). */
  async get(collectionId: string): Promise<Judgment[]> {
    return [...((await this.db.get('layers', collectionId))?.judgments ?? [])];
  }

  /**
   * Apply `edits` to the collection's layer as stored now (other tabs' judgments included), in one
   * transaction; returns the layer that results. An empty layer is deleted.
   */
  async update(collectionId: string, edits: readonly JudgmentEdit[]): Promise<Judgment[]> {
    const tx = this.db.transaction('layers', 'readwrite');
    const stored = await tx.store.get(collectionId);
    const next = applyEdits(stored?.judgments ?? [], edits);
    if (next.length === 0) await tx.store.delete(collectionId);
    else await tx.store.put({ collectionId, judgments: next, savedAt: Date.now() });
    await tx.done;
    return next;
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
