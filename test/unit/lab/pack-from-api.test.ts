/**
 * docs/vector-packs.md, "Writing a pack from an embedding API": a pack built file by file the way that Python
 * writes it (no fliplab code: the same fields, hashes and bytes, by hand) is read, matched and imported by
 * the lab, named as a recipe run, and ranks with its own query vectors and no model. The doc's script must
 * write exactly the fields this builder writes.
 */
import 'fake-indexeddb/auto';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeWithCache, type LazyEncoder } from '../../../src/encoders/job.ts';
import { readPack } from '../../../src/encoders/pack.ts';
import { importPack, storedRecipeConfig, type PackCollection } from '../../../src/worker/packs.ts';
import { encoderRunId, isRecipeRunId } from '../../../src/lab/retriever-ids.ts';
import { EmbeddingStore } from '../../../src/store/embeddings.ts';

const DOC = readFileSync(new URL('../../../docs/vector-packs.md', import.meta.url), 'utf8');

/** The doc's Python for an embedding API's vectors. */
function apiExample(): string {
  const from = DOC.indexOf('## Writing a pack from an embedding API');
  expect(from).toBeGreaterThan(0);
  const start = DOC.indexOf('```python', from);
  return DOC.slice(start, DOC.indexOf('```', start + 9));
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const COLLECTION: PackCollection = {
  name: 'tiny',
  passages: { ids: ['d1', 'd2', 'd3'], texts: ['. alpha', 'Beta. beta text', 'Gamma. gamma'] },
  queries: { ids: ['q1', 'q2'], texts: ['what is alpha', 'beta?'] },
};

// "What the API returned", one list of floats per text, as the doc's `embed` gives them.
const API_PASSAGES = [
  [0.6, 0.8, 0],
  [0, 0.6, 0.8],
  [0.8, 0, 0.6],
];
const API_QUERIES = [
  [0.8, 0, 0.6],
  [0.1, 0.7, 0.7],
];

/** The pack's files exactly as the doc's Python writes them. */
function packLikeTheDoc(queries: readonly (readonly number[])[] | null = API_QUERIES): { path: string; bytes: Uint8Array }[] {
  const recipe = {
    model: 'my-company-embedder-v4',
    revision: '2026-11-01',
    dtype: 'fp32',
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxLength: 8192,
    sparseTopK: null,
  };
  const key = (role: 'passage' | 'query') => {
    const prefix = role === 'query' ? recipe.queryPrefix : recipe.passagePrefix;
    const fields = [
      recipe.model,
      recipe.revision,
      recipe.dtype,
      recipe.pooling,
      recipe.normalize,
      prefix,
      recipe.maxLength,
      recipe.sparseTopK,
      role,
    ];
    return sha(JSON.stringify(fields)).slice(0, 32);
  };
  const manifest: Record<string, unknown> = {
    format: 'fliplab-vectors',
    version: 2,
    encoder: recipe,
    kind: 'dense',
    valueType: 'float32',
    device: 'api',
    created: '2026-12-02T00:00:00Z',
    tool: 'my-company-embedder API',
  };
  const files: { path: string; bytes: Uint8Array }[] = [];
  type Part = readonly ['passages' | 'queries', 'passage' | 'query', PackCollection['passages'], readonly (readonly number[])[]];
  const parts: Part[] = [['passages', 'passage', COLLECTION.passages, API_PASSAGES]];
  if (queries) parts.push(['queries', 'query', COLLECTION.queries, queries]);
  else manifest.queries = null; // "Either part may be absent": written as null
  for (const [part, role, rows, vectors] of parts) {
    const dim = vectors[0]!.length;
    const f32 = new DataView(new ArrayBuffer(vectors.length * dim * 4));
    vectors.flat().forEach((x, i) => f32.setFloat32(i * 4, x, true)); // little-endian, row after row
    const tsv = rows.ids.map((id, i) => `${id}\t${sha(rows.texts[i]!)}\n`).join('');
    files.push({ path: `api-pack/${part}.f32`, bytes: new Uint8Array(f32.buffer) });
    files.push({ path: `api-pack/${part}.tsv`, bytes: new TextEncoder().encode(tsv) });
    manifest.dim = dim;
    manifest[part] = { count: rows.ids.length, sha256: sha(tsv), encoding: key(role) };
  }
  files.push({ path: 'api-pack/manifest.json', bytes: new TextEncoder().encode(JSON.stringify(manifest, null, 2)) });
  return files;
}

const noModel = (config: LazyEncoder['config']): LazyEncoder => ({
  config,
  dtype: config.dtype,
  load: () => Promise.reject(new Error('a model was loaded')),
});

describe('a pack written from an embedding API, as docs/vector-packs.md shows', () => {
  it('writes the same fields as this builder', () => {
    const python = apiExample();
    const written = new Set([...python.matchAll(/"(\w+)": /g)].map((m) => m[1]!));
    const fields = [
      ...['format', 'version', 'encoder', 'kind', 'valueType', 'device', 'created', 'tool'],
      ...['model', 'revision', 'dtype', 'pooling', 'normalize', 'queryPrefix', 'passagePrefix', 'maxLength', 'sparseTopK'],
      ...['count', 'sha256', 'encoding'],
    ];
    expect([...written].sort()).toEqual([...fields].sort());
    // dim and the two parts are set per part, the files named by part.
    for (const s of ['manifest["dim"] = dim', 'manifest[part] = {', '("passages", "passage", passages)', '("queries", "query", queries)'])
      expect(python).toContain(s);
    for (const s of ['{part}.f32', '{part}.tsv', '{out}/manifest.json', 'array("f"', 'sys.byteorder != "little"', '[:32]'])
      expect(python).toContain(s);
  });

  it('is read, imported under a recipe-run name, and ranked with its own vectors and no model', async () => {
    const files = packLikeTheDoc();
    const pack = await readPack(new Map(files.map((f) => [f.path.replace('api-pack/', ''), f.bytes])), 'api-pack');
    expect(pack.manifest).toMatchObject({ kind: 'dense', dim: 3, device: 'api', encoder: { model: 'my-company-embedder-v4' } });

    const dbName = 'fliplab-api-pack';
    const result = await importPack(files, COLLECTION, { dbName });
    expect(result).toMatchObject({ passages: 3, queries: 2, added: 5, missing: null, device: 'api' });
    const id = encoderRunId(result.config);
    expect(isRecipeRunId(id)).toBe(true);
    expect(id).toMatch(/^pack:my-company-embedder-v4~[0-9a-f]{8}$/);
    expect(await storedRecipeConfig(id, { dbName })).toEqual(result.config);

    const store = await EmbeddingStore.open(dbName);
    try {
      const queries = await encodeWithCache(noModel(result.config), store, COLLECTION.queries.texts, { role: 'query' });
      const passages = await encodeWithCache(noModel(result.config), store, COLLECTION.passages.texts, { role: 'passage' });
      // The API's values, as float32.
      expect(Array.from(queries[1]!.dense!)).toEqual(API_QUERIES[1]!.map(Math.fround));
      expect(Array.from(passages[2]!.dense!)).toEqual(API_PASSAGES[2]!.map(Math.fround));
    } finally {
      store.close();
    }
  });

  it('is refused without its queries, saying how many it lacks and that the pack must carry them', async () => {
    await expect(importPack(packLikeTheDoc(null), COLLECTION, { dbName: 'fliplab-api-pack-no-queries' })).rejects.toThrow(
      /api-pack\/manifest\.json: this pack has no vectors for 2 of 2 queries, and its model "my-company-embedder-v4" is not one the lab can load.*must carry its query vectors/,
    );
  });
});
