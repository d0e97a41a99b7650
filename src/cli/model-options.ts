/** Model selection flags shared by `search` and `encode`, and loading an encoder from them. */
import { errorMessage } from '../core/error-message.ts';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
// Types only: transformers.js and onnxruntime-node load when a command really encodes (loadEncoderFromOptions),
// so `fliplab eval`, `bm25`, `flips` and `compare` never pay for them.
import type { EncoderDevice, LoadedEncoder } from '../encoders/encoder.ts';
import { BATCH_PLAN_BY_DEVICE, DEFAULT_BATCH_PLAN, type EncodeProgress } from '../encoders/job.ts';
import type { BatchPlan } from '../encoders/batching.ts';
import {
  isPresetId,
  locateWeights,
  MODEL_CONFIG_FILES,
  ONNX_FILE_NAME,
  PRESETS,
  weightsPath,
  type EncoderConfig,
  type EncoderDtype,
  type Pooling,
  type WeightsFolder,
} from '../encoders/presets.ts';
import { parseIntFlag } from './args.ts';
import { UsageError, type Io } from './output.ts';
import { formatBytes } from '../core/bytes.ts';
import { ENCODER_DTYPES } from '../core/encoder-recipe.ts';

export interface ModelOpts {
  model?: string;
  modelDir?: string;
  host?: string;
  offline?: boolean;
  device: string;
  dtype?: string;
  pooling?: string;
  queryPrefix?: string;
  passagePrefix?: string;
  maxLength?: number;
  sparseTopK?: string;
  split: string;
  batchTokens?: number;
}

const DEVICES = ['cpu', 'cuda'] as const;
const POOLINGS = ['cls', 'mean', 'splade'] as const;

/** The manifest a local model folder may carry (the generated fixtures do) naming the model's pooling. */
export const MODEL_MANIFEST = 'fixture-manifest.json';

/** Pooling named by `<modelDir>/<model>/fixture-manifest.json` (`"pooling": "cls" | "mean" | "splade"`), if any. */
function manifestPooling(opts: ModelOpts): string | undefined {
  if (!opts.modelDir || opts.model === undefined) return undefined;
  const path = join(opts.modelDir, opts.model, MODEL_MANIFEST);
  if (!existsSync(path)) return undefined;
  try {
    const pooling = (JSON.parse(readFileSync(path, 'utf8')) as { pooling?: unknown }).pooling;
    return typeof pooling === 'string' ? pooling : undefined;
  } catch {
    return undefined;
  }
}

/** A preset by id, or any repo id / local folder with the settings given on the command line. */
export function resolveEncoderConfig(given: ModelOpts): EncoderConfig {
  if (given.model === undefined)
    throw new UsageError(`--model is required (a preset: ${Object.keys(PRESETS).join(', ')}; a hub repo id; or a folder)`);
  const base: EncoderConfig | undefined = isPresetId(given.model) ? PRESETS[given.model] : undefined;
  const named = base || given.pooling !== undefined ? undefined : manifestPooling(given);
  const opts: ModelOpts = named === undefined ? given : { ...given, pooling: named };
  if (!base && opts.pooling === undefined) {
    throw new UsageError(
      `--model "${opts.model}" is not a preset (${Object.keys(PRESETS).join(', ')}); give --pooling cls|mean|splade for a custom model ` +
        `(or put "pooling" in ${MODEL_MANIFEST} of its folder under --model-dir)`,
    );
  }
  const pooling = opts.pooling === undefined ? base!.pooling : opts.pooling === 'splade' ? 'splade-max' : (opts.pooling as Pooling);
  if (opts.pooling !== undefined && !(POOLINGS as readonly string[]).includes(opts.pooling)) {
    throw new UsageError(`--pooling expects one of ${POOLINGS.join(', ')}, got "${opts.pooling}"`);
  }
  if (opts.dtype !== undefined && !(ENCODER_DTYPES as readonly string[]).includes(opts.dtype)) {
    throw new UsageError(`--dtype expects one of ${ENCODER_DTYPES.join(', ')}, got "${opts.dtype}"`);
  }
  const sparse = pooling === 'splade-max';
  const sparseTopK =
    opts.sparseTopK === undefined
      ? (base?.sparseTopK ?? (sparse ? 256 : null))
      : opts.sparseTopK === 'all'
        ? null
        : parseIntFlag('--sparse-top-k', 1)(opts.sparseTopK);
  return {
    id: base ? base.id : given.model,
    label: base ? base.label : given.model,
    model: base ? base.model : given.model,
    revision: base?.revision ?? 'main',
    kind: sparse ? 'sparse' : 'dense',
    pooling,
    normalize: base ? base.normalize : !sparse,
    queryPrefix: opts.queryPrefix ?? base?.queryPrefix ?? '',
    passagePrefix: opts.passagePrefix ?? base?.passagePrefix ?? '',
    maxLength: opts.maxLength ?? base?.maxLength ?? 512,
    sparseTopK,
    dtype: (opts.dtype as EncoderDtype | undefined) ?? base?.dtype ?? 'fp32',
  };
}

