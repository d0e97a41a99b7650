/**
 * Encoder presets with the RAGFlip paper's exact settings (§3.1). A preset is configuration, not code:
 * any Hugging Face repo id in the transformers.js layout, a mirror host or a local folder works the same.
 */

import type { EncoderDtype, EncoderKind, EncoderRecipe } from '../core/encoder-recipe.ts';

export type { EncoderDtype, EncoderKind, Pooling } from '../core/encoder-recipe.ts';

/** An encoder: its recipe (core/encoder-recipe.ts: the settings that change its vectors), named. */
export interface EncoderConfig extends EncoderRecipe {
  /** Stable key used in cache keys and run names. */
  readonly id: string;
  readonly label: string;
  readonly kind: EncoderKind;
}

const BGE_QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

/**
 * ONNX conversions in the transformers.js layout: the Xenova/* repos mirror the original checkpoints
 * (BAAI/bge-*, intfloat/e5-*) with fp32, fp16 and q8 weights. No public ONNX of
 * naver/splade-cocondenser-ensembledistil loads with transformers.js (castorini's is pooled, for Anserini);
 * PRESET_NOTES says what to host, and the `splade-pp` preset is a SPLADE that loads today.
 */
const LARGE = {
  'bge-large': {
    id: 'bge-large',
    label: 'BGE large en v1.5',
    model: 'Xenova/bge-large-en-v1.5',
    revision: 'main',
    kind: 'dense',
    pooling: 'cls',
    normalize: true,
    queryPrefix: BGE_QUERY_PREFIX,
    passagePrefix: '',
    maxLength: 512,
    sparseTopK: null,
    dtype: 'fp32',
  },
  'e5-large': {
    id: 'e5-large',
    label: 'E5 large v2',
    model: 'Xenova/e5-large-v2',
    revision: 'main',
    kind: 'dense',
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    maxLength: 512,
    sparseTopK: null,
    dtype: 'fp32',
  },
  splade: {
    id: 'splade',
    label: 'SPLADE CoCondenser EnsembleDistil',
    model: 'naver/splade-cocondenser-ensembledistil',
    revision: 'main',
    kind: 'sparse',
    pooling: 'splade-max',
    normalize: false,
    queryPrefix: '',
    passagePrefix: '',
    maxLength: 256,
    sparseTopK: 256,
    dtype: 'fp32',
  },
} as const satisfies Record<string, EncoderConfig>;

/** Smaller siblings with the same recipe, for quick demos: only the checkpoint changes. */
const QUICK = {
  'bge-small': { ...LARGE['bge-large'], id: 'bge-small', label: 'BGE small en v1.5 (quick)', model: 'Xenova/bge-small-en-v1.5' },
  'e5-small': { ...LARGE['e5-large'], id: 'e5-small', label: 'E5 small v2 (quick)', model: 'Xenova/e5-small-v2' },
} as const satisfies Record<string, EncoderConfig>;

/**
 * A SPLADE that loads from the hub today: Qdrant's ONNX export (model.onnx at the repo's root, MLM logits) of
 * prithivida/Splade_PP_en_v1, an independent SPLADE++ training, not the paper's naver checkpoint. Same recipe.
 */
const SPLADE_PP = {
  'splade-pp': {
    ...LARGE.splade,
    id: 'splade-pp',
    label: 'SPLADE++ en v1 (not the paper’s checkpoint)',
    model: 'Qdrant/Splade_PP_en_v1',
  },
} as const satisfies Record<string, EncoderConfig>;

export const PRESETS = { ...LARGE, ...SPLADE_PP, ...QUICK } as const;

/**
 * Weights sizes per dtype as the hub lists them (bytes, from its file pages; see docs/encoders.md "Preset files"):
 * what the lab says before a download when the host cannot be asked.
 */
