/**
 * Embedding cache in IndexedDB (idb). Vectors are written batch by batch in their own transactions, so a
 * closed tab loses at most the batch in flight and re-opening resumes by skipping what is stored.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from './open-db.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncodingIdentity } from '../encoders/identity.ts';
import { formatBytes } from '../core/bytes.ts';

export { formatBytes };

export const DB_NAME = 'fliplab';
export const DB_VERSION = 1;

interface VectorRecord extends StoredVector {
  readonly encoding: string;
  readonly text: string;
}

export interface EncodingRecord {
  readonly encoding: string;
  readonly identity: EncodingIdentity;
  /** Device and model revision actually used, recorded with the vectors. */
  readonly device: string;
  readonly createdAt: number;
  count: number;
  bytes: number;
}

interface FliplabDB extends DBSchema {
  vectors: { key: [string, string]; value: VectorRecord; indexes: { byEncoding: string } };
  encodings: { key: string; value: EncodingRecord };
}

/** Thrown when the browser refuses to store more; everything committed before stays. */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';
  constructor(
    readonly neededBytes: number,
    readonly availableBytes: number | undefined,
    /** What was going on, in place of the encoder's wording (e.g. a pack import). */
    context?: string,
  ) {
    super(
      context ??
        `browser storage is full: storing these vectors needs about ` +
          `${formatBytes(neededBytes)}${availableBytes === undefined ? '' : ` and about ${formatBytes(availableBytes)} is free`}. ` +
          'Everything encoded so far is kept; free space (delete cached models or corpora) and resume.',
    );
  }
}

export function vectorBytes(v: StoredVector): number {
  return (v.dense?.byteLength ?? 0) + (v.sparse ? v.sparse.indices.byteLength + v.sparse.values.byteLength : 0) + 16;
}

const isQuotaError = (e: unknown): boolean => e instanceof Error && (e.name === 'QuotaExceededError' || /quota/i.test(e.message));

export class EmbeddingStore {
  private constructor(private readonly db: IDBPDatabase<FliplabDB>) {}

  static async open(name = DB_NAME): Promise<EmbeddingStore> {
    const db = await openStore<FliplabDB>(name, DB_VERSION, (db) => {
      const vectors = db.createObjectStore('vectors', { keyPath: ['encoding', 'text'] });
      vectors.createIndex('byEncoding', 'encoding');
      db.createObjectStore('encodings', { keyPath: 'encoding' });
    });
    return new EmbeddingStore(db);
  }

  close(): void {
    this.db.close();
  }

  /** Cached vectors for the given text hashes (undefined where missing), in input order. */
  async get(encoding: string, textKeys: readonly string[]): Promise<(StoredVector | undefined)[]> {
    const tx = this.db.transaction('vectors', 'readonly');
    const out = await Promise.all(textKeys.map((t) => tx.store.get([encoding, t])));
    await tx.done;
    return out;
  }

  /**
   * Commit one batch atomically, and account for it in the encoding's record. With `keepExisting`, vectors
   * already stored are left as they are (an imported pack adds, never replaces).
   */
  async put(
    identity: EncodingIdentity,
    encoding: string,
    device: string,
    entries: readonly { text: string; vector: StoredVector }[],
    options: { readonly keepExisting?: boolean } = {},
  ): Promise<void> {
    const bytes = entries.reduce((s, e) => s + vectorBytes(e.vector), 0);
    try {
      const tx = this.db.transaction(['vectors', 'encodings'], 'readwrite');
      const vectors = tx.objectStore('vectors');
      const encodings = tx.objectStore('encodings');
      let added = 0;
      let addedBytes = 0;
      for (const e of entries) {
        const key: [string, string] = [encoding, e.text];
        if ((await vectors.getKey(key)) === undefined) {
          added++;
          addedBytes += vectorBytes(e.vector);
        } else if (options.keepExisting) continue;
        await vectors.put({ encoding, text: e.text, ...e.vector });
      }
      const rec = (await encodings.get(encoding)) ?? { encoding, identity, device, createdAt: Date.now(), count: 0, bytes: 0 };
      rec.count += added;
      rec.bytes += addedBytes;
      await encodings.put(rec);
      await tx.done;
    } catch (e) {
      if (isQuotaError(e)) {
        const est = typeof navigator !== 'undefined' ? await navigator.storage?.estimate?.() : undefined;
        // Chromium lets usage pass the quota before refusing a write: never report a negative free space.
        throw new StorageFullError(
          bytes,
          est?.quota !== undefined && est.usage !== undefined ? Math.max(0, est.quota - est.usage) : undefined,
        );
      }
      throw e;
    }
  }

  async list(): Promise<EncodingRecord[]> {
    return this.db.getAll('encodings');
  }

  /** Delete one encoding's vectors and its record. */
  async delete(encoding: string): Promise<void> {
    const tx = this.db.transaction(['vectors', 'encodings'], 'readwrite');
    const index = tx.objectStore('vectors').index('byEncoding');
    for (let cursor = await index.openCursor(IDBKeyRange.only(encoding)); cursor; cursor = await cursor.continue()) {
      await cursor.delete();
    }
    await tx.objectStore('encodings').delete(encoding);
    await tx.done;
  }
}
