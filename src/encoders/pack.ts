/**
 * Vector packs: a corpus's passage vectors and its queries' vectors, encoded once (e.g. on a GPU server with
 * `fliplab encode`, or from Python) and carried to browsers and CLIs that then need no model and no encoding.
 * The layout is documented in docs/vector-packs.md; this module is its only reader and writer, pure (bytes in,
 * bytes out), so the CLI, the lab worker and the tests share it.
 *
 *   manifest.json                 format, version, encoder recipe, kind, dim, value type, per-part counts,
 *                                 hashes and cache keys
 *   passages.tsv / queries.tsv    one line per vector: id TAB SHA-256 of the exact input text [TAB tokens]
 *   <part>.f32 | <part>.f16       dense: count × dim little-endian rows
 *   <part>.indptr, <part>.indices sparse (CSR): count + 1 uint32 offsets, then uint32 term ids ascending per row
 *   <part>.values.f32 | .f16      sparse: the weights, one per term id
 *
 * Reading checks everything before anything is used: fields, sizes (a truncated file), dimensions, finite
 * values, term ids, the rows' hash against the manifest, and the cache keys against the recipe. Every error
 * names the file and what differs.
 */
import { errorMessage } from '../core/error-message.ts';
import { inflateSync, zipSync } from 'fflate';
import { float16ToNumber as fromFloat16, toFloat16Bits as toFloat16 } from '../core/float16.ts';
import { InputError, isInputError } from '../core/io/errors.ts';
import { unzipChecked } from '../core/io/zip.ts';
import { sha256Hex } from '../core/sha256.ts';
import {
  ENCODER_DTYPES,
  POOLINGS,
  pickEncoderRecipe,
  type EncoderDtype,
  type EncoderRecipe,
  type Pooling,
} from '../core/encoder-recipe.ts';

export { fromFloat16, toFloat16 };
import { encodingIdentity, encodingKey, type EncodingIdentity } from './identity.ts';
import type { StoredVector } from './pooling.ts';
import type { EncoderConfig } from './presets.ts';

export const PACK_FORMAT = 'fliplab-vectors';
/** Version 1 was a passages-only folder (rows.tsv + vectors.f32 | vectors.jsonl); `fliplab search` still reads it. */
export const PACK_VERSION = 2;
export const MANIFEST = 'manifest.json';

export type PackRole = 'passage' | 'query';
export type PackValueType = 'float32' | 'float16';

/** The recipe as a manifest writes it: everything of an encoder configuration that changes its vectors. */
export type PackEncoder = EncoderRecipe;

export interface PackPartManifest {
  readonly count: number;
  /** SHA-256 of the part's rows file (`id\ttextSha256[\ttokens]\n` per vector): for a whole corpus in corpus order, its hash. */
  readonly sha256: string;
  /** The cache key of this part's encoding identity (what the lab stores the vectors under). */
  readonly encoding: string;
}

export interface PackManifest {
  readonly format: typeof PACK_FORMAT;
  readonly version: typeof PACK_VERSION;
  readonly encoder: PackEncoder;
  readonly kind: 'dense' | 'sparse';
  /** Dense: the vector length. Sparse: the vocabulary size (every term id is below it). */
  readonly dim: number;
  readonly valueType: PackValueType;
  readonly passages: PackPartManifest | null;
  readonly queries: PackPartManifest | null;
  /** Where it was encoded (e.g. "cuda", "webgpu", "cpu"), and by what. */
  readonly device: string;
  readonly created: string;
  readonly tool: string;
}

export interface PackPart {
  readonly ids: readonly string[];
  /** SHA-256 of each exact input text (before the role's prefix), as the cache keys it. */
  readonly textKeys: readonly string[];
  readonly vectors: readonly StoredVector[];
}

export interface VectorPack {
  readonly manifest: PackManifest;
  readonly passages: PackPart | null;
  readonly queries: PackPart | null;
}

/** A pack's files by name (a folder's entries, or a zip's with its top folder removed). */
export type PackFiles = ReadonlyMap<string, Uint8Array>;

const PART_FILE: Record<PackRole, string> = { passage: 'passages', query: 'queries' };

export function packEncoder(config: EncoderConfig, dtype: EncoderDtype = config.dtype): PackEncoder {
  return pickEncoderRecipe(config, dtype);
}

