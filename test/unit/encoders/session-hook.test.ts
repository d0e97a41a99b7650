/**
 * The session hook is each load's own (encoder.ts `prepareSessions`): two loads whose hooks overlap each pool
 * their own way, a session made meanwhile without a load's options (a dense search's, a plain one) reaches the
 * runtime as it is, and the runtime's own `create` is back once the last load lets go. transformers.js on
 * onnxruntime-node, the generated tiny BERT served from memory (a picked folder's custom cache), so the runtime
 * is handed bytes and the hook acts, as in the browser. The runtime's `create` is gated, so the overlaps are
 * certain, not a matter of timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import { DENSE_TOPK_ONNX_BASE64, denseTopKOnnx, type OrtLike } from '../../../src/encoders/dense-onnx.ts';
import {
  loadEncoder,
  prepareSessions,
  type LoadedEncoder,
  type SessionFactory,
  type SessionPreparation,
} from '../../../src/encoders/encoder.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { createLocalModelCache, localModelSource } from '../../../src/lab/local-model.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;
const BERT_DIR = join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert');
const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night, and the moon pulls the tides'];

beforeAll(() => makeModelFixtures(), MODEL_LOAD_TIMEOUT_MS);

const sessions = ort.InferenceSession as unknown as { create: (model: unknown, options?: unknown) => Promise<ort.InferenceSession> };
const runtimeCreate = sessions.create;
afterEach(() => {
  sessions.create = runtimeCreate;
});

/**
 * The runtime's `create`, recording the bytes every session reaches it with and holding model sessions (more
 * than the dense graph's few hundred bytes) until let through, in the order they came.
 */
function gateRuntime() {
  const reached: Uint8Array[] = [];
  const held: (() => void)[] = [];
  sessions.create = async (model, options) => {
    if (model instanceof Uint8Array) {
      reached.push(model);
      if (model.length > 1024) await new Promise<void>((go) => held.push(go));
    }
    return runtimeCreate.call(ort.InferenceSession, model, options);
  };
  const gated = sessions.create;
  return { reached, held, gated };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

const pooling = (p: 'cls' | 'mean'): EncoderConfig => ({ ...PRESETS[p === 'cls' ? 'bge-large' : 'e5-large'], id: `tiny-${p}` });
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];

/** A load of the tiny BERT from memory with `p` pooling and the hook on `ort`. */
function loadFromMemory(p: 'cls' | 'mean'): Promise<LoadedEncoder> {
  const folder = new Map(FILES.map((f) => [f, new Blob([readFileSync(join(BERT_DIR, f))])]));
  const customCache = createLocalModelCache(new Map([['local/tiny-bert', folder]]));
  return loadEncoder(
    { ...pooling(p), model: 'local/tiny-bert' },
    { device: 'cpu', dtype: 'fp32', source: { ...localModelSource(), customCache }, ort: ort as unknown as SessionFactory },
  );
}

