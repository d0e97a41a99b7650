/**
 * The encode worker's guards around ONNX Runtime (src/worker/models.ts, encode-api.ts), in Node on
 * onnxruntime-node with the generated tiny BERT registered as a picked folder (served from memory, so the runtime
 * is handed bytes and the session hook acts, as in the browser):
 * - the lazy path's self-test runs before its first use; a runtime that breaks the mounted-file contract
 *   (onnxruntime-node reads the view's own buffer) fails it, and the model loads with its file in memory, the
 *   load result saying why;
 * - a load and a dense search at once: the search's session reaches the runtime as it is, and the load result
 *   describes the model's own session;
 * - loads are taken one at a time (transformers.js's env, which each load sets, is the worker's).
 * The runtime's `create` is gated where an overlap is tested, so it is certain, not a matter of timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import { DENSE_TOPK_ONNX_BASE64, type OrtLike } from '../../../src/encoders/dense-onnx.ts';
import { loadEncoder } from '../../../src/encoders/encoder.ts';
import { lazyContractSelfTestFile } from '../../../src/encoders/lazy-contract.ts';
import type { ReadSync } from '../../../src/encoders/lazy-weights.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { localModelSource } from '../../../src/lab/local-model.ts';
import { createEncodeApi } from '../../../src/worker/encode-api.ts';
import { WorkerModels } from '../../../src/worker/models.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;
const BERT_DIR = join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert');
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night'];
const LOCAL = 'local/tiny-bert';
const cls: EncoderConfig = { ...PRESETS['bge-large'], id: 'tiny-cls', model: LOCAL };
const mean: EncoderConfig = { ...PRESETS['e5-large'], id: 'tiny-mean', model: LOCAL };
const fromFolder = { device: 'wasm', source: localModelSource() } as const;
const files = () => FILES.map((path) => ({ path, bytes: new Uint8Array(readFileSync(join(BERT_DIR, path))) }));

beforeAll(() => makeModelFixtures(), MODEL_LOAD_TIMEOUT_MS);

const sessions = ort.InferenceSession as unknown as { create: (model: unknown, options?: unknown) => Promise<unknown> };
const runtimeCreate = sessions.create;
afterEach(() => {
  sessions.create = runtimeCreate;
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

/** CLS vectors of TEXTS from a load from disk (the runtime gets a path: no hook, pooled on the CPU). */
async function referenceCls(): Promise<Float32Array[]> {
  const encoder = await loadEncoder(
    { ...cls, model: 'fliplab/tiny-bert' },
    { device: 'cpu', dtype: 'fp32', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
  );
  try {
    return (await encoder.encode(TEXTS, 'passage')).dense!;
  } finally {
    await encoder.dispose();
  }
}

function expectClose(got: readonly Float32Array[], want: readonly Float32Array[]): void {
  expect(got).toHaveLength(want.length);
  got.forEach((v, i) => v.forEach((x, j) => expect(Math.abs(x - want[i]![j]!)).toBeLessThan(1e-5)));
}

describe('the encode worker guards the runtime', () => {
  it(
    'a runtime that breaks the mounted-file contract fails the self-test: the model loads in memory, and the result says why',
    async () => {
      // reads of the picked model file and of the self-test's file, found by the Blob's size (Node has no FileReaderSync)
      const known = [...files().map((f) => f.bytes), lazyContractSelfTestFile()];
      let reads = 0;
      const readSync: ReadSync = (blob, start, end) => {
        reads++;
        return known.find((b) => b.length === blob.size)!.slice(start, end);
      };
      let selfTests = 0;
      sessions.create = (model, options) => {
        const mounts = (options as { externalData?: { path: string }[] } | undefined)?.externalData ?? [];
        if (mounts.some((m) => m.path.includes('self-test'))) selfTests++;
        return runtimeCreate.call(ort.InferenceSession, model, options);
      };
      const models = new WorkerModels({ ort: ort as unknown as OrtLike, cpuDevice: 'cpu', readSync });
      models.init({ useBrowserCache: false }); // Node has no Cache Storage; a picked folder needs none
      await models.register(LOCAL, files());
      const result = await models.loadEncoder(cls, fromFolder);
      expect(result.externalWeights).toEqual({
        tensors: expect.any(Number),
        bytes: expect.any(Number),
        lazy: false,
        reason: expect.stringMatching(
          /^onnxruntime-web \(version unknown\) \(tested: .+\) failed the self-test of reading weights from a stored file \(.+\): model files are read into memory instead$/,
        ),
      });
      expect(result.externalWeights!.tensors).toBeGreaterThan(0);
      // the self-test ran (and onnxruntime-node read nothing through its view); the model file was not served lazily
      expect([selfTests, reads]).toEqual([1, 0]);
      const batch = await models.encoder!.encode(TEXTS, 'passage');
      expect(batch.pooledOnDevice).toBe(true);
      expectClose(batch.dense!, await referenceCls());
      // the self-test ran once for the worker: a second load asks it no more
      await models.loadEncoder(mean, fromFolder);
      expect([selfTests, reads]).toEqual([1, 0]);
      await models.dispose();
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'a load and a dense search at once: the search’s graph reaches the runtime as it is; the load result is the model’s',
    async () => {
      const api = createEncodeApi({ ort: ort as unknown as OrtLike, cpuDevice: 'cpu' });
      await api.init({ useBrowserCache: false });
      await api.registerLocalModel(LOCAL, files());
      const reached: Uint8Array[] = [];
      const held: (() => void)[] = [];
      sessions.create = async (model, options) => {
        if (model instanceof Uint8Array) {
          reached.push(model);
          if (model.length > 1024) await new Promise<void>((go) => held.push(go));
        }
        return runtimeCreate.call(ort.InferenceSession, model, options);
      };
      const loading = api.load(cls, fromFolder);
      await until(() => held.length === 1); // the load's hook holds, its model session in the runtime's hands
      const docs = denseMatrix(
        [
          [1, 0],
          [0, 1],
          [0.6, 0.8],
        ].map((v) => Float32Array.from(v)),
      );
      const queries = denseMatrix([Float32Array.from([0.8, 0.6])]);
      const before = reached.length;
      const found = await api.denseSearch(docs, queries, 2, 'wasm');
      expect(Buffer.from(reached[before]!).toString('base64')).toBe(DENSE_TOPK_ONNX_BASE64);
      expect(found.indices.map((i) => Array.from(i))).toEqual(denseTopK(docs, queries, 2).map((h) => Array.from(h.indices)));
      held[0]!();
      const result = await loading;
      expect(result.externalWeights).toEqual({ tensors: expect.any(Number), bytes: expect.any(Number), lazy: false });
      expect(result.externalWeights!.tensors).toBeGreaterThan(0);
      const batch = await api.encode(TEXTS, 'passage');
      expect(batch.pooledOnDevice).toBe(true);
      expectClose(batch.dense!, await referenceCls());
      await api.dispose();
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'two loads asked for at once are taken one at a time',
    async () => {
      const models = new WorkerModels({ ort: ort as unknown as OrtLike, cpuDevice: 'cpu', readSync: null });
      models.init({ useBrowserCache: false });
      await models.register(LOCAL, files());
      const events: string[] = [];
      const arrived = () => events.filter((e) => e === 'session').length;
      sessions.create = async (model, options) => {
        if (model instanceof Uint8Array && model.length > 1024) {
          events.push('session');
          // the first model session waits for a second to arrive (at most 300 ms: one never comes while it waits)
          if (arrived() === 1) await Promise.race([until(() => arrived() > 1), new Promise((r) => setTimeout(r, 300))]);
        }
        return runtimeCreate.call(ort.InferenceSession, model, options);
      };
      const a = models.loadEncoder(cls, fromFolder).then(() => events.push('loaded cls'));
      const b = models.loadEncoder(mean, fromFolder).then(() => events.push('loaded mean'));
      await Promise.all([a, b]);
      expect(events).toEqual(['session', 'loaded cls', 'session', 'loaded mean']);
      await models.dispose();
    },
    MODEL_LOAD_TIMEOUT_MS,
  );
});