/** The encoder configuration a pack's vectors belong to (id and label: the model). */
export function packConfig(encoder: PackEncoder): EncoderConfig {
  return { id: encoder.model, label: encoder.model, kind: encoder.pooling === 'splade-max' ? 'sparse' : 'dense', ...encoder };
}

export function packIdentity(encoder: PackEncoder, role: PackRole): EncodingIdentity {
  return encodingIdentity(encoder, role);
}

// ------------------------------------------------------------------------------------------- writing

const encoder = new TextEncoder();

function rowsText(part: PackPart): string {
  let out = '';
  part.ids.forEach((id, i) => {
    const tokens = part.vectors[i]!.tokens;
    out += `${id}\t${part.textKeys[i]}${tokens > 0 ? `\t${tokens}` : ''}\n`;
  });
  return out;
}

function valuesBytes(values: Float32Array, type: PackValueType): Uint8Array {
  if (type === 'float32') return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = toFloat16(values[i]!);
  return new Uint8Array(out.buffer);
}

const ext = (type: PackValueType) => (type === 'float32' ? 'f32' : 'f16');

function partFiles(part: PackPart, role: PackRole, kind: 'dense' | 'sparse', dim: number, type: PackValueType): [string, Uint8Array][] {
  const base = PART_FILE[role];
  const files: [string, Uint8Array][] = [[`${base}.tsv`, encoder.encode(rowsText(part))]];
  if (kind === 'dense') {
    const data = new Float32Array(part.vectors.length * dim);
    part.vectors.forEach((v, i) => data.set(v.dense!, i * dim));
    files.push([`${base}.${ext(type)}`, valuesBytes(data, type)]);
  } else {
    const indptr = new Uint32Array(part.vectors.length + 1);
    part.vectors.forEach((v, i) => (indptr[i + 1] = indptr[i]! + v.sparse!.indices.length));
    const indices = new Uint32Array(indptr[part.vectors.length]!);
    const values = new Float32Array(indices.length);
    part.vectors.forEach((v, i) => {
      indices.set(v.sparse!.indices, indptr[i]);
      values.set(v.sparse!.values, indptr[i]);
    });
    files.push([`${base}.indptr`, new Uint8Array(indptr.buffer)], [`${base}.indices`, new Uint8Array(indices.buffer)]);
    files.push([`${base}.values.${ext(type)}`, valuesBytes(values, type)]);
  }
  return files;
}

export interface PackInput {
  readonly config: EncoderConfig;
  readonly dtype?: EncoderDtype;
  readonly device: string;
  readonly tool: string;
  readonly passages: PackPart | null;
  readonly queries: PackPart | null;
  readonly valueType?: PackValueType;
  /** Sparse packs: the vocabulary size (default: the largest term id + 1). */
  readonly vocabularySize?: number;
  readonly created?: string;
}

