/**
 * IndexedDB store of collections (idb), so a catalog set is downloaded once and an upload survives a
 * reload. Two object stores: `meta` (CollectionMeta, listed without touching the bytes) and `files`
 * (the CollectionFile[] of one collection, keyed by the same id). A put replaces both in one
 * transaction. Works in windows and workers (and in Node tests over fake-indexeddb).
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from '../../store/open-db.ts';
import { sha256Hex } from '../../core/sha256.ts';
import { catalogId } from './catalog.ts';
import type { CollectionFile, CollectionMeta, CollectionSource } from './types.ts';
import { fileSize } from './bytes.ts';

export const DEFAULT_COLLECTIONS_DB = 'fliplab-collections';
const VERSION = 1;

interface CollectionsSchema extends DBSchema {
  meta: { key: string; value: CollectionMeta };
  files: { key: string; value: { id: string; files: CollectionFile[] } };
}

/** Meta for a set of files (sizes and total from the bytes). */
export function collectionMeta(
  id: string,
  name: string,
  source: CollectionSource,
  files: readonly CollectionFile[],
  addedAt = Date.now(),
): CollectionMeta {
  const list = files.map((f) => ({ path: f.path, bytes: fileSize(f) }));
  return { id, name, source, files: list, totalBytes: list.reduce((s, f) => s + f.bytes, 0), addedAt };
}

/** First 8 hex digits of the SHA-256 of every path and its bytes (order-independent). */
export async function filesHash(files: readonly CollectionFile[]): Promise<string> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const enc = new TextEncoder();
  let size = 0;
  const parts: Uint8Array[] = [];
  for (const f of sorted) {
    // A large file (a Blob) is identified by its path, size and first bytes: hashing gigabytes to name a collection is not worth it.
    const head = enc.encode(`${f.path}\u0000${fileSize(f)}\u0000`);
    parts.push(head, f.bytes);
    size += head.length + f.bytes.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return (await sha256Hex(all)).slice(0, 8);
}

/** `files:<name>-<short hash>`: the same files under the same name get the same id. */
export async function uploadId(name: string, files: readonly CollectionFile[]): Promise<string> {
  const slug =
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'collection';
  return `files:${slug}-${await filesHash(files)}`;
}

export { catalogId };

export class CollectionStore {
  #db: Promise<IDBPDatabase<CollectionsSchema>> | null = null;

  constructor(readonly dbName: string = DEFAULT_COLLECTIONS_DB) {}

  #open(): Promise<IDBPDatabase<CollectionsSchema>> {
    this.#db ??= openStore<CollectionsSchema>(
      this.dbName,
      VERSION,
      (db) => {
        if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta', { keyPath: 'id' });
        if (!db.objectStoreNames.contains('files')) db.createObjectStore('files', { keyPath: 'id' });
      },
      () => (this.#db = null),
    );
    this.#db.catch(() => (this.#db = null)); // a refused open is tried afresh next time
    return this.#db;
  }

  /** Every stored collection, oldest first. */
  async list(): Promise<CollectionMeta[]> {
    const all = await (await this.#open()).getAll('meta');
    return all.sort((a, b) => a.addedAt - b.addedAt || (a.id < b.id ? -1 : 1));
  }

  async meta(id: string): Promise<CollectionMeta | undefined> {
    return (await this.#open()).get('meta', id);
  }

  /** The stored files of a collection, or undefined when there is none with this id. */
  async get(id: string): Promise<CollectionFile[] | undefined> {
    return (await (await this.#open()).get('files', id))?.files;
  }

  async has(id: string): Promise<boolean> {
    return (await (await this.#open()).getKey('meta', id)) !== undefined;
  }

  /**
   * Store (or replace) a collection. `meta.files`/`totalBytes` are recomputed from `files`; the last use is kept
   * from the stored meta unless given.
   */
  async put(
    meta: Pick<CollectionMeta, 'id' | 'name' | 'source'> & Partial<Pick<CollectionMeta, 'addedAt' | 'lastUsed'>>,
    files: readonly CollectionFile[],
  ): Promise<CollectionMeta> {
    const db = await this.#open();
    const lastUsed = meta.lastUsed ?? (await db.get('meta', meta.id))?.lastUsed;
    const full = {
      ...collectionMeta(meta.id, meta.name, meta.source, files, meta.addedAt ?? Date.now()),
      ...(lastUsed === undefined ? {} : { lastUsed }),
    };
    const tx = db.transaction(['meta', 'files'], 'readwrite');
    await Promise.all([
      tx.objectStore('files').put({
        id: meta.id,
        files: files.map((f) => (f.blob === undefined ? { path: f.path, bytes: f.bytes } : { path: f.path, bytes: f.bytes, blob: f.blob })),
      }),
      tx.objectStore('meta').put(full),
      tx.done,
    ]);
    return full;
  }

  /** Record that the collection was opened now (nothing when it is not stored). */
  async touch(id: string, at = Date.now()): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction('meta', 'readwrite');
    const meta = await tx.store.get(id);
    if (meta) await tx.store.put({ ...meta, lastUsed: at });
    await tx.done;
  }

  async delete(id: string): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction(['meta', 'files'], 'readwrite');
    await Promise.all([tx.objectStore('meta').delete(id), tx.objectStore('files').delete(id), tx.done]);
  }

  close(): void {
    void this.#db?.then((db) => db.close());
    this.#db = null;
  }
}
