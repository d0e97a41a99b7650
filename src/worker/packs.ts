/**
 * Vector packs in the lab (the format: src/encoders/pack.ts, docs/vector-packs.md). Importing checks the whole
 * pack against the open collection before writing anything, then adds its vectors to the embedding cache
 * (IndexedDB) under the same keys the encoders use, leaving every vector already stored as it is; the encoder
 * run then rebuilds from the cache with no model. Any recipe is taken (`labConfigForPack`). Exporting writes any
 * cached encoding of the open collection as a pack (one .zip).
 */
import { InputError } from '../core/io/errors.ts';
import { encodingKey, textKeys } from '../encoders/identity.ts';
import {
  matchPack,
  MANIFEST,
  packEncoder,
  packAt,
  packIdentity,
  readPack,
  recipeDifference,
  unzipPack,
  writePack,
  zipPack,
  type PackCoverage,
  type PackFiles,
  type PackPart,
  type VectorPack,
} from '../encoders/pack.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncoderConfig } from '../encoders/presets.ts';
import { EmbeddingStore, StorageFullError } from '../store/embeddings.ts';
import type { CollectionFile } from '../lab/data/types.ts';
import { configForRecipe, LOCAL_MODEL_PREFIX, recipeConfig, recipeRunId, type EncoderRecipe } from '../lab/retriever-ids.ts';

/** The open collection's passages, its evaluated queries (what runs use and exports hold) and all its queries, in order. */
export interface PackCollection {
  readonly name: string;
  readonly passages: { readonly ids: readonly string[]; readonly texts: readonly string[] };
  readonly queries: { readonly ids: readonly string[]; readonly texts: readonly string[] };
  readonly allQueries?: { readonly ids: readonly string[]; readonly texts: readonly string[] };
}

export interface PackImport {
  /** The encoder the vectors belong to: add it and its run rebuilds from the cache. */
  readonly config: EncoderConfig;
  /** What the run needs and the pack lacks, in words ("this pack has no vectors for 3 of 8 queries"); null when complete. */
  readonly missing: string | null;
  readonly passages: number;
  readonly totalPassages: number;
  readonly queries: number;
  readonly totalQueries: number;
  /** Vectors written; the rest were in the cache already (and were left untouched). */
  readonly added: number;
  readonly device: string;
  readonly valueType: string;
}

/** Vectors per IndexedDB transaction when a pack is imported. */
const IMPORT_BATCH_VECTORS = 2048;

/** A pack's files from what was picked or dropped: one .zip, or a folder's files (its top folder removed). */
export function packFilesOf(files: readonly CollectionFile[]): { files: PackFiles; where: string } {
  if (files.length === 1 && /\.zip$/i.test(files[0]!.path))
    return { files: unzipPack(files[0]!.bytes, files[0]!.path), where: files[0]!.path };
  const { files: out, root } = packAt(
    files.map((f) => [f.path, f.bytes] as const),
    files.length === 1 ? files[0]!.path : `${files.length} files`,
    {
      none: `not a vector pack: expected a .zip or a folder with ${MANIFEST} (see docs/vector-packs.md)`,
      many: (count) => `${count} ${MANIFEST} files: pick one pack at a time`,
    },
  );
  return { files: out, where: root.replace(/\/$/, '') || 'pack' };
}

/**
 * The lab runs any recipe a pack brings: under its preset's name when the recipe is a preset's with another
 * checkpoint, revision, dtype or length (so it shares runs and cache with the lab's own encoders), else as a
 * recipe run (`recipeRunId`). Either way the vectors are stored and looked up under the recipe's own keys.
 */
export function labConfigForPack(recipe: EncoderRecipe): EncoderConfig {
  let preset: EncoderConfig | null;
  try {
    preset = configForRecipe(recipe);
  } catch {
    preset = null; // a field the preset's form refuses (max tokens out of its range): still a recipe the lab can rank with
  }
  return preset !== null && recipeDifference(recipe, preset) === '' ? preset : recipeConfig(recipe);
}

/**
 * Model ids the lab can load to encode what a pack lacks: a repo "owner/name" on the model host (or a picked
 * folder, "local/<name>"). A bare name ("my-company-embedder-v4") is no such repo; an embedding API's name that
 * looks like one ("openai/text-embedding-3-small") fails when it loads, and the lab says so then.
 */