/** The files of a pack (manifest.json last in the map: a writer that stops early leaves no valid pack). */
export async function writePack(input: PackInput): Promise<Map<string, Uint8Array>> {
  const enc = packEncoder(input.config, input.dtype);
  const kind = enc.pooling === 'splade-max' ? 'sparse' : 'dense';
  const type = input.valueType ?? 'float32';
  const all = [...(input.passages?.vectors ?? []), ...(input.queries?.vectors ?? [])];
  let dim = 0;
  if (kind === 'dense') {
    dim = all[0]?.dense?.length ?? 0;
    all.forEach((v, i) => {
      if (v.dense?.length !== dim) throw new RangeError(`vector ${i}: expected ${dim} dense dimensions, got ${v.dense?.length ?? 'none'}`);
    });
  } else {
    for (const v of all) {
      if (!v.sparse) throw new RangeError('a sparse pack needs sparse vectors');
      for (const t of v.sparse.indices) dim = Math.max(dim, t + 1);
    }
    dim = Math.max(dim, input.vocabularySize ?? 0);
  }
  if (all.length === 0 || dim === 0) throw new RangeError('a pack needs at least one vector (with at least one value)');
  const files = new Map<string, Uint8Array>();
  const parts: Record<PackRole, PackPartManifest | null> = { passage: null, query: null };
  for (const role of ['passage', 'query'] as const) {
    const part = role === 'passage' ? input.passages : input.queries;
    if (!part) continue;
    if (part.ids.length !== part.vectors.length || part.ids.length !== part.textKeys.length)
      throw new RangeError(`${role}s: ${part.ids.length} ids, ${part.textKeys.length} text keys, ${part.vectors.length} vectors`);
    // What the reader refuses, the writer refuses first.
    const badId = part.ids.find((id) => id === '' || /[\t\r\n]/.test(id));
    if (badId !== undefined)
      throw new RangeError(`${role} id ${JSON.stringify(badId)}: ids must be non-empty, without tabs or line breaks`);
    part.vectors.forEach((v, i) => {
      const values = v.dense ?? v.sparse?.values ?? [];
      for (const x of values) if (!Number.isFinite(x)) throw new RangeError(`${role} "${part.ids[i]}": value ${x} is not finite`);
    });
    const entries = partFiles(part, role, kind, dim, type);
    for (const [name, bytes] of entries) files.set(name, bytes);
    parts[role] = {
      count: part.ids.length,
      sha256: await sha256Hex(entries[0]![1]),
      encoding: await encodingKey(packIdentity(enc, role)),
    };
  }
  const manifest: PackManifest = {
    format: PACK_FORMAT,
    version: PACK_VERSION,
    encoder: enc,
    kind,
    dim,
    valueType: type,
    passages: parts.passage,
    queries: parts.query,
    device: input.device,
    created: input.created ?? new Date().toISOString(),
    tool: input.tool,
  };
  files.set(MANIFEST, encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`));
  return files;
}

// ------------------------------------------------------------------------------------------- reading

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNonEmpty: Check = (v) => typeof v === 'string' && v.length > 0;
const isCount: Check = (v) => Number.isInteger(v) && (v as number) >= 0;
const isHex =
  (n: number): Check =>
  (v) =>
    typeof v === 'string' && new RegExp(`^[0-9a-f]{${n}}$`).test(v);

function checkFields(where: string, obj: unknown, fields: Record<string, [Check, string]>): void {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new InputError(where, undefined, 'expected a JSON object');
  const rec = obj as Record<string, unknown>;
  const missing = Object.keys(fields).filter((k) => !(k in rec));
  if (missing.length > 0) throw new InputError(where, undefined, `missing field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  for (const [k, [ok, expected]] of Object.entries(fields)) {
    if (!ok(rec[k])) throw new InputError(where, undefined, `field "${k}": expected ${expected}, got ${JSON.stringify(rec[k])}`);
  }
}

/** Parse and check a manifest's fields (not the vector files). */
export function parsePackManifest(bytes: Uint8Array, where: string): PackManifest {
  const file = `${where}/${MANIFEST}`;
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new InputError(file, undefined, `expected a fliplab vector pack manifest (JSON): ${errorMessage(e)}`);
  }
  const rec = raw as Record<string, unknown>;
  if (rec?.format !== PACK_FORMAT || rec.version !== PACK_VERSION) {
    throw new InputError(
      file,
      undefined,
      `expected format "${PACK_FORMAT}" version ${PACK_VERSION}, ` +
        `got ${JSON.stringify(rec?.format)} version ${JSON.stringify(rec?.version)}`,
    );
  }
  checkFields(file, raw, {
    encoder: [(v) => typeof v === 'object' && v !== null, 'an object'],
    kind: [(v) => v === 'dense' || v === 'sparse', '"dense" or "sparse"'],
    dim: [(v) => Number.isInteger(v) && (v as number) > 0, 'a positive integer'],
    valueType: [(v) => v === 'float32' || v === 'float16', '"float32" or "float16"'],
    passages: [(v) => v === null || typeof v === 'object', 'an object or null'],
    queries: [(v) => v === null || typeof v === 'object', 'an object or null'],
    device: [isString, 'a string'],
    created: [isString, 'a string'],
    tool: [isString, 'a string'],
  });
  checkFields(`${file} (encoder)`, rec.encoder, {
    model: [isNonEmpty, 'a model id'],
    revision: [isNonEmpty, 'a revision'],
    dtype: [(v) => ENCODER_DTYPES.includes(v as EncoderDtype), ENCODER_DTYPES.join(' | ')],
    pooling: [(v) => POOLINGS.includes(v as Pooling), POOLINGS.join(' | ')],
    normalize: [(v) => typeof v === 'boolean', 'true or false'],
    queryPrefix: [isString, 'a string'],
    passagePrefix: [isString, 'a string'],
    maxLength: [(v) => Number.isInteger(v) && (v as number) > 0, 'a positive integer'],
    sparseTopK: [(v) => v === null || (Number.isInteger(v) && (v as number) > 0), 'a positive integer or null'],
  });
  const m = raw as PackManifest;
  if ((m.encoder.pooling === 'splade-max') !== (m.kind === 'sparse'))
    throw new InputError(file, undefined, `kind "${m.kind}" does not fit pooling "${m.encoder.pooling}"`);
  for (const part of ['passages', 'queries'] as const) {
    if (m[part] === null) continue;
    checkFields(`${file} (${part})`, m[part], {
      count: [isCount, 'a count'],
      sha256: [isHex(64), 'a SHA-256 in hex'],
      encoding: [isHex(32), 'a 32-hex-digit cache key'],
    });
  }
  if (m.passages === null && m.queries === null) throw new InputError(file, undefined, 'the pack holds neither passages nor queries');
  return m;
}

