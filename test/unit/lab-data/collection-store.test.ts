/**
 * The IndexedDB collection store over fake-indexeddb (node environment): put/list/get/delete, sizes in
 * the meta, replacement on a second put, separate databases by name, and the id helpers.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { CollectionStore, catalogId, collectionMeta, uploadId } from '../../../src/lab/data/collection-store.ts';

const enc = new TextEncoder();
const files = [
  { path: 'corpus.jsonl', bytes: enc.encode('{"_id":"d1","text":"a"}\n') },
  { path: 'qrels/test.tsv', bytes: new Uint8Array([1, 2, 3, 250]) },
];

describe('CollectionStore', () => {
  it('puts, lists, gets and deletes collections', async () => {
    const store = new CollectionStore('test-store-1');
    expect(await store.list()).toEqual([]);
    const meta = await store.put({ id: 'beir:scifact', name: 'SciFact', source: 'catalog', addedAt: 2000 }, files);
    await store.put({ id: 'files:mine-00000000', name: 'mine', source: 'files', addedAt: 1000 }, files.slice(0, 1));
    expect(meta).toEqual({
      id: 'beir:scifact',
      name: 'SciFact',
      source: 'catalog',
      files: [
        { path: 'corpus.jsonl', bytes: files[0]!.bytes.length },
        { path: 'qrels/test.tsv', bytes: 4 },
      ],
      totalBytes: files[0]!.bytes.length + 4,
      addedAt: 2000,
    });
    expect((await store.list()).map((m) => m.id)).toEqual(['files:mine-00000000', 'beir:scifact']);
    const got = await store.get('beir:scifact');
    expect(got?.map((f) => f.path)).toEqual(['corpus.jsonl', 'qrels/test.tsv']);
    expect(Array.from(got![1]!.bytes)).toEqual([1, 2, 3, 250]);
    expect(new TextDecoder().decode(got![0]!.bytes)).toBe('{"_id":"d1","text":"a"}\n');
    expect(await store.has('beir:scifact')).toBe(true);

    await store.put({ id: 'beir:scifact', name: 'SciFact', source: 'catalog', addedAt: 3000 }, files.slice(1));
    expect((await store.get('beir:scifact'))?.map((f) => f.path)).toEqual(['qrels/test.tsv']);
    expect((await store.meta('beir:scifact'))?.totalBytes).toBe(4);

    await store.delete('beir:scifact');
    expect(await store.get('beir:scifact')).toBeUndefined();
    expect(await store.has('beir:scifact')).toBe(false);
    expect((await store.list()).map((m) => m.id)).toEqual(['files:mine-00000000']);
    store.close();
  });

  it("keeps each collection's last use: touch sets it, a put keeps it, an unknown id is left alone", async () => {
    const store = new CollectionStore('test-store-used');
    await store.put({ id: 'x', name: 'x', source: 'files', addedAt: 1000 }, files);
    expect((await store.meta('x'))?.lastUsed).toBeUndefined();
    await store.touch('x', 5000);
    expect((await store.meta('x'))?.lastUsed).toBe(5000);
    await store.put({ id: 'x', name: 'x', source: 'files', addedAt: 1000 }, files.slice(1));
    expect(await store.meta('x')).toMatchObject({ lastUsed: 5000, totalBytes: 4 });
    await store.put({ id: 'x', name: 'x', source: 'files', addedAt: 1000, lastUsed: 7000 }, files);
    expect((await store.meta('x'))?.lastUsed).toBe(7000);
    await store.touch('nothing', 9000);
    expect(await store.has('nothing')).toBe(false);
    store.close();
  });

  it('keeps databases apart by name', async () => {
    const a = new CollectionStore('test-store-a');
    const b = new CollectionStore('test-store-b');
    await a.put({ id: 'x', name: 'x', source: 'files' }, files);
    expect(await b.list()).toEqual([]);
    expect(a.dbName).toBe('test-store-a');
    expect(new CollectionStore().dbName).toBe('fliplab-collections');
  });
});

describe('collection ids', () => {
  it('beir:<name> for catalog sets; files:<slug>-<8 hex> for uploads, stable and content-dependent', async () => {
    expect(catalogId('scifact')).toBe('beir:scifact');
    const id = await uploadId('My Set!', files);
    expect(id).toMatch(/^files:my-set-[0-9a-f]{8}$/);
    expect(await uploadId('My Set!', [...files].reverse())).toBe(id);
    expect(await uploadId('My Set!', [files[0]!, { path: 'qrels/test.tsv', bytes: new Uint8Array([1, 2, 3, 251]) }])).not.toBe(id);
    expect(collectionMeta('i', 'n', 'files', files, 5).totalBytes).toBe(files[0]!.bytes.length + 4);
  });
});
