/**
 * SPLADE's pooling appended to the model graph (src/encoders/onnx-pooling.ts), run by onnxruntime-node on the
 * generated tiny MLM model: the pooled output equals the CPU pooling of the same model's logits (`spladePool`,
 * itself checked against literal loops in encoder.test.ts), for a batch with padding and very small weights.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import { appendPooling, DENSE_POOLED_OUTPUT, SPLADE_POOLED_OUTPUT, spladePoolingGraph } from '../../../src/encoders/onnx-pooling.ts';
import { onnxOpset } from '../../../src/encoders/onnx-proto.ts';
import { clsPool, meanPool, sparsify, spladePool } from '../../../src/encoders/pooling.ts';
import { applySource } from '../../../src/encoders/encoder.ts';

const MODEL = 'fliplab/tiny-splade';
let model: Uint8Array;

beforeAll(async () => {
  await makeModelFixtures();
  applySource({ localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false });
  model = new Uint8Array(readFileSync(join(DEFAULT_MODELS_DIR, MODEL, 'onnx/model.onnx')));
}, 60_000);

async function feedsFor(texts: string[], model = MODEL): Promise<{ feeds: Record<string, ort.Tensor>; mask: BigInt64Array; seq: number }> {
  const tokenizer = await AutoTokenizer.from_pretrained(model);
  const enc = tokenizer(texts, { padding: true, truncation: true, max_length: 64 }) as unknown as Record<
    string,
    { data: BigInt64Array; dims: number[] }
  >;
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of ['input_ids', 'attention_mask', 'token_type_ids'])
    feeds[name] = new ort.Tensor('int64', enc[name]!.data, enc[name]!.dims);
  return { feeds, mask: enc.attention_mask!.data, seq: enc.attention_mask!.dims[1]! };
}

describe('SPLADE pooling appended to the graph', () => {
  it("reads the model's opset without decoding its graph", () => {
    expect(onnxOpset(model)).toBe(17);
    expect(onnxOpset(new Uint8Array(0))).toBeNull();
    expect(() => onnxOpset(Uint8Array.of(0x0a, 0x80))).toThrow(/not an ONNX model/);
  });

  it('outputs, per text, the CPU pooling of the logits (padding ignored), fetched alone', async () => {
    const texts = ['tides and the moon', 'a lighthouse guides ships along the coast at night, and the moon pulls the tides', 'x'];
    const { feeds, mask, seq } = await feedsFor(texts);
    const plain = await ort.InferenceSession.create(model);
    const logits = (await plain.run(feeds)).logits!;
    const width = logits.dims[2] as number;
    const cpu = spladePool(logits.data as Float32Array, mask, { batch: texts.length, seq, width }, null);
    await plain.release();

    const pooledModel = appendPooling(model, 'splade')!;
    expect(pooledModel.length).toBeGreaterThan(model.length);
    const session = await ort.InferenceSession.create(pooledModel);
    expect(session.outputNames).toContain(SPLADE_POOLED_OUTPUT);
    expect(session.outputNames).toContain('logits');
    const out = await session.run(feeds, [SPLADE_POOLED_OUTPUT]);
    expect(Object.keys(out)).toEqual([SPLADE_POOLED_OUTPUT]);
    const pooled = out[SPLADE_POOLED_OUTPUT]!;
    expect(pooled.dims).toEqual([texts.length, width]);
    const data = pooled.data as Float32Array;
    let compared = 0;
    for (let b = 0; b < texts.length; b++) {
      const row = data.subarray(b * width, (b + 1) * width);
      const want = new Float32Array(width);
      cpu[b]!.indices.forEach((v, i) => (want[v] = cpu[b]!.values[i]!));
      for (let v = 0; v < width; v++) {
        const a = row[v]!;
        const e = want[v]!;
        expect(a >= 0).toBe(true);
        // Kahan's log1p keeps even the smallest weights to float precision
        expect(Math.abs(a - e)).toBeLessThanOrEqual(1e-6 * Math.max(e, 1e-30) + 1e-12);
        if (e > 0) compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
    await session.release();
  });

  it("writes each operator in the form the model's opset defines", () => {
    const text = (opset: number) => new TextDecoder('latin1').decode(spladePoolingGraph(opset));
    expect(text(12)).toMatch(/axes/);
    expect(text(17)).toContain('fliplab_splade_axis2');
    expect(text(17)).not.toContain('fliplab_splade_axis1');
    expect(text(18)).toContain('fliplab_splade_axis1');
    // the padding offset takes the logits' type by CastLike from opset 15; before it the logits become float
    expect(text(15)).toContain('CastLike');
    expect(text(14)).not.toContain('CastLike');
    expect(text(14)).toContain('fliplab_splade_logits_float');
  });
});

describe('prepareSessions: the hook a SPLADE load runs under', () => {
  it('appends the pooling to sessions made from bytes, answers an unnamed run with the pooled rows as logits, and unhooks', async () => {
    const { prepareSessions } = await import('../../../src/encoders/encoder.ts');
    const texts = ['tides and the moon', 'x'];
    const { feeds, mask, seq } = await feedsFor(texts);
    const plainSession = await ort.InferenceSession.create(model);
    const logits = (await plainSession.run(feeds)).logits!;
    const width = logits.dims[2] as number;
    const cpu = spladePool(logits.data as Float32Array, mask, { batch: texts.length, seq, width }, null);

    const prepared: unknown[] = [];
    const hook = prepareSessions(ort as never, { pooling: 'splade', onPrepared: (p) => prepared.push(p) });
    let hooked: ort.InferenceSession;
    try {
      hooked = await ort.InferenceSession.create(model, hook.sessionOptions as never);
    } finally {
      hook.release();
    }
    // the weights went in as external data pointing into the given bytes, and the pooling was appended
    expect(prepared).toEqual([{ externalTensors: expect.any(Number), externalBytes: expect.any(Number), pooled: true, lazy: false }]);
    expect((prepared[0] as { externalTensors: number }).externalTensors).toBeGreaterThan(0);
    // transformers.js runs a session with feeds only: the pooled rows come back under the name it reads
    const out = await hooked.run(feeds);
    expect(Object.keys(out)).toEqual(['logits']);
    expect(out.logits!.dims).toEqual([texts.length, width]);
    const rows = out.logits!.data as Float32Array;
    for (let b = 0; b < texts.length; b++) {
      const got = sparsify(rows.subarray(b * width, (b + 1) * width), null);
      expect(Array.from(got.indices)).toEqual(Array.from(cpu[b]!.indices));
      got.values.forEach((v, j) => expect(Math.abs(v - cpu[b]!.values[j]!)).toBeLessThanOrEqual(1e-6 * v));
    }
    // a run that names its outputs gets them as asked
    expect(Object.keys(await hooked.run(feeds, ['logits']))).toEqual(['logits']);
    // unhooked: a new session is the plain model again
    const after = await ort.InferenceSession.create(model);
    expect(after.outputNames).toEqual(['logits']);
    await Promise.all([plainSession.release(), hooked.release(), after.release()]);
  });
});

describe('dense pooling appended to the graph (CLS, mean)', () => {
  const BERT = 'fliplab/tiny-bert';

  it.each(['cls', 'mean'] as const)(
    '%s: the session outputs, per text, what the CPU pooling computes from the hidden states',
    async (mode) => {
      const bert = new Uint8Array(readFileSync(join(DEFAULT_MODELS_DIR, BERT, 'onnx/model.onnx')));
      const texts = ['tides and the moon', 'a lighthouse guides ships along the coast at night, and the moon pulls the tides', 'x'];
      const { feeds, mask, seq } = await feedsFor(texts, BERT);
      const plain = await ort.InferenceSession.create(bert);
      const hidden = (await plain.run(feeds)).last_hidden_state!;
      const width = hidden.dims[2] as number;
      const d = { batch: texts.length, seq, width };
      const cpu = mode === 'cls' ? clsPool(hidden.data as Float32Array, d) : meanPool(hidden.data as Float32Array, mask, d);
      await plain.release();

      const session = await ort.InferenceSession.create(appendPooling(bert, mode)!);
      const out = (await session.run(feeds, [DENSE_POOLED_OUTPUT]))[DENSE_POOLED_OUTPUT]!;
      expect(out.dims).toEqual([texts.length, width]);
      const rows = out.data as Float32Array;
      for (let b = 0; b < texts.length; b++)
        for (let j = 0; j < width; j++) {
          const want = cpu[b]![j]!;
          expect(Math.abs(rows[b * width + j]! - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want)));
        }
      await session.release();
    },
  );

  it('the hook hands transformers.js the pooled rows as last_hidden_state, 2-D, and loads a model it cannot extend as it is', async () => {
    const { prepareSessions } = await import('../../../src/encoders/encoder.ts');
    const bert = new Uint8Array(readFileSync(join(DEFAULT_MODELS_DIR, BERT, 'onnx/model.onnx')));
    const { feeds } = await feedsFor(['tides and the moon'], BERT);
    const prepared: { pooled: boolean }[] = [];
    const hook = prepareSessions(ort as never, { pooling: 'mean', onPrepared: (p) => prepared.push(p) });
    let hooked: ort.InferenceSession;
    let masked: ort.InferenceSession;
    try {
      hooked = await ort.InferenceSession.create(bert, hook.sessionOptions as never);
      // the MLM model has no last_hidden_state: the appended mean pooling cannot attach, so it loads unpooled
      masked = await ort.InferenceSession.create(model, hook.sessionOptions as never);
    } finally {
      hook.release();
    }
    const out = await hooked.run(feeds);
    expect(Object.keys(out)).toEqual(['last_hidden_state']);
    expect(out.last_hidden_state!.dims.length).toBe(2);
    expect(prepared.map((p) => p.pooled)).toEqual([true, false]);
    expect(masked.outputNames).toEqual(['logits']);
    await Promise.all([hooked.release(), masked.release()]);
  });
});