export function namesLoadableModel(model: string): boolean {
  return model.startsWith(LOCAL_MODEL_PREFIX) || /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9._-]+$/.test(model);
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** What the run needs that a pack lacks, in words; null when it has every passage and evaluated query. */
function missingVectors(covered: PackCoverage, collection: PackCollection): string | null {
  const parts: string[] = [];
  const queries = collection.queries.ids.length;
  const passages = collection.passages.ids.length;
  if (covered.queries < queries) parts.push(`${fmt(queries - covered.queries)} of ${fmt(queries)} queries`);
  if (covered.passages < passages) parts.push(`${fmt(passages - covered.passages)} of ${fmt(passages)} passages`);
  return parts.length === 0 ? null : `this pack has no vectors for ${parts.join(' and ')}`;
}

function missingParts(covered: PackCoverage, collection: PackCollection): string {
  const parts: string[] = [];
  if (covered.queries < collection.queries.ids.length) parts.push('its query vectors');
  if (covered.passages < collection.passages.ids.length) parts.push('its passage vectors');
  return parts.join(' and ');
}

/** Read and check a pack, match it to the collection, and store its vectors. Nothing is written unless all of it passes. */
export async function importPack(
  picked: readonly CollectionFile[],
  collection: PackCollection,
  options: { readonly dbName?: string; readonly onProgress?: (done: number, total: number) => void } = {},
): Promise<PackImport> {
  const { files, where } = packFilesOf(picked);
  const pack = await readPack(files, where);
  const enc = pack.manifest.encoder;
  const config = labConfigForPack(enc);
  const queries = collection.allQueries ?? collection.queries;
  const target = {
    passages: { ids: collection.passages.ids, textKeys: await textKeys(collection.passages.texts) },
    queries: { ids: queries.ids, textKeys: await textKeys(queries.texts) },
    evaluated: collection.queries.ids,
  };
  const covered = matchPack(pack, target, where);
  const missing = missingVectors(covered, collection);
  // Completing a pack loads its model: only a model id the lab can load may lack vectors.
  if (missing !== null && !namesLoadableModel(enc.model)) {
    throw new InputError(
      `${where}/${MANIFEST}`,
      undefined,
      `${missing}, and its model "${enc.model}" is not one the lab can load (a model repo "owner/name" in the ` +
        `transformers.js layout, or a picked folder), so the lab cannot encode them: a pack of vectors made without such ` +
        `a model (an embedding API's, say) must carry ${missingParts(covered, collection)} (see docs/vector-packs.md)`,
    );
  }
  const store = await EmbeddingStore.open(options.dbName);
  try {
    await checkAgainstCache(store, pack, where);
    const parts = [
      ['passage', pack.passages],
      ['query', pack.queries],
    ] as const;
    const total = (pack.passages?.ids.length ?? 0) + (pack.queries?.ids.length ?? 0);
    let done = 0;
    let added = 0;
    for (const [role, part] of parts) {
      if (!part) continue;
      const identity = packIdentity(enc, role);
      const encoding = await encodingKey(identity);
      const before = (await store.list()).find((r) => r.encoding === encoding)?.count ?? 0;
      for (let start = 0; start < part.ids.length; start += IMPORT_BATCH_VECTORS) {
        const end = Math.min(part.ids.length, start + IMPORT_BATCH_VECTORS);
        const entries: { text: string; vector: StoredVector }[] = [];
        for (let i = start; i < end; i++) entries.push({ text: part.textKeys[i]!, vector: part.vectors[i]! });
        try {
          await store.put(identity, encoding, pack.manifest.device, entries, { keepExisting: true });
        } catch (e) {
          if (!(e instanceof StorageFullError)) throw e;
          const stored = `storing this pack stopped after ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} vectors`;
          const next = 'Free space and import it again (what is stored stays; the rest is added)';
          throw new StorageFullError(e.neededBytes, e.availableBytes, `${stored}: the browser's storage is full. ${next}`);
        }
        done += end - start;
        options.onProgress?.(done, total);
      }
      added += ((await store.list()).find((r) => r.encoding === encoding)?.count ?? 0) - before;
    }
    return {
      config,
      missing,
      passages: covered.passages,
      totalPassages: collection.passages.ids.length,
      queries: covered.queries,
      totalQueries: collection.queries.ids.length,
      added,
      device: pack.manifest.device,
      valueType: pack.manifest.valueType,
    };
  } finally {
    store.close();
  }
}

