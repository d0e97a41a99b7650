/**
 * The reader of the CLI's commands (`answers generate`, `make-queries`): `--reader` as a preset, a folder on disk or
 * a repo id (under --model-dir or on the host), with `--dtype`, and its loading on onnxruntime-node with download
 * progress on stderr and a clear error when it cannot load.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { formatBytes } from '../core/bytes.ts';
import { errorMessage } from '../core/error-message.ts';
import { locateWeights, weightsPath, type WeightsFolder } from '../encoders/presets.ts';
import type { LoadedReader } from '../encoders/reader.ts';
import {
  isReaderDtype,
  isReaderPresetId,
  READER_DTYPES,
  READER_ONNX_FILE,
  READER_PRESETS,
  READER_WEIGHTS_BYTES,
  type ReaderConfig,
  type ReaderDtype,
} from '../encoders/reader-presets.ts';
import { modelCacheDir } from './model-options.ts';
import { UsageError, type Io } from './output.ts';

/** The reader's options as commander gives them. */
export interface ReaderOpts {
  readonly reader: string;
  readonly dtype?: string;
  readonly modelDir?: string;
}

/** The reader config and model source for `--reader`: a preset, a folder on disk, or a repo id (under --model-dir or on the host). */
export function resolveReader(opts: ReaderOpts): { config: ReaderConfig; modelDir?: string; folder?: string } {
  const dtype = opts.dtype;
  if (dtype !== undefined && !isReaderDtype(dtype))
    throw new UsageError(`--dtype expects one of ${READER_DTYPES.join(', ')}, got "${dtype}"`);
  if (isReaderPresetId(opts.reader)) {
    const preset = READER_PRESETS[opts.reader];
    return {
      config: { ...preset, dtype: (dtype as ReaderDtype | undefined) ?? preset.dtype },
      ...(opts.modelDir ? { modelDir: opts.modelDir } : {}),
    };
  }
  const path = resolve(opts.reader);
  const isFolder = !opts.modelDir && existsSync(path) && statSync(path).isDirectory();
  const model = isFolder ? basename(path) : opts.reader;
  const config: ReaderConfig = { id: model, label: model, model, revision: 'main', dtype: (dtype as ReaderDtype | undefined) ?? 'fp32' };
  if (isFolder) return { config, modelDir: dirname(path), folder: path };
  return { config, ...(opts.modelDir ? { modelDir: opts.modelDir } : {}) };
}

/**
 * Where a reader's weights sit in its folder under the models root (`onnx/` or the folder's root: presets.ts's
 * `locateWeights`, the rule for encoders and the lab's folders too); undefined when the folder is not there (the
 * host then serves the transformers.js layout). Offline (or a folder given as --reader), weights in neither
 * place are refused here, naming both paths.
 */
export function localReaderWeights(config: ReaderConfig, modelDir: string | undefined, localOnly: boolean): WeightsFolder | undefined {
  if (modelDir === undefined) return undefined;
  const dir = join(modelDir, config.model);
  const file = READER_ONNX_FILE[config.dtype];
  const found = locateWeights(file, (p) => existsSync(join(dir, p)));
  if (found !== null) return found.folder;
  if (localOnly && existsSync(join(dir, 'config.json')))
    throw new UsageError(
      `reader "${config.model}" has no ${config.dtype} weights under ${modelDir}: expected ${join(dir, weightsPath(file, 'onnx'))} ` +
        `or ${join(dir, file)}`,
    );
  return undefined;
}

/** Bytes per file on stderr, at most once a second per file (and when a file completes). */
export function downloadPrinter(io: Io): (p: { file: string; loaded: number; total: number }) => void {
  const last = new Map<string, { at: number; loaded: number }>();
  return ({ file, loaded, total }) => {
    const now = Date.now();
    const done = total > 0 && loaded >= total;
    const before = last.get(file);
    if (before?.loaded === loaded || (!done && now - (before?.at ?? 0) < 1000)) return;
    last.set(file, { at: now, loaded });
    io.stderr(`reader: ${file} ${formatBytes(loaded)}${total > 0 ? ` of ${formatBytes(total)}` : ''}\n`);
  };
}

/** Where and how a resolved reader loads. */
export interface ReaderLoad {
  readonly config: ReaderConfig;
  readonly modelDir?: string | undefined;
  /** A folder given as --reader: read from disk only. */
  readonly folder?: string | undefined;
  readonly device: 'cpu' | 'cuda';
  readonly host?: string | undefined;
  readonly offline: boolean;
}

/** A loader of the reader (called only when an answer is missing from the cache). */
export function readerLoader(r: ReaderLoad, io: Io): () => Promise<LoadedReader> {
  const { config, modelDir, folder } = r;
  return async () => {
    const known = READER_WEIGHTS_BYTES[config.model]?.[config.dtype];
    if (known !== undefined && !modelDir)
      io.stderr(`reader: ${config.model} ${config.dtype} weights are ${formatBytes(known)} (downloaded once, then kept in the cache)\n`);
    const onnxFolder = localReaderWeights(config, modelDir, r.offline || folder !== undefined);
    const { loadReader, ReaderError } = await import('../encoders/reader.ts');
    const { DEFAULT_REMOTE_HOST } = await import('../encoders/encoder.ts');
    return loadReader(config, {
      device: r.device,
      source: {
        ...(modelDir ? { localModelPath: modelDir.endsWith('/') ? modelDir : `${modelDir}/` } : {}),
        ...(r.host ? { remoteHost: r.host } : {}),
        // A folder is read from disk only: a missing file is an error, not a request to the hub.
        allowRemote: !r.offline && folder === undefined,
        cacheDir: modelCacheDir(r.host ?? DEFAULT_REMOTE_HOST),
      },
      onDownload: downloadPrinter(io),
      ...(onnxFolder === undefined ? {} : { onnxFolder }),
    }).catch((e: unknown) => {
      if (e instanceof ReaderError) throw new UsageError(e.message, { cause: e });
      throw new UsageError(`could not load reader "${config.model}" (${config.dtype}) on ${r.device}: ${errorMessage(e)}`, { cause: e });
    });
  };
}
