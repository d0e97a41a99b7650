/**
 * "Load a local model folder" in the browser: the folder a user picks (`<input type="file" webkitdirectory>`)
 * is a list of Files, not a URL, so the encode worker serves those bytes to transformers.js through its
 * custom-cache hook (`env.useCustomCache` + `env.customCache`), which it consults before any fetch.
 *
 * - Page side: `prepareLocalModel(files, dtype)` checks the folder has what transformers.js needs for the
 *   dtype (clear error naming what is missing), names the model after the folder ("local/<folder>"), keeps
 *   only the files a load reads, and fingerprints them (`revision`), so two different folders with the same
 *   name never share cached embeddings.
 * - Worker side: `createLocalModelCache(...)` answers `match(key)` for keys under `LOCAL_MODEL_ROOT` with the
 *   registered bytes as Responses (Blob-backed: nothing is copied until transformers.js reads it).
 *
 * A load then uses `localModelSource()` ({ localModelPath: '/local-models/', allowRemote: false }):
 * transformers.js's first cache key for a file is `localModelPath + model + '/' + file`, i.e. exactly the keys
 * served here, so no request for a model file ever leaves the worker.
 */
import { ENCODER_DTYPES } from '../core/encoder-recipe.ts';
import { sha256Hex } from '../core/sha256.ts';
import type { ModelFileCacheLike } from '../encoders/encoder.ts';
import { locateWeights, MODEL_CONFIG_FILES, ONNX_FILE_BY_DTYPE, ONNX_FILE_NAME, type EncoderDtype } from '../encoders/presets.ts';

/** URL path root under which picked folders are served (never fetched: the worker answers it itself). */
export const LOCAL_MODEL_ROOT = '/local-models/';
/** Model names of picked folders are "local/<folder>", so they can never be mistaken for hub repositories. */
export const LOCAL_MODEL_NAMESPACE = 'local';

/** The source a load of a registered local model uses (plain data: crosses the worker boundary). */
export function localModelSource(): { readonly localModelPath: string; readonly allowRemote: false } {
  return { localModelPath: LOCAL_MODEL_ROOT, allowRemote: false };
}

export { ONNX_FILE_BY_DTYPE };

/** Every file a load of `dtype` reads, relative to the model folder. */
export function requiredModelFiles(dtype: EncoderDtype): string[] {
  return [...MODEL_CONFIG_FILES, ONNX_FILE_BY_DTYPE[dtype]];
}

/** A file the model folder contributes, with its path relative to the model folder ("onnx/model.onnx"). */
export interface LocalModelFile {
  readonly path: string;
  /** A File/Blob crosses to the worker without a copy; raw bytes are accepted too. */
  readonly bytes: Blob | ArrayBuffer | Uint8Array;
}

/** What `prepareLocalModel` hands to `EncodeBridge.registerLocalModel`. */
export interface LocalModel {
  /** Model name to put in the encoder config ("local/<folder>"). */
  readonly name: string;
  /** The picked folder's own name, for display. */
  readonly folder: string;
  /** Content fingerprint ("sha256-…"): use it as the config's `revision`, so cache keys change with the files. */
  readonly revision: string;
  readonly dtype: EncoderDtype;
  /** Dtypes whose weights the folder has (for the dtype selector). */
  readonly availableDtypes: readonly EncoderDtype[];
  readonly files: readonly LocalModelFile[];
}

/** A picked file: what `<input webkitdirectory>` yields (File), or anything shaped like it. */
export interface PickedFile extends Blob {
  readonly name: string;
  /** "folder/sub/file.json" for directory picks; absent or '' for single files. */
  readonly webkitRelativePath?: string;
}