function need(files: PackFiles, where: string, name: string): Uint8Array {
  const bytes = files.get(name);
  if (!bytes) throw new InputError(`${where}/${name}`, undefined, 'missing from the pack');
  return bytes;
}

function readValues(bytes: Uint8Array, type: PackValueType, expected: number, file: string, what: string): Float32Array {
  const width = type === 'float32' ? 4 : 2;
  if (bytes.byteLength !== expected * width) {
    throw new InputError(
      file,
      undefined,
      `expected ${expected} ${type} values (${expected * width} bytes) for ${what}, found ${bytes.byteLength} bytes` +
        (bytes.byteLength < expected * width ? ' (truncated?)' : ''),
    );
  }
  // Aligned bytes are viewed, not copied (each row is sliced into its own buffer later anyway).
  const aligned = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  if (type === 'float32') return new Float32Array(aligned.buffer, aligned.byteOffset, expected);
  const half = new Uint16Array(aligned.buffer, aligned.byteOffset, expected);
  const out = new Float32Array(half.length);
  for (let i = 0; i < half.length; i++) out[i] = fromFloat16(half[i]!);
  return out;
}

function readUint32(bytes: Uint8Array, expected: number | null, file: string, what: string): Uint32Array {
  if (bytes.byteLength % 4 !== 0 || (expected !== null && bytes.byteLength !== expected * 4)) {
    throw new InputError(
      file,
      undefined,
      `expected ${expected ?? 'whole'} uint32 values for ${what}, found ${bytes.byteLength} bytes` +
        (expected !== null && bytes.byteLength < expected * 4 ? ' (truncated?)' : ''),
    );
  }
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

function checkFinite(values: Float32Array, rowOf: (i: number) => number, ids: readonly string[], file: string): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i]!)) {
      const row = rowOf(i);
      throw new InputError(
        file,
        undefined,
        `value ${values[i]} in the vector of "${ids[row]}" (row ${row + 1}): every value must be finite`,
      );
    }
  }
}