/**
 * Offline runs must find every file locally; say which one is missing instead of a loader stack trace.
 * Returns where the weights of `dtype` sit (`onnx/` or the folder's root: presets.ts's `locateWeights`, the
 * rule the lab's folder picker uses).
 */
export function checkLocalModel(config: EncoderConfig, modelDir: string | undefined, dtype: string): WeightsFolder {
  if (!modelDir) throw new UsageError('--offline needs --model-dir (where the model folders are)');
  const folder = join(modelDir, config.model);
  const layout =
    '(transformers.js layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx or model*.onnx at the root)';
  for (const f of MODEL_CONFIG_FILES) {
    if (!existsSync(join(folder, f))) {
      throw new UsageError(`model "${config.model}" is incomplete or missing under ${modelDir}: expected ${join(folder, f)} ${layout}`);
    }
  }
  const weights = ONNX_FILE_NAME[(ENCODER_DTYPES as readonly string[]).includes(dtype) ? (dtype as EncoderDtype) : 'fp32'];
  const found = locateWeights(weights, (p) => existsSync(join(folder, p)));
  if (found === null) {
    throw new UsageError(
      `model "${config.model}" is incomplete under ${modelDir}: expected ${join(folder, weightsPath(weights, 'onnx'))} or ` +
        `${join(folder, weights)} ${layout}`,
    );
  }
  return found.folder;
}

export function progressPrinter(io: Io, what: string): (p: EncodeProgress) => void {
  let last = 0;
  return (p) => {
    const t = Date.now();
    if (t - last < 1000 && p.done < p.total) return;
    last = t;
    const eta = p.etaMs === null ? '' : `, ETA ${(p.etaMs / 1000).toFixed(0)} s`;
    // The job's phase says what is happening until a model encodes (then its device is named).
    const where = p.device !== null ? `on ${p.device}` : p.phase === 'loading-model' ? 'loading the model' : 'reading the cache';
    io.stderr(`${what}: ${p.done}/${p.total} (${p.cached} cached) ${where}${eta}${p.fallback ? ` [${p.fallback}]` : ''}\n`);
  };
}

/**
 * Downloaded model files, one folder per host (transformers.js keys its file cache by repo path only, so a
 * mirror and the hub must not share one). FLIPLAB_CACHE_DIR overrides the root (~/.cache/fliplab/models).
 */
