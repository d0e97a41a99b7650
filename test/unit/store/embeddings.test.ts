import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { EmbeddingStore, StorageFullError } from '../../../src/store/embeddings.ts';
import { encodingIdentity, encodingKey, textKeys, type EncodingIdentity } from '../../../src/encoders/identity.ts';
import { PRESETS } from '../../../src/encoders/presets.ts';

let dbCounter = 0;
const freshStore = () => EmbeddingStore.open(`fliplab-test-${dbCounter++}`);

describe('encoding keys', () => {
  const base = encodingIdentity(PRESETS['e5-large'], 'passage');

  it.each<[string, Partial<EncodingIdentity>]>([
    ['model', { model: 'intfloat/e5-large-v2-other' }],
    ['revision', { revision: 'abc123' }],
    ['dtype', { dtype: 'q8' }],
    ['pooling', { pooling: 'cls' }],
    ['normalization', { normalize: false }],
    ['prefix', { prefix: 'query: ' }],
    ['max length', { maxLength: 256 }],
    ['sparse cutoff', { sparseTopK: 128 }],
    ['role', { role: 'query' }],
  ])('a different %s is a different key', async (_, change) => {
    expect(await encodingKey({ ...base, ...change })).not.toBe(await encodingKey(base));
  });

  it('is stable for the same identity and differs between query and passage prefixes', async () => {
    expect(await encodingKey(base)).toBe(await encodingKey({ ...base }));
    const q = encodingIdentity(PRESETS['e5-large'], 'query');
    expect(q.prefix).toBe('query: ');
    expect(base.prefix).toBe('passage: ');
  });

  it('hashes texts, so the same passage text shares a key and any edit misses', async () => {
    const [a, b, c] = await textKeys(['same text', 'same text', 'same text.']);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('EmbeddingStore (IndexedDB)', () => {
  const identity = encodingIdentity(PRESETS['bge-small'], 'passage');

  it('stores dense and sparse vectors and reads them back; misses are undefined', async () => {
    const store = await freshStore();
    const enc = await encodingKey(identity);
    const [t1, t2, t3] = await textKeys(['one', 'two', 'three']);
    await store.put(identity, enc, 'wasm', [
      { text: t1!, vector: { dense: Float32Array.from([0.6, 0.8]), tokens: 3 } },
      { text: t2!, vector: { sparse: { indices: Uint32Array.from([3, 9]), values: Float32Array.from([1.5, 0.25]) }, tokens: 4 } },
    ]);
    const [v1, v2, v3] = await store.get(enc, [t1!, t2!, t3!]);
    expect(ArrayBuffer.isView(v1!.dense)).toBe(true);
    expect(Array.from(v1!.dense!)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(v2!.sparse!.indices)).toEqual([3, 9]);
    expect(v3).toBeUndefined();
    // Another encoding never sees these vectors.
    const other = await encodingKey({ ...identity, dtype: 'q8' });
    expect(await store.get(other, [t1!])).toEqual([undefined]);
    store.close();
  });

  it('accounts counts and bytes per encoding, without double counting re-puts, and deletes', async () => {
    const store = await freshStore();
    const enc = await encodingKey(identity);
    const [t1, t2] = await textKeys(['a', 'b']);
    const vector = { dense: new Float32Array(4), tokens: 1 };
    await store.put(identity, enc, 'webgpu', [{ text: t1!, vector }]);
    await store.put(identity, enc, 'webgpu', [
      { text: t1!, vector },
      { text: t2!, vector },
    ]);
    const [rec] = await store.list();
    expect(rec).toMatchObject({ encoding: enc, device: 'webgpu', count: 2, bytes: 2 * (16 + 16) });
    await store.delete(enc);
    expect(await store.list()).toEqual([]);
    expect(await store.get(enc, [t1!, t2!])).toEqual([undefined, undefined]);
    store.close();
  });

  it('turns a quota error into StorageFullError naming the size, keeping earlier batches', async () => {
    const store = await freshStore();
    const enc = await encodingKey(identity);
    const [t1, t2] = await textKeys(['kept', 'refused']);
    await store.put(identity, enc, 'wasm', [{ text: t1!, vector: { dense: new Float32Array(8), tokens: 1 } }]);
    // fake-indexeddb has no quota: make the next write fail the way a full browser store does.
    const original = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
    try {
      const err = await store
        .put(identity, enc, 'wasm', [{ text: t2!, vector: { dense: new Float32Array(1024), tokens: 1 } }])
        .catch((e) => e);
      expect(err).toBeInstanceOf(StorageFullError);
      expect((err as StorageFullError).message).toMatch(/needs about 4\.0 KiB.*Everything encoded so far is kept/);
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    const [kept, refused] = await store.get(enc, [t1!, t2!]);
    expect(kept).toBeDefined();
    expect(refused).toBeUndefined();
    store.close();
  });
});
