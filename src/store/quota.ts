/**
 * Before a large job: ask the browser to keep our data (persistent storage is not evicted under pressure)
 * and check the quota, so a job that cannot fit fails up front with the numbers instead of halfway.
 */
import { StorageFullError } from './embeddings.ts';

/** The slice of `navigator.storage` this needs (injectable for tests and for Node, where it is absent). */
export interface StorageManagerLike {
  estimate(): Promise<{ quota?: number; usage?: number }>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

/** Head-room kept free: IndexedDB stores values with overhead and the browser needs space of its own. */
export const QUOTA_SAFETY_FACTOR = 1.2;

/** Bytes IndexedDB will need for `count` vectors (vectors plus per-record key/overhead). */
export function estimateVectorBytes(count: number, shape: { dense: number } | { sparseNonZeros: number }): number {
  const RECORD_OVERHEAD_BYTES = 160; // two 64-hex keys, structure, index entry
  const payload = 'dense' in shape ? shape.dense * 4 : shape.sparseNonZeros * 8;
  return count * (payload + RECORD_OVERHEAD_BYTES);
}

export interface SpaceCheck {
  readonly persisted: boolean;
  /** Bytes still available under the quota, when the browser says. */
  readonly available: number | undefined;
}

export async function ensureSpace(
  neededBytes: number,
  storage: StorageManagerLike | undefined = globalThis.navigator?.storage,
): Promise<SpaceCheck> {
  if (!storage) return { persisted: false, available: undefined };
  let persisted = (await storage.persisted?.()) ?? false;
  if (!persisted && storage.persist) persisted = await storage.persist().catch(() => false);
  const { quota, usage } = await storage.estimate();
  const available = quota !== undefined && usage !== undefined ? Math.max(0, quota - usage) : undefined;
  if (available !== undefined && neededBytes * QUOTA_SAFETY_FACTOR > available) throw new StorageFullError(neededBytes, available);
  return { persisted, available };
}