/** The folder is not a loadable model; `missing` lists the files it lacks, relative to the model folder. */
export class LocalModelError extends Error {
  override readonly name = 'LocalModelError';
  constructor(
    message: string,
    readonly missing: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Path of a picked file inside the picked tree (forward slashes, no leading "./" or "/"). */
export function pickedPath(file: PickedFile): string {
  const raw = file.webkitRelativePath !== undefined && file.webkitRelativePath !== '' ? file.webkitRelativePath : file.name;
  return raw.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '');
}

/**
 * A valid transformers.js model id for a folder name: "local/" + the name with every character outside
 * [A-Za-z0-9_.-] replaced by "-", no "--" or "..", starting and ending with a letter or digit, ≤ 96 characters.
 */
export function localModelName(folder: string): string {
  let slug = folder
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 96)
    .replace(/[^A-Za-z0-9]+$/, '')
    .replace(/\.(git|ipynb)$/, '-$1');
  if (slug === '') slug = 'model';
  return `${LOCAL_MODEL_NAMESPACE}/${slug}`;
}

/** One model folder found in a picked tree. */
export interface LocalModelSelection<F> {
  readonly name: string;
  readonly folder: string;
  /** Prefix of the model folder inside the picked tree ('' or "outer/model/"). */
  readonly prefix: string;
  readonly availableDtypes: readonly EncoderDtype[];
  /** The files a load reads, relative to the model folder. */
  readonly files: readonly { readonly path: string; readonly file: F }[];
}

/** Files kept besides the required ones: small configs transformers.js may ask for, and external weights. */
function isExtraFile(path: string, dtype: EncoderDtype): boolean {
  if (!path.includes('/') && path.endsWith('.json')) return true;
  return path.startsWith(`${ONNX_FILE_BY_DTYPE[dtype]}_data`);
}

/**
 * Find the model folder in a picked tree and the files a `dtype` load needs. The model folder is the one
 * holding config.json (the picked folder itself, or one folder inside it). Throws `LocalModelError` naming
 * every missing file, and which dtypes the folder could load instead.
 */
export function selectLocalModelFiles<F>(
  entries: readonly { readonly path: string; readonly file: F }[],
  dtype: EncoderDtype,
): LocalModelSelection<F> {
  if (entries.length === 0)
    throw new LocalModelError('The picked folder is empty: pick a model folder (with config.json, tokenizer files and onnx/).');
  const configs = entries.map((e) => e.path).filter((p) => p === 'config.json' || p.endsWith('/config.json'));
  // The shallowest config.json marks the model folder; two at that depth are two models.
  const depth = (p: string) => p.split('/').length;
  const shallowest = Math.min(...configs.map(depth));
  const roots = configs.filter((p) => depth(p) === shallowest);
  if (roots.length > 1) {
    throw new LocalModelError(
      `The picked folder holds several models (${roots.map((p) => p.slice(0, -'config.json'.length) || './').join(', ')}): ` +
        `pick one model folder.`,
    );
  }
  const firstSegment = entries[0]!.path.includes('/') ? entries[0]!.path.split('/')[0]! : '';
  // Without any config.json, report against the picked folder itself.
  const prefix = roots[0] !== undefined ? roots[0].slice(0, -'config.json'.length) : firstSegment === '' ? '' : `${firstSegment}/`;
  const folder = prefix === '' ? firstSegment || 'model' : prefix.slice(0, -1).split('/').pop()!;

  const inFolder = new Map<string, F>();
  for (const e of entries) if (e.path.startsWith(prefix)) inFolder.set(e.path.slice(prefix.length), e.file);
  // Several public conversions (e.g. of SPLADE) put model.onnx at the root instead of under onnx/. Where the
  // weights of each dtype are is presets.ts's rule (`locateWeights`, the CLI's too); weights found at the root
  // (and their external data) are served under the onnx/ names transformers.js loads by default.
  const present = new Set(inFolder.keys());
  for (const d of ENCODER_DTYPES) {
    const found = locateWeights(ONNX_FILE_NAME[d], (p) => present.has(p));
    if (found === null || found.folder === 'onnx') continue;
    for (const suffix of ['', '_data']) {
      const file = inFolder.get(found.path + suffix);
      if (file === undefined) continue;
      inFolder.delete(found.path + suffix);
      inFolder.set(ONNX_FILE_BY_DTYPE[d] + suffix, file);
    }
  }
  const availableDtypes = ENCODER_DTYPES.filter((d) => inFolder.has(ONNX_FILE_BY_DTYPE[d]));
  const missing = requiredModelFiles(dtype).filter((p) => !inFolder.has(p));
  if (missing.length > 0) {
    const alternatives =
      availableDtypes.length > 0 && missing.length === 1 && missing[0] === ONNX_FILE_BY_DTYPE[dtype]
        ? ` (the folder has weights for: ${availableDtypes.join(', ')})`
        : '';
    const weights = ONNX_FILE_BY_DTYPE[dtype];
    const atRoot = missing.includes(weights) ? ` (${ONNX_FILE_NAME[dtype]} at the folder's root also works)` : '';
    throw new LocalModelError(
      `The model folder "${folder}" is missing ${missing.join(', ')}: a ${dtype} model needs ` +
        `${requiredModelFiles(dtype).join(', ')}${atRoot}${alternatives}.`,
      missing,
    );
  }
  const files = [...inFolder]
    .filter(([path]) => requiredModelFiles(dtype).includes(path) || isExtraFile(path, dtype))
    .map(([path, file]) => ({ path, file }));
  return { name: localModelName(folder), folder, prefix, availableDtypes, files };
}

