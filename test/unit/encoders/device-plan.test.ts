/**
 * Batch plans from the device's buffer limits and the model's shapes (src/encoders/device-plan.ts): the
 * widest tensor of every planned batch fits the smaller limit; the plan narrows only what must narrow; the
 * shapes come from config.json. And fp16 weights are never placed on an adapter without shader-f16.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { planBatches } from '../../../src/encoders/batching.ts';
import {
  modelShape,
  planForLimits,
  readbackBytesPerInput,
  WEBGPU_DEFAULT_LIMITS,
  type DeviceLimits,
  type ModelShape,
} from '../../../src/encoders/device-plan.ts';
import { BATCH_PLAN_BY_DEVICE } from '../../../src/encoders/job.ts';
import { adapterLimits, pickDevice } from '../../../src/worker/onnx-runtime.ts';

const WEBGPU = BATCH_PLAN_BY_DEVICE.webgpu!;
const SPLADE_BASE: ModelShape = { hidden: 768, heads: 12, intermediate: 3072, vocabulary: 30522 };
const BGE_LARGE: ModelShape = { hidden: 1024, heads: 16, intermediate: 4096, vocabulary: null };
const BGE_SMALL: ModelShape = { hidden: 384, heads: 12, intermediate: 1536, vocabulary: null };

/** The largest single float32 tensor of a forward pass over `batch` inputs padded to `width`. */
function widestTensorBytes(shape: ModelShape, batch: number, width: number): number {
  const perToken = Math.max(shape.hidden, shape.intermediate, shape.vocabulary ?? 0);
  return Math.max(batch * width * perToken * 4, batch * shape.heads * width * width * 4);
}

