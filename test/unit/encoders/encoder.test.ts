/**
 * The encoder module on the real stack (transformers.js tokenizer + onnxruntime-node) with the generated
 * tiny models. Expected vectors are computed here independently: raw model outputs from a bare
 * onnxruntime session, pooled with literal loops.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import { loadEncoder, type LoadedEncoder } from '../../../src/encoders/encoder.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { planBatches } from '../../../src/encoders/batching.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;
const source = { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false };

const bgeLike: EncoderConfig = { ...PRESETS['bge-large'], id: 'tiny-cls', model: 'fliplab/tiny-bert' };
const e5Like: EncoderConfig = { ...PRESETS['e5-large'], id: 'tiny-mean', model: 'fliplab/tiny-bert' };
const spladeLike: EncoderConfig = { ...PRESETS.splade, id: 'tiny-splade', model: 'fliplab/tiny-splade', sparseTopK: 8 };
const spladeAll: EncoderConfig = { ...spladeLike, id: 'tiny-splade-all', sparseTopK: null };

const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];

/** Raw outputs of one text through a bare ORT session: the oracle's input. */
async function rawOutput(modelId: string, text: string, maxLength: number): Promise<{ data: Float32Array; seq: number; width: number }> {
  const tokenizer = await AutoTokenizer.from_pretrained(modelId);
  const enc = tokenizer([text], { truncation: true, max_length: maxLength }) as unknown as Record<
    string,
    { data: BigInt64Array; dims: number[] }
  >;
  const session = await ort.InferenceSession.create(join(DEFAULT_MODELS_DIR, modelId, 'onnx/model.onnx'));
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of ['input_ids', 'attention_mask', 'token_type_ids'])
    feeds[name] = new ort.Tensor('int64', enc[name]!.data, enc[name]!.dims);
  const out = await session.run(feeds);
  const t = (out.last_hidden_state ?? out.logits)!;
  await session.release();
  return { data: t.data as Float32Array, seq: t.dims[1] as number, width: t.dims[2] as number };
}

const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));

let bge: LoadedEncoder;
let e5: LoadedEncoder;
let splade: LoadedEncoder;
let spladeFull: LoadedEncoder;

beforeAll(async () => {
  await makeModelFixtures();
  const load = (c: EncoderConfig) => loadEncoder(c, { device: 'cpu', dtype: 'fp32', source });
  [bge, e5, splade, spladeFull] = await Promise.all([load(bgeLike), load(e5Like), load(spladeLike), load(spladeAll)]);
}, MODEL_LOAD_TIMEOUT_MS);

describe('dense pooling on the real runtime', () => {
  it('BGE-style: CLS of the prefixed query, L2-normalized', async () => {
    const text = TEXTS[0]!;
    const { dense } = await bge.encode([text], 'query');
    const raw = await rawOutput('fliplab/tiny-bert', bgeLike.queryPrefix + text, 512);
    const cls = Array.from(raw.data.slice(0, raw.width));
    const expected = cls.map((x) => x / norm(cls));
    dense![0]!.forEach((x, j) => expect(x).toBeCloseTo(expected[j]!, 5));
    expect(norm(dense![0]!)).toBeCloseTo(1, 6);
  });

  it('E5-style: mean over real tokens of "passage: " + text, L2-normalized', async () => {
    const text = TEXTS[1]!;
    const { dense } = await e5.encode([text], 'passage');
    const raw = await rawOutput('fliplab/tiny-bert', `passage: ${text}`, 512);
    const mean = Array.from({ length: raw.width }, (_, j) => {
      let s = 0;
      for (let t = 0; t < raw.seq; t++) s += raw.data[t * raw.width + j]!;
      return s / raw.seq;
    });
    dense![0]!.forEach((x, j) => expect(x).toBeCloseTo(mean[j]! / norm(mean), 5));
  });

  it('queries and passages get their own prefixes', async () => {
    const q = (await e5.encode(['moon'], 'query')).dense![0]!;
    const p = (await e5.encode(['moon'], 'passage')).dense![0]!;
    const pAsQ = (await e5.encode(['passage: moon'], 'query')).dense![0]!;
    expect(Array.from(q)).not.toEqual(Array.from(p));
    // "query: passage: moon" ≠ "passage: moon": prefixes are applied exactly once, to the right role.
    expect(Array.from(pAsQ)).not.toEqual(Array.from(p));
  });

  it('padding in a batch does not change a vector', async () => {
    const alone = (await e5.encode([TEXTS[2]!], 'passage')).dense![0]!;
    const batched = (await e5.encode(TEXTS, 'passage')).dense![2]!;
    alone.forEach((x, j) => expect(batched[j]).toBeCloseTo(x, 5));
  });
});

describe('SPLADE pooling on the real runtime', () => {
  it('max over positions of log(1 + ReLU(logits)), top-k of the full vector', async () => {
    const text = TEXTS[1]!;
    const { sparse } = await spladeFull.encode([text], 'passage');
    const raw = await rawOutput('fliplab/tiny-splade', text, 256);
    const weights = new Map<number, number>();
    for (let v = 0; v < raw.width; v++) {
      let best = 0;
      for (let t = 0; t < raw.seq; t++) best = Math.max(best, Math.log(1 + Math.max(0, raw.data[t * raw.width + v]!)));
      if (best > 0) weights.set(v, best);
    }
    const full = sparse![0]!;
    expect(Array.from(full.indices)).toEqual([...weights.keys()]);
    full.values.forEach((x, i) => expect(x).toBeCloseTo(weights.get(full.indices[i]!)!, 5));

    const top = (await splade.encode([text], 'passage')).sparse![0]!;
    const expectedTop = [...weights]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, 8)
      .map(([v]) => v)
      .sort((a, b) => a - b);
    expect(Array.from(top.indices)).toEqual(expectedTop);
    expect(top.values.every((x) => x > 0)).toBe(true);
  });

  it('truncates inputs to the configured length', async () => {
    const long = Array.from({ length: 400 }, () => 'moon tide ship').join(' ');
    expect(splade.countTokens([long], 'passage')[0]).toBe(256);
    expect((await splade.encode([long], 'passage')).tokens[0]).toBe(256);
  });
});

describe('batch planning', () => {
  it('groups by length within the token budget and covers every input once', () => {
    const lengths = [5, 100, 7, 6, 98, 3, 50];
    const batches = planBatches(lengths, { maxTokens: 200, maxBatch: 3 });
    expect(batches.flatMap((b) => b.indices).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const b of batches) {
      expect(b.indices.length).toBeLessThanOrEqual(3);
      expect(b.width).toBe(Math.max(...b.indices.map((i) => lengths[i]!)));
      expect(b.width * b.indices.length <= 200 || b.indices.length === 1).toBe(true);
    }
    expect(batches[0]!.indices).toEqual([5, 0, 3]);
  });
});
