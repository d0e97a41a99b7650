/**
 * Batches grouped by token length to cut padding: inputs sorted by length, then packed so that
 * (batch size × longest input in the batch) stays within a token budget, and (batch size × longest²) within
 * an attention budget when the plan has one. Pure and deterministic.
 */

export interface Batch {
  /** Positions in the caller's input array. */
  readonly indices: readonly number[];
  /** Longest input in the batch, in tokens (the padded width). */
  readonly width: number;
}

export interface BatchPlan {
  /** Padded tokens per batch the device handles comfortably (e.g. 8,192 on WASM). */
  readonly maxTokens: number;
  readonly maxBatch: number;
  /**
   * Batch size × (longest input)² at most this (the attention scores' size per head), when set: a device
   * whose buffers cap that tensor (see device-plan.ts).
   */
  readonly maxSquare?: number;
}

export function planBatches(lengths: readonly number[], plan: BatchPlan): Batch[] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const batches: Batch[] = [];
  let current: number[] = [];
  let width = 0;
  for (const i of order) {
    const len = Math.max(1, lengths[i]!);
    const nextWidth = Math.max(width, len);
    const n = current.length + 1;
    const over = nextWidth * n > plan.maxTokens || (plan.maxSquare !== undefined && nextWidth * nextWidth * n > plan.maxSquare);
    if (current.length > 0 && (current.length >= plan.maxBatch || over)) {
      batches.push({ indices: current, width });
      current = [];
    }
    current.push(i);
    width = current.length === 1 ? len : nextWidth;
  }
  if (current.length > 0) batches.push({ indices: current, width });
  return batches;
}