async function readPart(files: PackFiles, where: string, manifest: PackManifest, role: PackRole): Promise<PackPart | null> {
  const meta = role === 'passage' ? manifest.passages : manifest.queries;
  if (!meta) return null;
  const base = PART_FILE[role];
  const rowsFile = `${where}/${base}.tsv`;
  const rowsBytes = need(files, where, `${base}.tsv`);
  const text = new TextDecoder().decode(rowsBytes);
  const ids: string[] = [];
  const textKeys: string[] = [];
  const tokens: number[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    const cols = line.replace(/\r$/, '').split('\t');
    if (
      cols.length < 2 ||
      cols.length > 3 ||
      cols[0] === '' ||
      !/^[0-9a-f]{64}$/.test(cols[1]!) ||
      (cols.length === 3 && !/^\d+$/.test(cols[2]!))
    )
      throw new InputError(
        rowsFile,
        i + 1,
        `expected "id<TAB>SHA-256 of the text in hex[<TAB>tokens]", got ${JSON.stringify(line.slice(0, 80))}`,
      );
    if (seen.has(cols[0]!)) throw new InputError(rowsFile, i + 1, `id "${cols[0]}" appears twice`);
    seen.add(cols[0]!);
    ids.push(cols[0]!);
    textKeys.push(cols[1]!);
    tokens.push(cols.length === 3 ? Number(cols[2]) : 0);
  });
  if (ids.length !== meta.count) throw new InputError(rowsFile, undefined, `expected ${meta.count} rows (manifest), found ${ids.length}`);
  const digest = await sha256Hex(rowsBytes);
  if (digest !== meta.sha256)
    throw new InputError(
      rowsFile,
      undefined,
      `its SHA-256 is ${digest}, the manifest says ${meta.sha256}: the file was changed or belongs to another pack`,
    );
  const expectedKey = await encodingKey(packIdentity(manifest.encoder, role));
  if (meta.encoding !== expectedKey) {
    throw new InputError(
      `${where}/${MANIFEST}`,
      undefined,
      `${base}.encoding is ${meta.encoding}, but the encoder recipe gives ${expectedKey}: the recipe or the key was edited`,
    );
  }
  const { dim, valueType: type } = manifest;
  const vectors: StoredVector[] = [];
  if (manifest.kind === 'dense') {
    const name = `${base}.${ext(type)}`;
    const file = `${where}/${name}`;
    const data = readValues(need(files, where, name), type, ids.length * dim, file, `${ids.length} rows × ${dim} dimensions`);
    checkFinite(data, (i) => Math.floor(i / dim), ids, file);
    // Each row its own buffer (slice, not subarray): IndexedDB and postMessage clone a view's whole buffer.
    for (let r = 0; r < ids.length; r++) vectors.push({ dense: data.slice(r * dim, (r + 1) * dim), tokens: tokens[r]! });
  } else {
    const ptrFile = `${where}/${base}.indptr`;
    const indptr = readUint32(need(files, where, `${base}.indptr`), ids.length + 1, ptrFile, `${ids.length} rows + 1 offsets`);
    if (indptr[0] !== 0) throw new InputError(ptrFile, undefined, `the first offset must be 0, got ${indptr[0]}`);
    for (let r = 0; r < ids.length; r++) {
      if (indptr[r + 1]! < indptr[r]!) throw new InputError(ptrFile, undefined, `offsets must not decrease (row ${r + 1}, "${ids[r]}")`);
    }
    const nnz = indptr[ids.length]!;
    const idxFile = `${where}/${base}.indices`;
    const indices = readUint32(need(files, where, `${base}.indices`), nnz, idxFile, `${nnz} term ids`);
    const valName = `${base}.values.${ext(type)}`;
    const valFile = `${where}/${valName}`;
    const values = readValues(need(files, where, valName), type, nnz, valFile, `${nnz} weights`);
    let row = 0;
    checkFinite(
      values,
      (i) => {
        while (indptr[row + 1]! <= i) row++;
        return row;
      },
      ids,
      valFile,
    );
    for (let r = 0; r < ids.length; r++) {
      const s = indptr[r]!;
      const e = indptr[r + 1]!;
      for (let i = s; i < e; i++) {
        if (indices[i]! >= dim)
          throw new InputError(idxFile, undefined, `term id ${indices[i]} of "${ids[r]}" is not below the vocabulary size ${dim}`);
        if (i > s && indices[i]! <= indices[i - 1]!)
          throw new InputError(idxFile, undefined, `term ids of "${ids[r]}" (row ${r + 1}) must be strictly ascending`);
      }
      vectors.push({ sparse: { indices: indices.slice(s, e), values: values.slice(s, e) }, tokens: tokens[r]! });
    }
  }
  return { ids, textKeys, vectors };
}

/** Read and check a whole pack. `where` names it in errors (a folder path or a zip's name). */
export async function readPack(files: PackFiles, where: string): Promise<VectorPack> {
  const manifest = parsePackManifest(need(files, where, MANIFEST), where);
  const passages = await readPart(files, where, manifest, 'passage');
  const queries = await readPart(files, where, manifest, 'query');
  return { manifest, passages, queries };
}

// ------------------------------------------------------------------------------------------- matching

/** What a pack is checked against: the open collection's ids and text hashes, in its order. */
export interface PackTarget {
  readonly passages: { readonly ids: readonly string[]; readonly textKeys: readonly string[] };
  /** Every query of the collection (a pack may hold more than the evaluated ones). */
  readonly queries: { readonly ids: readonly string[]; readonly textKeys: readonly string[] };
  /** The queries a run needs (default: all): what the coverage counts. */
  readonly evaluated?: readonly string[];
}

export interface PackCoverage {
  /** The collection's passages the pack holds, and its needed queries. */
  readonly passages: number;
  readonly queries: number;
}