/** Bytes sampled per file for the fingerprint: the whole file up to this size, else 16 spread-out windows. */
const SAMPLE_WHOLE_LIMIT = 4 * 1024 * 1024;
const SAMPLE_WINDOWS = 16;
const SAMPLE_WINDOW = 64 * 1024;

/**
 * A content fingerprint of the model files: SHA-256 over each path, size and content (whole files up to
 * 4 MiB; larger ones — the weights — by 16 windows of 64 KiB spread over the file, which differ between any
 * two checkpoints). Cheap on a 1 GB model, and it changes whenever the model does.
 */
export async function fingerprintFiles(files: readonly { readonly path: string; readonly file: Blob }[]): Promise<string> {
  const parts: BlobPart[] = [];
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, file } of sorted) {
    parts.push(`${path}\u0000${file.size}\u0000`);
    if (file.size <= SAMPLE_WHOLE_LIMIT) parts.push(file);
    else {
      for (let i = 0; i < SAMPLE_WINDOWS; i++) {
        const start = Math.floor(((file.size - SAMPLE_WINDOW) * i) / (SAMPLE_WINDOWS - 1));
        parts.push(file.slice(start, start + SAMPLE_WINDOW));
      }
    }
  }
  return `sha256-${(await sha256Hex(await new Blob(parts).arrayBuffer())).slice(0, 16)}`;
}

/**
 * Turn the files of a picked folder into a registrable local model for `dtype` (throws `LocalModelError`
 * when the folder lacks a required file). Nothing is read into memory but the small files and samples
 * the fingerprint needs; the Files themselves go to the worker.
 */
export async function prepareLocalModel(picked: Iterable<PickedFile> | ArrayLike<PickedFile>, dtype: EncoderDtype): Promise<LocalModel> {
  const list = Array.from(picked as ArrayLike<PickedFile>);
  const selection = selectLocalModelFiles(
    list.map((file) => ({ path: pickedPath(file), file })),
    dtype,
  );
  const files = selection.files.map(({ path, file }) => ({ path, bytes: file as Blob }));
  const revision = await fingerprintFiles(selection.files.map(({ path, file }) => ({ path, file })));
  return { name: selection.name, folder: selection.folder, revision, dtype, availableDtypes: selection.availableDtypes, files };
}

/** `bytes` as a Blob (Blobs pass through; raw bytes are copied once). */
export function asBlob(bytes: Blob | ArrayBuffer | Uint8Array): Blob {
  return bytes instanceof Blob
    ? bytes
    : new Blob([bytes instanceof Uint8Array ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)]);
}

/**
 * Worker-side check of registered files: a valid local name, paths relative and without "..", and the files
 * every load needs (config + tokenizer + at least one onnx weights file). Throws `LocalModelError`.
 */
