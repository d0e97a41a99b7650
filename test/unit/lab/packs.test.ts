/**
 * Vector packs in the lab, on IndexedDB (fake-indexeddb): an import stores the vectors under the encoders'
 * cache keys (so the encode job finds them with no model), never replaces what is stored, writes nothing
 * when the pack does not fit the collection, takes any recipe (a recipe run when no preset has it, found
 * again in the cache by its id), lets only a loadable model complete a pack, and export → import is the identity.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { encodingIdentity, encodingKey, textKeys } from '../../../src/encoders/identity.ts';
import { encodeWithCache, type LazyEncoder } from '../../../src/encoders/job.ts';
import { readPack, unzipPack, writePack, zipPack, type PackPart } from '../../../src/encoders/pack.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { exportPack, importPack, packFilesOf, storedRecipeConfig, type PackCollection } from '../../../src/worker/packs.ts';
import { encoderConfig, encoderRunId, recipeRunId } from '../../../src/lab/retriever-ids.ts';
import { EmbeddingStore } from '../../../src/store/embeddings.ts';

let db = 0;
const freshDb = () => `fliplab-packs-${db++}`;

const COLLECTION: PackCollection = {
  name: 'tiny',
  passages: { ids: ['d1', 'd2', 'd3'], texts: ['. alpha', 'Beta. beta text', 'Gamma. gamma'] },
  queries: { ids: ['q1', 'q2'], texts: ['what is alpha', 'beta?'] },
};
// The BGE recipe with another checkpoint, truncated: the lab names it "bge-large:org/tiny-max64".
const CONFIG: EncoderConfig = encoderConfig('bge-large', { model: 'org/tiny', maxLength: 64 });

const vec = (seed: number, dim = 4) => ({ dense: Float32Array.from({ length: dim }, (_, i) => Math.sin(seed * 7 + i)), tokens: seed });

async function part(rows: PackCollection['passages'], seed: number, dim = 4): Promise<PackPart> {
  return { ids: rows.ids, textKeys: await textKeys(rows.texts), vectors: rows.ids.map((_, i) => vec(seed + i, dim)) };
}

async function packOf(config: EncoderConfig, collection = COLLECTION, dim = 4) {
  const files = await writePack({
    config,
    device: 'cuda',
    tool: 'test',
    passages: await part(collection.passages, 1, dim),
    queries: await part(collection.queries, 100, dim),
  });
  return [{ path: 'pack.zip', bytes: zipPack(files) }];
}

const noModel = (config: EncoderConfig): LazyEncoder => ({
  config,
  dtype: config.dtype,
  load: () => Promise.reject(new Error('the model was loaded')),
});

describe('importing a vector pack', () => {
  it('stores passages and queries where the encode job finds them: the run needs no model', async () => {
    const dbName = freshDb();
    const progress: number[] = [];
    const result = await importPack(await packOf(CONFIG), COLLECTION, { dbName, onProgress: (d) => progress.push(d) });
    expect(encoderRunId(result.config)).toBe('bge-large:org/tiny-max64');
    expect(result).toMatchObject({ passages: 3, totalPassages: 3, queries: 2, totalQueries: 2, added: 5, device: 'cuda' });
    expect(progress.at(-1)).toBe(5);
    const store = await EmbeddingStore.open(dbName);
    try {
      const passages = await encodeWithCache(noModel(result.config), store, COLLECTION.passages.texts, { role: 'passage' });
      expect(Array.from(passages[1]!.dense!)).toEqual(Array.from(vec(2).dense));
      const queries = await encodeWithCache(noModel(result.config), store, COLLECTION.queries.texts, { role: 'query' });
      expect(Array.from(queries[0]!.dense!)).toEqual(Array.from(vec(100).dense));
      const records = await store.list();
      expect(records.map((r) => [r.identity.role, r.count, r.device]).sort()).toEqual([
        ['passage', 3, 'cuda'],
        ['query', 2, 'cuda'],
      ]);
    } finally {
      store.close();
    }
  });

  it('leaves vectors already stored as they are, and counts only what it added', async () => {
    const dbName = freshDb();
    const store = await EmbeddingStore.open(dbName);
    const identity = encodingIdentity(CONFIG, 'passage');
    const mine = { dense: Float32Array.of(9, 9, 9, 9), tokens: 1 };
    const [d1] = await textKeys([COLLECTION.passages.texts[0]!]);
    await store.put(identity, await encodingKey(identity), 'wasm', [{ text: d1!, vector: mine }]);
    store.close();
    const result = await importPack(await packOf(CONFIG), COLLECTION, { dbName });
    expect(result.added).toBe(4);
    const again = await EmbeddingStore.open(dbName);
    try {
      const [kept] = await again.get(await encodingKey(identity), [d1!]);
      expect(Array.from(kept!.dense!)).toEqual([9, 9, 9, 9]);
    } finally {
      again.close();
    }
  });

  it('writes nothing when the pack belongs to another corpus, or has another width than the stored vectors', async () => {
    const dbName = freshDb();
    const other: PackCollection = {
      ...COLLECTION,
      passages: { ids: ['d1', 'd2', 'd3'], texts: ['. alpha', 'Beta. edited', 'Gamma. gamma'] },
    };
    await expect(importPack(await packOf(CONFIG, other), COLLECTION, { dbName })).rejects.toThrow(
      /pack\.zip\/passages\.tsv:2: the text of passage "d2" differs from this collection's/,
    );
    const store = await EmbeddingStore.open(dbName);
    expect(await store.list()).toEqual([]);
    store.close();

    await importPack(await packOf(CONFIG), COLLECTION, { dbName });
    await expect(importPack(await packOf(CONFIG, COLLECTION, 6), COLLECTION, { dbName })).rejects.toThrow(
      /passages\.f32: wrong dimension: 6 values per vector, but this browser holds 4-dimensional vectors/,
    );
  });

  it("takes any recipe: mean pooling with no prefixes runs under its own name, with the pack's vectors and recipe", async () => {
    // What `fliplab encode --model org/tiny --pooling mean` writes: no preset pools by the mean without prefixes.
    const mean: EncoderConfig = { ...CONFIG, pooling: 'mean', queryPrefix: '', passagePrefix: '' };
    const dbName = freshDb();
    const result = await importPack(await packOf(mean), COLLECTION, { dbName });
    const { id: _i, label: _l, ...recipe } = mean;
    expect(result.config).toMatchObject(recipe);
    expect(encoderRunId(result.config)).toBe(recipeRunId(mean));
    expect(encoderRunId(result.config)).toMatch(/^pack:org\/tiny~[0-9a-f]{8}$/);
    expect(result).toMatchObject({ passages: 3, queries: 2, added: 5, missing: null });
    const store = await EmbeddingStore.open(dbName);
    try {
      const queries = await encodeWithCache(noModel(result.config), store, COLLECTION.queries.texts, { role: 'query' });
      expect(Array.from(queries[1]!.dense!)).toEqual(Array.from(vec(101).dense));
      const passages = await encodeWithCache(noModel(result.config), store, COLLECTION.passages.texts, { role: 'passage' });
      expect(Array.from(passages[2]!.dense!)).toEqual(Array.from(vec(3).dense));
    } finally {
      store.close();
    }
  });

  it("takes a recipe whose model is no model at all (an embedding API's name) when the pack has every vector", async () => {
    for (const model of ['my-company-embedder-v4', 'openai/text-embedding-3-small']) {
      const api: EncoderConfig = { ...PRESETS['e5-large'], model, revision: '2026-11', maxLength: 8191, queryPrefix: 'Query: ' };
      const dbName = freshDb();
      const result = await importPack(await packOf(api), COLLECTION, { dbName });
      expect(result.config).toMatchObject({ model, revision: '2026-11', queryPrefix: 'Query: ', maxLength: 8191, pooling: 'mean' });
      expect(encoderRunId(result.config)).toBe(recipeRunId(api));
      const store = await EmbeddingStore.open(dbName);
      try {
        const queries = await encodeWithCache(noModel(result.config), store, COLLECTION.queries.texts, { role: 'query' });
        expect(Array.from(queries[0]!.dense!)).toEqual(Array.from(vec(100).dense));
      } finally {
        store.close();
      }
    }
  });

  it('takes a preset-shaped recipe the preset form would refuse (a length below 8) as a recipe run', async () => {
    const short: EncoderConfig = { ...CONFIG, maxLength: 4 };
    const result = await importPack(await packOf(short), COLLECTION, { dbName: freshDb() });
    expect(result.config.maxLength).toBe(4);
    expect(encoderRunId(result.config)).toBe(recipeRunId(short));
  });

  it('lets only a model the lab can load complete a pack, and says what a pack of any other model must carry', async () => {
    const api: EncoderConfig = { ...CONFIG, model: 'my-company-embedder-v4', pooling: 'mean', queryPrefix: '' };
    const noQueries = async (config: EncoderConfig) => {
      const files = await writePack({ config, device: 'api', tool: 't', passages: await part(COLLECTION.passages, 1), queries: null });
      return [{ path: 'api.zip', bytes: zipPack(files) }];
    };
    const dbName = freshDb();
    await expect(importPack(await noQueries(api), COLLECTION, { dbName })).rejects.toThrow(
      /api\.zip\/manifest\.json: this pack has no vectors for 2 of 2 queries, and its model "my-company-embedder-v4" is not one the lab can load .* must carry its query vectors/,
    );
    const store = await EmbeddingStore.open(dbName);
    expect(await store.list()).toEqual([]);
    store.close();
    // Some queries and passages missing: both counted and named.
    const some = await writePack({
      config: api,
      device: 'api',
      tool: 't',
      passages: await part({ ids: ['d1'], texts: ['. alpha'] }, 1),
      queries: await part({ ids: ['q2'], texts: ['beta?'] }, 1),
    });
    await expect(importPack([{ path: 'api.zip', bytes: zipPack(some) }], COLLECTION, { dbName })).rejects.toThrow(
      /no vectors for 1 of 2 queries and 2 of 3 passages, .* must carry its query vectors and its passage vectors/,
    );
    // A repo id or a picked folder may complete it (the lab loads the model for what is missing).
    for (const model of ['org/tiny-mean', 'local/my folder']) {
      const result = await importPack(await noQueries({ ...api, model }), COLLECTION, { dbName: freshDb() });
      expect(result.missing).toBe('this pack has no vectors for 2 of 2 queries');
    }
  });

  it('finds a recipe run again in the cache after a reload, by its id alone', async () => {
    const dbName = freshDb();
    const a: EncoderConfig = { ...CONFIG, model: 'my-company-embedder-v4', pooling: 'mean', queryPrefix: '' };
    const b: EncoderConfig = { ...a, queryPrefix: 'search_query: ', passagePrefix: 'search_document: ' };
    const imported = [await importPack(await packOf(a), COLLECTION, { dbName }), await importPack(await packOf(b), COLLECTION, { dbName })];
    // A preset-named run in the same cache, to be passed over.
    await importPack(await packOf(CONFIG), COLLECTION, { dbName });
    for (const { config } of imported) {
      const found = await storedRecipeConfig(encoderRunId(config), { dbName });
      expect(found).toEqual(config);
    }
    expect(imported[0]!.config.id).not.toBe(imported[1]!.config.id);
    expect(await storedRecipeConfig(recipeRunId({ ...a, revision: 'other' }), { dbName })).toBeNull();
    expect(await storedRecipeConfig(encoderRunId(imported[0]!.config), { dbName: freshDb() })).toBeNull();
  });

  it('takes a folder of files (with its top folder) and refuses what is no pack', async () => {
    const files = unzipPack(
      zipPack(await writePack({ config: CONFIG, device: 'cpu', tool: 't', passages: null, queries: await part(COLLECTION.queries, 1) })),
      'x',
    );
    const folder = [...files].map(([name, bytes]) => ({ path: `my-pack/${name}`, bytes }));
    expect([...packFilesOf(folder).files.keys()].sort()).toEqual(['manifest.json', 'queries.f32', 'queries.tsv']);
    expect(packFilesOf(folder).where).toBe('my-pack');
    expect(() => packFilesOf([{ path: 'corpus.jsonl', bytes: new Uint8Array(1) }])).toThrow(/corpus\.jsonl: not a vector pack/);
  });
});

describe('exporting a vector pack', () => {
  it('writes every cached vector of the encoder; importing it elsewhere gives the same vectors', async () => {
    const from = freshDb();
    await importPack(await packOf(CONFIG), COLLECTION, { dbName: from });
    const zip = await exportPack(CONFIG, COLLECTION, { dbName: from, tool: 'lab' });
    const pack = await readPack(unzipPack(zip, 'export.zip'), 'export.zip');
    expect(pack.manifest).toMatchObject({ device: 'cuda', tool: 'lab', kind: 'dense', dim: 4 });
    expect(pack.passages!.ids).toEqual(['d1', 'd2', 'd3']);
    expect(Array.from(pack.queries!.vectors[1]!.dense!)).toEqual(Array.from(vec(101).dense));
    const to = freshDb();
    expect((await importPack([{ path: 'export.zip', bytes: zip }], COLLECTION, { dbName: to })).added).toBe(5);
  });

  it('says what is missing when the encoder has not finished', async () => {
    const dbName = freshDb();
    await importPack(await packOf(CONFIG, { ...COLLECTION, passages: { ids: ['d1'], texts: ['. alpha'] } }), COLLECTION, { dbName });
    await expect(exportPack(CONFIG, COLLECTION, { dbName, tool: 'lab' })).rejects.toThrow(/2 of 3 passages of tiny are not encoded yet/);
  });
});
