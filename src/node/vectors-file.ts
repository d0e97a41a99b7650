/**
 * Vector packs on disk (the layout is in src/encoders/pack.ts and docs/vector-packs.md): a folder, or the same
 * files in a `.zip`. Version 1 folders (passages only: rows.tsv, vectors.f32 | vectors.jsonl) are still read
 * by `fliplab search --vectors`.
 */
import { errorMessage } from '../core/error-message.ts';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, unzipPack, zipPack, type PackFiles } from '../encoders/pack.ts';
import { InputError } from '../core/io/errors.ts';
import type { StoredVector } from '../encoders/pooling.ts';
import type { EncodingIdentity } from '../encoders/identity.ts';

export const VECTORS_FORMAT = 'fliplab-vectors';
export const VECTORS_VERSION = 1;

/** Does this folder hold a version 1 vectors folder (not a pack)? */
export function isVersion1Folder(dir: string): boolean {
  if (!existsSync(join(dir, 'rows.tsv'))) return false;
  try {
    return (JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as { version?: unknown }).version === VECTORS_VERSION;
  } catch {
    return false;
  }
}

export interface VectorsManifest {
  readonly format: typeof VECTORS_FORMAT;
  readonly version: number;
  readonly identity: EncodingIdentity;
  readonly encoding: string;
  readonly device: string;
  readonly kind: 'dense' | 'sparse';
  readonly dim: number;
  readonly count: number;
  readonly created: string;
}

export interface VectorsFolder {
  readonly manifest: VectorsManifest;
  readonly ids: readonly string[];
  readonly textKeys: readonly string[];
  readonly vectors: readonly StoredVector[];
}

/** Version 1 writer, kept for tests of the reader (new folders are packs). */
export function writeVectorsFolder(
  dir: string,
  v: Omit<VectorsFolder, 'manifest'> & { manifest: Omit<VectorsManifest, 'format' | 'version' | 'kind' | 'dim' | 'count' | 'created'> },
): void {
  mkdirSync(dir, { recursive: true });
  const dense = v.vectors.every((x) => x.dense);
  const dim = dense ? (v.vectors[0]?.dense?.length ?? 0) : 0;
  const manifest: VectorsManifest = {
    format: VECTORS_FORMAT,
    version: VECTORS_VERSION,
    ...v.manifest,
    kind: dense ? 'dense' : 'sparse',
    dim,
    count: v.vectors.length,
    created: new Date().toISOString(),
  };
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'rows.tsv'), v.ids.map((id, i) => `${id}\t${v.textKeys[i]}\n`).join(''));
  if (dense) {
    const data = new Float32Array(v.vectors.length * dim);
    v.vectors.forEach((x, i) => data.set(x.dense!, i * dim));
    writeFileSync(join(dir, 'vectors.f32'), new Uint8Array(data.buffer));
  } else {
    writeFileSync(
      join(dir, 'vectors.jsonl'),
      v.vectors.map((x) => `${JSON.stringify({ i: Array.from(x.sparse!.indices), v: Array.from(x.sparse!.values) })}\n`).join(''),
    );
  }
}

export function readVectorsFolder(dir: string): VectorsFolder {
  const file = join(dir, 'manifest.json');
  let manifest: VectorsManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as VectorsManifest;
  } catch (e) {
    throw new InputError(file, undefined, `expected a fliplab vectors manifest: ${errorMessage(e)}`);
  }
  if (manifest.format !== VECTORS_FORMAT || manifest.version !== VECTORS_VERSION) {
    throw new InputError(
      file,
      undefined,
      `expected format "${VECTORS_FORMAT}" version ${VECTORS_VERSION}, got "${manifest.format}" ${manifest.version}`,
    );
  }
  const rows = readFileSync(join(dir, 'rows.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.split('\t'));
  if (rows.length !== manifest.count)
    throw new InputError(join(dir, 'rows.tsv'), undefined, `expected ${manifest.count} rows, found ${rows.length}`);
  let vectors: StoredVector[];
  if (manifest.kind === 'dense') {
    const bytes = readFileSync(join(dir, 'vectors.f32'));
    if (bytes.byteLength !== manifest.count * manifest.dim * 4) {
      throw new InputError(
        join(dir, 'vectors.f32'),
        undefined,
        `expected ${manifest.count} × ${manifest.dim} float32 values, found ${bytes.byteLength} bytes`,
      );
    }
    const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    vectors = Array.from({ length: manifest.count }, (_, i) => ({
      dense: data.subarray(i * manifest.dim, (i + 1) * manifest.dim),
      tokens: 0,
    }));
  } else {
    const lines = readFileSync(join(dir, 'vectors.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    vectors = lines.map((l) => {
      const o = JSON.parse(l) as { i: number[]; v: number[] };
      return { sparse: { indices: Uint32Array.from(o.i), values: Float32Array.from(o.v) }, tokens: 0 };
    });
  }
  return { manifest, ids: rows.map((r) => r[0]!), textKeys: rows.map((r) => r[1]!), vectors };
}

/**
 * Write a pack as a folder, or as one zip when the path ends in `.zip`. The manifest is written last (a
 * folder cut short has none, so it is never taken for a pack); a zip is written to a temporary name first.
 */
export function writePackPath(path: string, files: PackFiles): void {
  if (path.endsWith('.zip')) {
    writeFileSync(`${path}.partial`, zipPack(files, path.replace(/^.*[\\/]/, '').replace(/\.zip$/, '')));
    renameSync(`${path}.partial`, path);
    return;
  }
  mkdirSync(path, { recursive: true });
  // An older pack's manifest goes first: new vectors under an old manifest would pass every check.
  rmSync(join(path, MANIFEST), { force: true });
  for (const [name, bytes] of files) if (name !== MANIFEST) writeFileSync(join(path, name), bytes);
  writeFileSync(join(path, MANIFEST), files.get(MANIFEST)!);
}

/** A pack's files from a folder or a `.zip`. */
export function readPackPath(path: string): Map<string, Uint8Array> {
  if (!existsSync(path)) throw new InputError(path, undefined, 'no such vector pack (a folder or a .zip)');
  if (!statSync(path).isDirectory()) return unzipPack(new Uint8Array(readFileSync(path)), path);
  const files = new Map<string, Uint8Array>();
  for (const e of readdirSync(path, { withFileTypes: true }))
    if (e.isFile()) files.set(e.name, new Uint8Array(readFileSync(join(path, e.name))));
  return files;
}
