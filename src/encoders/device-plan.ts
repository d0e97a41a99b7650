/**
 * Batch plans from the device's limits and the model's shapes, instead of constants.
 *
 * On WebGPU every tensor of a forward pass is a GPU buffer, and a buffer may hold at most the adapter's
 * `maxBufferSize` bytes and be bound to a shader as storage only up to `maxStorageBufferBindingSize` (WebGPU's
 * defaults: 256 MiB and 128 MiB). The widest tensors of a BERT-shaped encoder over a batch of `b` inputs
 * padded to `w` tokens, in float32:
 *
 * - the MLM head's logits (SPLADE): b · w · vocabulary · 4 bytes (30,522 pieces: 119 KiB per token);
 * - the feed-forward's inner activation: b · w · intermediate · 4;
 * - the hidden states: b · w · hidden · 4;
 * - the attention scores: b · heads · w² · 4.
 *
 * The first three grow with the padded tokens b · w, which `planBatches` already bounds (`maxTokens`); the
 * attention scores grow with b · w², bounded by `maxSquare`. A plan keeps each tensor within the smaller limit,
 * times a safety share (ONNX Runtime rounds buffer sizes up and keeps a few more alive). The out-of-memory
 * retry (halving a batch that fails) stays as the last resort, for what the estimate misses.
 */
import type { BatchPlan } from './batching.ts';

/** The adapter limits a plan follows (GPUSupportedLimits' names). */
export interface DeviceLimits {
  readonly maxBufferSize: number;
  readonly maxStorageBufferBindingSize: number;
}

/**
 * WASM has no buffer limits, but one 4 GB heap holds the weights and every live tensor: a budget of 256 MiB a
 * tensor keeps a batch's SPLADE logits (and the pooling's one intermediate of that size) far from it.
 */
export const WASM_TENSOR_BUDGET: DeviceLimits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 256 * 2 ** 20 };

/** WebGPU's default limits: what a device gets when it asks for nothing more. */
export const WEBGPU_DEFAULT_LIMITS: DeviceLimits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 };

/** The shapes of a BERT-like encoder that size its widest tensors. */
export interface ModelShape {
  readonly hidden: number;
  readonly heads: number;
  readonly intermediate: number;
  /** The MLM head's vocabulary when the model has one (SPLADE); null for a bare encoder. */
  readonly vocabulary: number | null;
}

/** Share of a limit a plan uses. */
const SAFETY = 0.9;
const FLOAT_BYTES = 4;

/**
 * The shapes from a Hugging Face `config.json` (BERT, RoBERTa, XLM-R, DistilBERT names), or null when it lacks
 * them. `maskedLm` says whether the loaded model carries the MLM head (SPLADE's pooling reads its logits).
 */
export function modelShape(config: Readonly<Record<string, unknown>>, maskedLm: boolean): ModelShape | null {
  const num = (...keys: string[]) => {
    for (const k of keys) {
      const v = config[k];
      if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
    }
    return null;
  };
  const hidden = num('hidden_size', 'dim', 'd_model');
  const heads = num('num_attention_heads', 'n_heads');
  const intermediate = num('intermediate_size', 'hidden_dim') ?? (hidden === null ? null : 4 * hidden);
  const vocabulary = num('vocab_size');
  if (hidden === null || heads === null || intermediate === null || (maskedLm && vocabulary === null)) return null;
  return { hidden, heads, intermediate, vocabulary: maskedLm ? vocabulary : null };
}

/** A plan within the device's limits, and which tensor decided it (for the row and the benchmark). */
export interface DevicePlan extends BatchPlan {
  /** "logits (30,522 per token)", "attention (16 heads)"... or null when the base plan already fits. */
  readonly boundBy: string | null;
}

/**
 * `base` narrowed so that no tensor of `shape` outgrows `limits`: `maxTokens` by the widest per-token tensor,
 * `maxSquare` by the attention scores. Never wider than `base`; at least one token of one input. `maxWidth`
 * (the inputs' longest possible length) says whether the attention budget can bind at all.
 */
export function planForLimits(base: BatchPlan, shape: ModelShape, limits: DeviceLimits, maxWidth = 512): DevicePlan {
  const bytes = Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize) * SAFETY;
  const perToken: [string, number][] = [
    [`hidden states (${shape.hidden} per token)`, shape.hidden],
    [`feed-forward activations (${shape.intermediate} per token)`, shape.intermediate],
  ];
  if (shape.vocabulary !== null) perToken.push([`logits (${shape.vocabulary.toLocaleString('en-US')} per token)`, shape.vocabulary]);
  const [widestName, widest] = perToken.reduce((a, b) => (b[1] > a[1] ? b : a));
  const tokens = Math.max(1, Math.floor(bytes / (widest * FLOAT_BYTES)));
  const square = Math.max(1, Math.floor(bytes / (shape.heads * FLOAT_BYTES)));
  const maxTokens = Math.min(base.maxTokens, tokens);
  const maxSquare = Math.min(base.maxSquare ?? Infinity, square);
  // Which limit binds: the token budget the base plan would otherwise allow, or its square at full width.
  const squareBinds = square < Math.min(base.maxSquare ?? Infinity, maxTokens * maxWidth);
  const boundBy = tokens < base.maxTokens ? widestName : squareBinds ? `attention scores (${shape.heads} heads)` : null;
  return { ...base, maxTokens, ...(Number.isFinite(maxSquare) ? { maxSquare } : {}), boundBy };
}

/** Bytes read back per input for pooling: the whole logits on the CPU, or one pooled vector from the device. */
export function readbackBytesPerInput(shape: ModelShape, width: number, pooledOnDevice: boolean): number {
  const perToken = shape.vocabulary ?? shape.hidden;
  return (pooledOnDevice ? perToken : perToken * width) * FLOAT_BYTES;
}
