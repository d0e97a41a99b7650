/**
 * An encoder's recipe: every setting that changes the vectors it makes, declared once. The encoders' presets
 * (EncoderConfig adds an id, a label and the kind), the vector packs' manifests (the recipe as written), the
 * cache's encoding identity (one role's prefix instead of both) and the reports' recipe lines all use this
 * type. It lives in core because the report layer, which may import only core, shows it too.
 */

export const POOLINGS = ['cls', 'mean', 'splade-max'] as const;
export type Pooling = (typeof POOLINGS)[number];

export const ENCODER_DTYPES = ['fp32', 'fp16', 'q8'] as const;
export type EncoderDtype = (typeof ENCODER_DTYPES)[number];

export type EncoderKind = 'dense' | 'sparse';

export interface EncoderRecipe {
  /** Model repo id (transformers.js layout: config.json, tokenizer.json, onnx/model*.onnx) or local folder name. */
  readonly model: string;
  /** Git revision on the hub (branch, tag or commit); recorded with every result. */
  readonly revision: string;
  readonly dtype: EncoderDtype;
  readonly pooling: Pooling;
  /** L2-normalize dense vectors (inner product then equals cosine). */
  readonly normalize: boolean;
  readonly queryPrefix: string;
  readonly passagePrefix: string;
  /** Tokens per input after truncation (special tokens included). */
  readonly maxLength: number;
  /** SPLADE: keep this many largest positive weights; null keeps every positive weight (Appendix A.7). */
  readonly sparseTopK: number | null;
}

/**
 * The recipe of a configuration (anything with a recipe's fields, e.g. an EncoderConfig), with `dtype` when the
 * weights loaded differ from the configured ones. A new object in this key order, which is the order written
 * into vector pack manifests.
 */
export function pickEncoderRecipe(config: EncoderRecipe, dtype: EncoderDtype = config.dtype): EncoderRecipe {
  const { model, revision, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK } = config;
  return { model, revision, dtype, pooling, normalize, queryPrefix, passagePrefix, maxLength, sparseTopK };
}