export function modelCacheDir(host: string): string {
  const root = process.env.FLIPLAB_CACHE_DIR ?? join(homedir(), '.cache', 'fliplab', 'models');
  return join(root, host.replace(/^https?:\/\//, '').replace(/[^\w.-]+/g, '_'));
}

/** The batch plan for a device, with --batch-tokens overriding its token budget. */
export function batchPlanFor(opts: ModelOpts): BatchPlan {
  const plan = BATCH_PLAN_BY_DEVICE[opts.device] ?? DEFAULT_BATCH_PLAN;
  return opts.batchTokens === undefined ? plan : { ...plan, maxTokens: opts.batchTokens };
}

export function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--model <id>', `a preset (${Object.keys(PRESETS).join(', ')}), a hub repo id, or a folder name under --model-dir`)
    .option('--model-dir <dir>', 'local models root (transformers.js layout); tried before the host')
    .option('--host <url>', 'hub-compatible model host or mirror (default https://huggingface.co/)')
    .option('--offline', 'never contact a host; only --model-dir')
    .option('--device <d>', `inference device: ${DEVICES.join(' or ')}`, 'cpu')
    .option('--dtype <t>', `weights: ${ENCODER_DTYPES.join(', ')} (default: the preset's, fp32)`)
    .option('--pooling <p>', `custom models: ${POOLINGS.join(', ')}`)
    .option('--query-prefix <s>', 'custom models: text put before each query')
    .option('--passage-prefix <s>', 'custom models: text put before each passage')
    .option('--max-length <n>', 'tokens per input after truncation', parseIntFlag('--max-length', 1, 8192))
    .option('--sparse-top-k <n>', 'SPLADE: weights kept per vector, or "all"')
    .option('--split <name>', 'qrels split whose queries are used', 'test')
    .option(
      '--batch-tokens <n>',
      'padded tokens per batch (default: 8192 on cpu, 65536 on cuda; halved automatically on out-of-memory)',
      parseIntFlag('--batch-tokens', 16),
    );
}

/** Resolve the flags to a config and load it, with errors that say what to fix. */
export async function loadEncoderFromOptions(opts: ModelOpts, io?: Io): Promise<{ config: EncoderConfig; encoder: LoadedEncoder }> {
  checkDevice(opts);
  const config = resolveEncoderConfig(opts);
  return { config, encoder: await loadConfiguredEncoder(config, opts, io) };
}

export function checkDevice(opts: ModelOpts): void {
  if (!(DEVICES as readonly string[]).includes(opts.device))
    throw new UsageError(`--device expects ${DEVICES.join(' or ')}, got "${opts.device}"`);
}

/** Load the encoder of a configuration (a preset, the flags', or a vector pack's) from the flags' model source. */
export async function loadConfiguredEncoder(config: EncoderConfig, opts: ModelOpts, io?: Io): Promise<LoadedEncoder> {
  if (opts.offline) checkLocalModel(config, opts.modelDir, opts.dtype ?? config.dtype);
  const { DEFAULT_REMOTE_HOST, loadEncoder, planModelDownload, planProblem } = await import('../encoders/encoder.ts');
  const source = {
    ...(opts.modelDir ? { localModelPath: opts.modelDir.endsWith('/') ? opts.modelDir : `${opts.modelDir}/` } : {}),
    ...(opts.host ? { remoteHost: opts.host } : {}),
    allowRemote: opts.offline !== true,
    cacheDir: modelCacheDir(opts.host ?? DEFAULT_REMOTE_HOST),
  };
  const dtype = (opts.dtype as EncoderDtype | undefined) ?? config.dtype;
  // Which files, how big, where the weights sit (onnx/ or the repo's root): known before any weights move.
  const plan = await planModelDownload(config, dtype, source);
  const problem = planProblem(plan);
  if (problem !== null) throw new UsageError(`could not load model "${config.model}": ${problem}`);
  if (plan.downloadBytes > 0 && io) {
    const files = plan.files.filter((f) => f.exists && !f.cached);
    const names = files.map((f) => f.path).join(', ');
    io.stderr(`model: downloading ${files.length} file${files.length > 1 ? 's' : ''}, ${formatBytes(plan.downloadBytes)} (${names})\n`);
  }
  const encoder = await loadEncoder(config, {
    device: opts.device as EncoderDevice,
    dtype,
    source,
    ...(plan.onnxFolder === null ? {} : { onnxFolder: plan.onnxFolder }),
    ...(plan.externalData ? { externalData: true } : {}),
  }).catch((e: unknown) => {
    const hint = opts.offline
      ? ''
      : `. No network? Put the model folder under a directory and use --model-dir <dir> --offline ` +
        `(the folder needs config.json, tokenizer.json, tokenizer_config.json and onnx/model*.onnx, or model*.onnx at its root)`;
    throw new UsageError(
      `could not load model "${config.model}" (${config.revision}, ${config.dtype}) on ${opts.device}: ` + `${errorMessage(e)}${hint}`,
    );
  });
  return encoder;
}