export const KNOWN_WEIGHTS_BYTES: Readonly<Record<string, Partial<Record<EncoderDtype, number>>>> = {
  'Xenova/bge-large-en-v1.5': { fp32: 1_340_000_000, fp16: 669_000_000, q8: 336_983_162 },
  'Xenova/e5-large-v2': { fp32: 1_340_000_000, fp16: 669_000_000, q8: 337_000_000 },
  'Xenova/bge-small-en-v1.5': { fp32: 133_000_000, fp16: 66_700_000, q8: 34_000_000 },
  'Xenova/e5-small-v2': { fp32: 133_000_000, fp16: 66_700_000, q8: 34_000_000 },
  'Qdrant/Splade_PP_en_v1': { fp32: 532_000_000 },
};

/** The paper's SPLADE checkpoint is published as PyTorch weights only: what to host to run it. */
export const SPLADE_EXPORT_COMMAND =
  'optimum-cli export onnx --model naver/splade-cocondenser-ensembledistil --task fill-mask splade-onnx/';

/** Why a preset's repo does not load as published, and what to do instead. */
export const PRESET_NOTES: Readonly<Record<string, string>> = {
  'naver/splade-cocondenser-ensembledistil':
    `naver publishes this checkpoint as PyTorch weights only (no ONNX). Export it once (\`${SPLADE_EXPORT_COMMAND}\`), then ` +
    'serve that folder from your model host or pick it as a local folder (either layout loads); or use the SPLADE++ preset, ' +
    'a different SPLADE checkpoint that loads today',
};

export type PresetId = keyof typeof PRESETS;

export function isPresetId(s: string): s is PresetId {
  return Object.hasOwn(PRESETS, s);
}

/** The text an encoder sees for a query or a passage (prefix + text, as the checkpoint was trained). */
export function encoderInput(config: EncoderConfig, role: 'query' | 'passage', text: string): string {
  return (role === 'query' ? config.queryPrefix : config.passagePrefix) + text;
}

/**
 * A model folder's files as transformers.js reads them: the config and tokenizer, and the weights of each
 * dtype (under `onnx/` in its layout; some repos put them at the root). One table for the encoders, the lab's
 * local folders and the CLI's offline check.
 */
export const MODEL_CONFIG_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
export const ONNX_FILE_NAME: Readonly<Record<EncoderDtype, string>> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
};
/** The weights under transformers.js's `onnx/` folder. */
export const ONNX_FILE_BY_DTYPE: Readonly<Record<EncoderDtype, string>> = {
  fp32: `onnx/${ONNX_FILE_NAME.fp32}`,
  fp16: `onnx/${ONNX_FILE_NAME.fp16}`,
  q8: `onnx/${ONNX_FILE_NAME.q8}`,
};

/** Where a model folder keeps the weights of a dtype: transformers.js's `onnx/` folder, or the folder's root. */
export type WeightsFolder = 'onnx' | '';

/** A weights file (`model.onnx`, `model_quantized.onnx`, …) at `folder`: `onnx/model.onnx`, or `model.onnx` at the root. */
export function weightsPath(file: string, folder: WeightsFolder): string {
  return folder === '' ? file : `${folder}/${file}`;
}

/**
 * Where to look for a weights file, in order: `onnx/` (transformers.js's layout) first, then the folder's
 * root (several public conversions, e.g. of SPLADE, put `model.onnx` there).
 */
export const WEIGHTS_FOLDERS: readonly WeightsFolder[] = ['onnx', ''];

/**
 * The one rule for a model folder's layout (the lab's picked folders, the CLI's --model-dir for encoders and
 * readers, the hub plan): a weights file (`ONNX_FILE_NAME[dtype]`, a reader's `READER_ONNX_FILE[dtype]`) is
 * the first of `onnx/<file>` and `<file>` that the folder has, or null. `has` answers for paths relative to
 * the model folder. A load then passes the folder to transformers.js as its `subfolder` (`''` for the root).
 */
export function locateWeights(file: string, has: (path: string) => boolean): { folder: WeightsFolder; path: string } | null {
  for (const folder of WEIGHTS_FOLDERS) {
    const path = weightsPath(file, folder);
    if (has(path)) return { folder, path };
  }
  return null;
}

/** transformers.js's Cache Storage (`env.cacheKey`), where browsers keep downloaded model files. */
export const MODEL_FILE_CACHE = 'transformers-cache';