export function validateRegisteredModel(name: string, paths: readonly string[]): void {
  if (!name.startsWith(`${LOCAL_MODEL_NAMESPACE}/`) || localModelName(name.slice(LOCAL_MODEL_NAMESPACE.length + 1)) !== name) {
    throw new LocalModelError(
      `"${name}" is not a local model name (expected "${LOCAL_MODEL_NAMESPACE}/<folder>", as prepareLocalModel makes it).`,
    );
  }
  const bad = paths.filter((p) => p === '' || p.startsWith('/') || p.split('/').includes('..'));
  if (bad.length > 0)
    throw new LocalModelError(
      `local model ${name}: invalid file paths ${bad.map((p) => JSON.stringify(p)).join(', ')} (expected paths relative to ` +
        `the model folder).`,
    );
  const have = new Set(paths);
  const missing: string[] = MODEL_CONFIG_FILES.filter((p) => !have.has(p));
  if (!ENCODER_DTYPES.some((d) => have.has(ONNX_FILE_BY_DTYPE[d])))
    missing.push(`onnx/model.onnx (or ${ONNX_FILE_BY_DTYPE.fp16}, ${ONNX_FILE_BY_DTYPE.q8})`);
  if (missing.length > 0) throw new LocalModelError(`local model ${name} is missing ${missing.join(', ')}.`, missing);
}

/** Registered local models: name → (path relative to the model folder → bytes). */
export type LocalModelRegistry = ReadonlyMap<string, ReadonlyMap<string, Blob>>;

const CONTENT_TYPES: readonly [RegExp, string][] = [
  [/\.json$/, 'application/json'],
  [/\.txt$/, 'text/plain; charset=utf-8'],
];

/**
 * The key's model and file when it names a registered model; else null. transformers.js looks a file up
 * under two keys: the local path ("/local-models/local/x/config.json", also accepted as an absolute URL) and,
 * after a hit, re-reads it in Node under the hub form ("<host>/local/x/resolve/<revision>/config.json").
 */
export function resolveLocalKey(
  registry: LocalModelRegistry,
  key: string,
  root = LOCAL_MODEL_ROOT,
): { model: string; path: string } | null {
  let path = key;
  if (/^[a-z][a-z0-9+.-]*:/i.test(key)) {
    try {
      path = decodeURI(new URL(key).pathname);
    } catch {
      return null;
    }
  }
  let best: { model: string; path: string } | null = null;
  const consider = (model: string, file: string) => {
    if (file !== '' && (best === null || model.length > best.model.length)) best = { model, path: file };
  };
  for (const model of registry.keys()) {
    if (path.startsWith(`${root}${model}/`)) consider(model, path.slice(root.length + model.length + 1));
    const hub = `/${model}/resolve/`;
    const at = path.indexOf(hub);
    if (at >= 0) {
      const afterRevision = path.slice(at + hub.length).replace(/^[^/]*\//, '');
      consider(model, afterRevision === path.slice(at + hub.length) ? '' : afterRevision);
    }
  }
  return best;
}

/**
 * transformers.js custom cache over the registered models: a hit is a fresh Blob-backed Response (with
 * content-length, for progress); anything else is a miss. `put` stores nothing: the files are already here.
 */
export function createLocalModelCache(registry: LocalModelRegistry, root = LOCAL_MODEL_ROOT): ModelFileCacheLike {
  return {
    async match(request: string): Promise<Response | undefined> {
      const found = resolveLocalKey(registry, request, root);
      if (found === null) return undefined;
      const blob = registry.get(found.model)?.get(found.path);
      if (blob === undefined) return undefined;
      const type = CONTENT_TYPES.find(([re]) => re.test(found.path))?.[1] ?? 'application/octet-stream';
      return new Response(blob, { status: 200, headers: { 'content-length': String(blob.size), 'content-type': type } });
    },
    async put(): Promise<void> {
      // Local models are never downloaded, so there is nothing to keep.
    },
  };
}