/** The vectors the CPU pooling gives for `p` (a load from disk: the runtime gets a path, no hook). */
async function reference(p: 'cls' | 'mean'): Promise<Float32Array[]> {
  const encoder = await loadEncoder(
    { ...pooling(p), model: 'fliplab/tiny-bert' },
    { device: 'cpu', dtype: 'fp32', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
  );
  try {
    return (await encoder.encode(TEXTS, 'passage')).dense!;
  } finally {
    await encoder.dispose();
  }
}

async function expectEncodes(encoder: LoadedEncoder, want: Float32Array[]): Promise<void> {
  const got = await encoder.encode(TEXTS, 'passage');
  expect(got.pooledOnDevice).toBe(true);
  got.dense!.forEach((v, i) => v.forEach((x, j) => expect(Math.abs(x - want[i]![j]!)).toBeLessThan(1e-5)));
}

describe('a load’s session hook is its own', () => {
  it(
    'two loads at once each pool their own way; a dense search and a plain session made meanwhile reach the runtime as they are',
    async () => {
      const want = { cls: await reference('cls'), mean: await reference('mean') };
      const { reached, held, gated } = gateRuntime();
      const loads = { cls: loadFromMemory('cls'), mean: loadFromMemory('mean') };
      await until(() => held.length === 2); // both loads' hooks hold, each with its model session in the runtime's hands

      // a dense search meanwhile: its graph reaches the runtime byte for byte, and it ranks as the JS path does
      const docs = denseMatrix(
        [
          [1, 0],
          [0, 1],
          [0.6, 0.8],
        ].map((v) => Float32Array.from(v)),
      );
      const queries = denseMatrix([Float32Array.from([0.8, 0.6])]);
      const before = reached.length;
      const hits = await denseTopKOnnx(ort as unknown as OrtLike, docs, queries, 2);
      expect(Buffer.from(reached[before]!).toString('base64')).toBe(DENSE_TOPK_ONNX_BASE64);
      expect(hits.map((h) => Array.from(h.indices))).toEqual(denseTopK(docs, queries, 2).map((h) => Array.from(h.indices)));

      // the first load finishes while the second still holds its hook
      held[0]!();
      const first = await Promise.race([loads.cls.then(() => 'cls' as const), loads.mean.then(() => 'mean' as const)]);
      const second = first === 'cls' ? 'mean' : 'cls';
      await expectEncodes(await loads[first], want[first]);

      // a plain session of the model itself, made while the second hook holds: not pooled, weights as given
      const bert = new Uint8Array(readFileSync(join(BERT_DIR, 'onnx/model.onnx')));
      const plainMade = sessions.create(bert);
      await until(() => held.length === 3);
      held[2]!();
      const plain = await plainMade;
      expect(reached.at(-1)).toBe(bert);
      expect(plain.outputNames).toEqual(['last_hidden_state']);
      await plain.release();

      held[1]!();
      const last = await loads[second];
      await expectEncodes(last, want[second]);
      for (const p of ['cls', 'mean'] as const)
        expect((await loads[p]).prepared).toMatchObject({ pooled: true, lazy: false, externalTensors: expect.any(Number) });
      expect((await loads.cls).prepared!.externalTensors).toBeGreaterThan(0);
      // every load let go: the runtime's own create is back
      expect(sessions.create).toBe(gated);
      await Promise.all([(await loads.cls).dispose(), last.dispose()]);
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it('a hook let go first leaves the other in place; the last to let go puts the runtime’s own create back', async () => {
    const bert = new Uint8Array(readFileSync(join(BERT_DIR, 'onnx/model.onnx')));
    const heard: Record<string, SessionPreparation[]> = { a: [], b: [] };
    const factory = ort as unknown as SessionFactory;
    const a = prepareSessions(factory, { pooling: 'cls', onPrepared: (p) => heard.a!.push(p) });
    const b = prepareSessions(factory, { pooling: 'mean', onPrepared: (p) => heard.b!.push(p) });
    a.release();
    a.release(); // twice is once
    const hooked = await sessions.create(bert, b.sessionOptions);
    const plain = await sessions.create(bert);
    b.release();
    expect(sessions.create).toBe(runtimeCreate);
    expect([heard.a!.length, heard.b!.length]).toEqual([0, 1]);
    expect(heard.b![0]).toMatchObject({ pooled: true, lazy: false });
    const ids = BigInt64Array.from([2n, 7n, 9n]);
    const feeds = Object.fromEntries(
      plain.inputNames.map((n) => [n, new ort.Tensor('int64', n === 'input_ids' ? ids : ids.map(() => 1n), [1, 3])]),
    );
    expect((await hooked.run(feeds)).last_hidden_state!.dims).toEqual([1, 32]); // mean-pooled rows
    expect((await plain.run(feeds)).last_hidden_state!.dims).toEqual([1, 3, 32]);
    await Promise.all([hooked.release(), plain.release()]);
  });
});
