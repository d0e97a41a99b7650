import { describe, expect, it } from 'vitest';
import { StorageFullError } from '../../../src/store/embeddings.ts';
import { ensureSpace, estimateVectorBytes, QUOTA_SAFETY_FACTOR, type StorageManagerLike } from '../../../src/store/quota.ts';

function storage(quota: number, usage: number, grantPersist = true) {
  const calls: string[] = [];
  const s: StorageManagerLike = {
    estimate: async () => (calls.push('estimate'), { quota, usage }),
    persisted: async () => (calls.push('persisted'), false),
    persist: async () => (calls.push('persist'), grantPersist),
  };
  return { s, calls };
}

describe('ensureSpace', () => {
  it('asks for persistence, then passes when the job fits with head-room', async () => {
    const { s, calls } = storage(1_000_000, 100_000);
    const need = Math.floor(900_000 / QUOTA_SAFETY_FACTOR);
    await expect(ensureSpace(need, s)).resolves.toEqual({ persisted: true, available: 900_000 });
    expect(calls).toEqual(['persisted', 'persist', 'estimate']);
  });

  it('fails up front with both numbers when it does not fit', async () => {
    const { s } = storage(1_000_000, 900_000, false);
    const err = await ensureSpace(500_000, s).catch((e) => e);
    expect(err).toBeInstanceOf(StorageFullError);
    expect(err).toMatchObject({ neededBytes: 500_000, availableBytes: 100_000 });
    expect(err.message).toMatch(/needs about 488 KiB and about 98 KiB is free/);
  });

  it('does nothing where there is no storage manager (Node)', async () => {
    await expect(ensureSpace(1e12, undefined)).resolves.toEqual({ persisted: false, available: undefined });
  });

  it('estimates a BGE-large corpus: 57,638 × 1024 floats plus record overhead', () => {
    expect(estimateVectorBytes(57_638, { dense: 1024 })).toBe(57_638 * (4096 + 160));
    expect(estimateVectorBytes(10, { sparseNonZeros: 256 })).toBe(10 * (2048 + 160));
  });
});