describe('planForLimits', () => {
  it("SPLADE-base under WebGPU's default limits: the logits cap a batch at ~990 padded tokens", () => {
    const plan = planForLimits(WEBGPU, SPLADE_BASE, WEBGPU_DEFAULT_LIMITS);
    // 128 MiB × 0.9 / (30,522 × 4 bytes)
    expect(plan.maxTokens).toBe(Math.floor((128 * 2 ** 20 * 0.9) / (30522 * 4)));
    expect(plan.maxTokens).toBeLessThan(1000);
    expect(plan.boundBy).toBe('logits (30,522 per token)');
    expect(plan.maxBatch).toBe(WEBGPU.maxBatch);
    // the base plan's 32,768 tokens would have made a 4 GB logits tensor
    expect(widestTensorBytes(SPLADE_BASE, 64, 512)).toBeGreaterThan(3.9e9);
  });

  it('BGE-large: the feed-forward activations bind, and the attention scores get their own budget', () => {
    const plan = planForLimits(WEBGPU, BGE_LARGE, WEBGPU_DEFAULT_LIMITS);
    expect(plan.maxTokens).toBe(Math.floor((128 * 2 ** 20 * 0.9) / (4096 * 4)));
    expect(plan.boundBy).toBe('feed-forward activations (4096 per token)');
    expect(plan.maxSquare).toBe(Math.floor((128 * 2 ** 20 * 0.9) / (16 * 4)));
  });

  it('follows the smaller of the two limits, and keeps the base plan on a device with room', () => {
    const big: DeviceLimits = { maxBufferSize: 16 * 2 ** 30, maxStorageBufferBindingSize: 8 * 2 ** 30 };
    const roomy = planForLimits(WEBGPU, BGE_SMALL, big);
    expect(roomy).toMatchObject({ maxTokens: WEBGPU.maxTokens, maxBatch: WEBGPU.maxBatch, boundBy: null });
    const bindingSmaller = planForLimits(WEBGPU, SPLADE_BASE, { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 28 });
    const bufferSmaller = planForLimits(WEBGPU, SPLADE_BASE, { maxBufferSize: 2 ** 28, maxStorageBufferBindingSize: 2 ** 31 });
    expect(bindingSmaller.maxTokens).toBe(bufferSmaller.maxTokens);
    expect(bindingSmaller.maxTokens).toBe(Math.floor((2 ** 28 * 0.9) / (30522 * 4)));
  });

  it('every batch planned for any limits and lengths keeps its widest tensor within the limit', () => {
    const shape = fc.record({
      hidden: fc.integer({ min: 32, max: 2048 }),
      heads: fc.integer({ min: 1, max: 32 }),
      intermediate: fc.integer({ min: 32, max: 8192 }),
      vocabulary: fc.option(fc.integer({ min: 1000, max: 250_000 }), { nil: null }),
    });
    const limits = fc.record({
      maxBufferSize: fc.integer({ min: 2 ** 24, max: 2 ** 33 }),
      maxStorageBufferBindingSize: fc.integer({ min: 2 ** 24, max: 2 ** 33 }),
    });
    fc.assert(
      fc.property(shape, limits, fc.array(fc.integer({ min: 1, max: 512 }), { minLength: 1, maxLength: 300 }), (s, l, lengths) => {
        const plan = planForLimits(WEBGPU, s, l);
        const limit = Math.min(l.maxBufferSize, l.maxStorageBufferBindingSize);
        for (const batch of planBatches(lengths, plan)) {
          // a single input wider than the device allows is the out-of-memory retry's business, not the plan's
          if (batch.indices.length > 1) expect(widestTensorBytes(s, batch.indices.length, batch.width)).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 300, seed: 31 },
    );
  });

  it('planBatches keeps batch × width² within maxSquare', () => {
    const lengths = Array.from({ length: 10 }, () => 512);
    const batches = planBatches(lengths, { maxTokens: 100_000, maxBatch: 64, maxSquare: 512 * 512 * 3 });
    expect(batches.map((b) => b.indices.length)).toEqual([3, 3, 3, 1]);
    // without it the token budget alone decides
    expect(planBatches(lengths, { maxTokens: 100_000, maxBatch: 64 }).map((b) => b.indices.length)).toEqual([10]);
  });

  it('pooling on the device reads back one vector per input, not a width of logits', () => {
    expect(readbackBytesPerInput(SPLADE_BASE, 256, true)).toBe(30522 * 4);
    expect(readbackBytesPerInput(SPLADE_BASE, 256, true)).toBeLessThanOrEqual(1.1 * 30522 * 4);
    expect(readbackBytesPerInput(SPLADE_BASE, 256, false)).toBe(256 * 30522 * 4);
  });
});

describe('modelShape', () => {
  it("reads BERT's config.json names, and the vocabulary only for a masked-LM head", () => {
    const bert = { hidden_size: 768, num_attention_heads: 12, intermediate_size: 3072, vocab_size: 30522 };
    expect(modelShape(bert, true)).toEqual(SPLADE_BASE);
    expect(modelShape(bert, false)).toEqual({ ...SPLADE_BASE, vocabulary: null });
  });

  it("reads DistilBERT's names and takes 4 × hidden when the inner size is missing", () => {
    expect(modelShape({ dim: 768, n_heads: 12, hidden_dim: 3072, vocab_size: 30522 }, true)).toEqual(SPLADE_BASE);
    expect(modelShape({ hidden_size: 256, num_attention_heads: 4 }, false)).toEqual({
      hidden: 256,
      heads: 4,
      intermediate: 1024,
      vocabulary: null,
    });
  });

  it('says null when a shape is missing or not a positive integer (then the base plan stands)', () => {
    expect(modelShape({}, false)).toBeNull();
    expect(modelShape({ hidden_size: 768 }, false)).toBeNull();
    expect(modelShape({ hidden_size: 768, num_attention_heads: 12.5 }, false)).toBeNull();
    expect(modelShape({ hidden_size: 768, num_attention_heads: 12 }, true)).toBeNull(); // an MLM head needs its vocabulary
  });
});

describe('the WebGPU device a load gets (fake adapters)', () => {
  const nav = globalThis as { navigator?: unknown };
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  afterEach(() => {
    if (saved) Object.defineProperty(globalThis, 'navigator', saved);
    else delete nav.navigator;
  });
  function adapter(features: string[], limits?: Partial<DeviceLimits>) {
    Object.defineProperty(globalThis, 'navigator', {
      configurable: true,
      value: {
        gpu: {
          requestAdapter: async () => ({
            features: new Set(features),
            ...(limits ? { limits } : {}),
            info: { vendor: 'acme', architecture: 'gpu9', device: '', description: '', isFallbackAdapter: false },
          }),
        },
      },
    });
  }

  it('never runs fp16 (or q4f16) weights on an adapter without shader-f16: WASM, with the reason', async () => {
    adapter([]);
    for (const dtype of ['fp16', 'q4f16']) {
      const got = await pickDevice({ device: 'webgpu' }, dtype);
      expect(got.device).toBe('wasm');
      expect(got.reason).toBe(`the WebGPU adapter lacks shader-f16, which ${dtype} weights need`);
    }
    // fp32 and q8 need no shader-f16
    expect((await pickDevice({ device: 'webgpu' }, 'fp32')).device).toBe('webgpu');
  });

  it('runs fp16 on an adapter with shader-f16, and hands on its buffer limits', async () => {
    adapter(['shader-f16'], { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 30 });
    const got = await pickDevice({ device: 'webgpu' }, 'fp16');
    expect(got).toMatchObject({ device: 'webgpu', reason: null, limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 30 } });
  });

  it("an adapter that reports no limits gets WebGPU's defaults", () => {
    expect(adapterLimits({})).toEqual(WEBGPU_DEFAULT_LIMITS);
    expect(adapterLimits({ limits: { maxBufferSize: 2 ** 30 } })).toEqual({ ...WEBGPU_DEFAULT_LIMITS, maxBufferSize: 2 ** 30 });
  });
});