/** A vector stored under the same key with another width means the pack is not what its recipe says. */
async function checkAgainstCache(store: EmbeddingStore, pack: VectorPack, where: string): Promise<void> {
  for (const [role, part, file] of [
    ['passage', pack.passages, 'passages'],
    ['query', pack.queries, 'queries'],
  ] as const) {
    if (!part || part.ids.length === 0 || pack.manifest.kind !== 'dense') continue;
    const encoding = await encodingKey(packIdentity(pack.manifest.encoder, role));
    const [stored] = await store.get(encoding, part.textKeys.slice(0, 1));
    const have = stored?.dense?.length;
    if (have !== undefined && have !== pack.manifest.dim) {
      throw new InputError(
        `${where}/${file}.${pack.manifest.valueType === 'float32' ? 'f32' : 'f16'}`,
        undefined,
        `wrong dimension: ${pack.manifest.dim} values per vector, but this browser holds ${have}-dimensional vectors of the same ` +
          `encoding (${pack.manifest.encoder.model}, ${role}s)`,
      );
    }
  }
}

/** Every cached vector of `config`'s encoding of the open collection, as a zipped pack. */
export async function exportPack(
  config: EncoderConfig,
  collection: PackCollection,
  options: { readonly dbName?: string; readonly tool: string },
): Promise<Uint8Array> {
  const store = await EmbeddingStore.open(options.dbName);
  try {
    const records = await store.list();
    const part = async (role: 'passage' | 'query', rows: PackCollection['passages']): Promise<PackPart> => {
      const encoding = await encodingKey(packIdentity(packEncoder(config), role));
      const keys = await textKeys(rows.texts);
      const found = await store.get(encoding, keys);
      const missing = found.filter((v) => v === undefined).length;
      if (missing > 0) {
        throw new Error(
          `${missing.toLocaleString('en-US')} of ${rows.ids.length.toLocaleString('en-US')} ${role}s of ${collection.name} ` +
            'are not encoded yet with this encoder: let it finish (or resume it), then export',
        );
      }
      return { ids: rows.ids, textKeys: keys, vectors: found as StoredVector[] };
    };
    const passages = await part('passage', collection.passages);
    const queries = await part('query', collection.queries);
    const passageEncoding = await encodingKey(packIdentity(packEncoder(config), 'passage'));
    const device = records.find((r) => r.encoding === passageEncoding)?.device ?? 'unknown';
    const files = await writePack({ config, device, tool: options.tool, passages, queries });
    return zipPack(files);
  } finally {
    store.close();
  }
}

/**
 * The configuration of a recipe run (`recipeRunId`) from the embedding cache, whose records keep every field
 * of their encoding: a passage and a query record of one model, revision, dtype, pooling, normalisation,
 * length and cut-off give a recipe; the one whose id is `id` is the run's. Null when the cache holds none
 * (its vectors were deleted, or this browser never had them).
 */
export async function storedRecipeConfig(id: string, options: { readonly dbName?: string } = {}): Promise<EncoderConfig | null> {
  const store = await EmbeddingStore.open(options.dbName);
  try {
    const records = (await store.list()).map((r) => r.identity);
    const same = ['model', 'revision', 'dtype', 'pooling', 'normalize', 'maxLength', 'sparseTopK'] as const;
    for (const p of records.filter((r) => r.role === 'passage')) {
      for (const q of records.filter((r) => r.role === 'query')) {
        if (!same.every((k) => p[k] === q[k])) continue;
        const { model, revision, dtype, pooling, normalize, maxLength, sparseTopK } = p;
        const prefixes = { queryPrefix: q.prefix, passagePrefix: p.prefix };
        const recipe = { model, revision, dtype, pooling, normalize, ...prefixes, maxLength, sparseTopK };
        if (recipeRunId(recipe) === id) return recipeConfig(recipe);
      }
    }
    return null;
  } finally {
    store.close();
  }
}