function describeMismatch(part: PackPart, target: PackTarget['passages'], what: string, file: string): void {
  const byId = new Map(target.ids.map((id, i) => [id, target.textKeys[i]!]));
  const unknown: string[] = [];
  for (let i = 0; i < part.ids.length; i++) {
    const key = byId.get(part.ids[i]!);
    if (key === undefined) unknown.push(part.ids[i]!);
    else if (key !== part.textKeys[i]) {
      throw new InputError(
        file,
        i + 1,
        `the text of ${what} "${part.ids[i]}" differs from this collection's (SHA-256 ${part.textKeys[i]!.slice(0, 12)}… in the pack, ` +
          `${key.slice(0, 12)}… here): the pack was made from a different corpus or a different version of it`,
      );
    }
  }
  if (unknown.length > 0) {
    throw new InputError(
      file,
      undefined,
      `${unknown.length} ${what} id${unknown.length > 1 ? 's are' : ' is'} not in this collection ` +
        `(e.g. "${unknown.slice(0, 3).join('", "')}"): the pack was made from a different corpus`,
    );
  }
}

/**
 * Check that a pack belongs to a collection: every passage and query of the pack is one of the collection's,
 * with the same text. Returns how many of the collection's passages and needed queries the pack covers.
 */
export function matchPack(pack: VectorPack, target: PackTarget, where: string): PackCoverage {
  if (pack.passages) describeMismatch(pack.passages, target.passages, 'passage', `${where}/passages.tsv`);
  if (pack.queries) describeMismatch(pack.queries, target.queries, 'query', `${where}/queries.tsv`);
  const passageIds = new Set(pack.passages?.ids ?? []);
  const queryIds = new Set(pack.queries?.ids ?? []);
  return {
    passages: target.passages.ids.filter((id) => passageIds.has(id)).length,
    queries: (target.evaluated ?? target.queries.ids).filter((id) => queryIds.has(id)).length,
  };
}

/** Differences between the recipe a pack was made with and a configuration, field by field ("" when equal). */
export function recipeDifference(pack: PackEncoder, config: EncoderConfig, dtype: EncoderDtype = config.dtype): string {
  const want = packEncoder(config, dtype);
  return (Object.keys(want) as (keyof PackEncoder)[])
    .filter((k) => pack[k] !== want[k])
    .map((k) => `${k}: ${JSON.stringify(pack[k])} in the pack, ${JSON.stringify(want[k])} here`)
    .join('; ');
}

// ------------------------------------------------------------------------------------------- zip

/** A pack as one `.zip` (stored, not deflated: float vectors barely compress and the reader then copies nothing). */
export function zipPack(files: PackFiles, folder = 'pack'): Uint8Array {
  return zipSync(Object.fromEntries([...files].map(([name, bytes]) => [`${folder}/${name}`, [bytes, { level: 0 }]])));
}

/** A zipped pack's files, its manifest's folder taken as the root (a pack zipped with or without its folder). */
export function unzipPack(bytes: Uint8Array, where: string): Map<string, Uint8Array> {
  let entries: Map<string, Uint8Array>;
  try {
    entries = unzipChecked(bytes, where, (data, out) => inflateSync(data, { out }));
  } catch (e) {
    if (isInputError(e)) throw e;
    throw new InputError(where, undefined, `expected a zip file: ${errorMessage(e)}`);
  }
  return packAt(entries, where, {
    none: `no ${MANIFEST} in this zip: not a vector pack`,
    many: () => `more than one ${MANIFEST}: one pack per zip`,
  }).files;
}

/**
 * A pack's files among many (a zip's entries, a picked folder's files): the folder holding the one
 * manifest.json is the pack, its files keyed by name. `root` is that folder ("" at the top).
 */
export function packAt(
  entries: Iterable<readonly [string, Uint8Array]>,
  where: string,
  say: { readonly none: string; readonly many: (count: number) => string },
): { files: Map<string, Uint8Array>; root: string } {
  const list = [...entries];
  const manifests = list.filter(([name]) => name === MANIFEST || name.endsWith(`/${MANIFEST}`));
  if (manifests.length !== 1) throw new InputError(where, undefined, manifests.length === 0 ? say.none : say.many(manifests.length));
  const root = manifests[0]![0].slice(0, -MANIFEST.length);
  const files = new Map<string, Uint8Array>();
  for (const [name, data] of list) {
    if (name.startsWith(root) && !name.endsWith('/') && !name.slice(root.length).includes('/')) files.set(name.slice(root.length), data);
  }
  return { files, root };
}
