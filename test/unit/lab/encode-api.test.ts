/**
 * The encode worker's API (`createEncodeApi`, what workers/encode.worker.ts exposes) driven over a real comlink
 * channel in Node: a MessageChannel instead of a worker, onnxruntime-node instead of onnxruntime-web (its CPU
 * device stands for the contract's 'wasm'), fake-indexeddb for the caches, and the generated tiny models
 * (test/fixtures/README.md). Vectors and answers cross the channel as the page receives them.
 */
import 'fake-indexeddb/auto';
import { expose, proxy, wrap, type Remote } from 'comlink';
import * as ortNode from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures, makeReaderFixtures, TINY_READER } from '../../../scripts/models/make-fixtures.ts';
import { READER_TEMPLATE, readerMessages, type ReaderTask } from '../../../src/core/answers/prompt.ts';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import type { OrtLike } from '../../../src/encoders/dense-onnx.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { createEncodeApi, type EncodeApi } from '../../../src/worker/encode-api.ts';
import type { AnswerProgress, CorpusProgress, WorkerLoadOptions } from '../../../src/lab/encode-types.ts';
import { installErrorTransfer } from '../../../src/lab/errors.ts';
import { localModelSource } from '../../../src/lab/local-model.ts';
import { failureOf } from '../../../src/lab/problems.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;
const DIM = 32;

const bgeLike: EncoderConfig = { ...PRESETS['bge-large'], id: 'tiny-cls', model: 'fliplab/tiny-bert' };
const fromDisk: WorkerLoadOptions = { device: 'wasm', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } };
const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];

installErrorTransfer();
const { port1, port2 } = new MessageChannel();
expose(createEncodeApi({ ort: ortNode as unknown as OrtLike, cpuDevice: 'cpu' }), port1);
const api: Remote<EncodeApi> = wrap<EncodeApi>(port2);

beforeAll(async () => {
  await Promise.all([makeModelFixtures(), makeReaderFixtures()]);
  // Node has no Cache Storage: model files are read from the fixtures folder.
  await api.init({ useBrowserCache: false });
}, MODEL_LOAD_TIMEOUT_MS);
afterAll(async () => {
  await api.dispose();
  port1.close();
  port2.close();
});

const norm = (v: Float32Array) => Math.hypot(...v);

describe('createEncodeApi over comlink (onnxruntime-node)', () => {
  it('refuses to encode before a model is loaded', async () => {
    await expect(api.encode(['x'], 'query')).rejects.toThrow('encode() called before load()');
  });

  it(
    'loads a model from a folder on disk and encodes a few texts: one unit vector per text, transferred',
    async () => {
      const load = await api.load(bgeLike, fromDisk);
      expect(load).toEqual({
        device: 'wasm',
        reason: null,
        adapterInfo: null,
        limits: null,
        externalWeights: null,
        dtype: 'fp32',
        model: 'fliplab/tiny-bert',
        // What ran it, as the run's recipe records it (Node: onnxruntime-node picks its own threads).
        runtime: {
          onnxRuntime: expect.stringMatching(/^onnxruntime-node \d+\.\d+/),
          transformers: expect.stringMatching(/^transformers\.js 4\./),
          threads: null,
        },
      });
      // The same model loaded the same way is kept, not loaded again.
      expect(await api.load(bgeLike, fromDisk)).toEqual(load);
      const batch = await api.encode(TEXTS, 'passage');
      expect(batch.dense).toHaveLength(TEXTS.length);
      for (const v of batch.dense!) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v).toHaveLength(DIM);
        expect(norm(v)).toBeCloseTo(1, 5);
      }
      // Texts that differ get different vectors; real tokens are counted ([CLS] x [SEP] is 3).
      expect(Array.from(batch.dense![0]!)).not.toEqual(Array.from(batch.dense![1]!));
      expect(batch.tokens[2]).toBe(3);
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'says what it could not load, naming the model, dtype and device',
    async () => {
      const absent = { ...bgeLike, model: 'fliplab/absent' };
      await expect(api.load(absent, fromDisk)).rejects.toThrow(
        /^Could not load fliplab\/absent@main \(fp32, wasm\) from .*\/generated\/models\/: /,
      );
      // What failed crosses the worker as a code the page acts on, not as a message to re-read.
      expect(failureOf(await api.load(absent, fromDisk).catch((e: unknown) => e))).toBe('model-load');
      const forgotten = { ...bgeLike, model: 'local/forgotten-folder' };
      expect(failureOf(await api.load(forgotten, { device: 'wasm', source: localModelSource() }).catch((e: unknown) => e))).toBe(
        'folder-not-registered',
      );
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'encodes a collection cache first: a second job finds every vector in IndexedDB and loads no model',
    async () => {
      await api.dispose();
      const request = { config: bgeLike, load: fromDisk, texts: TEXTS, role: 'passage' as const, dbName: 'encode-api-vectors' };
      const phases: string[] = [];
      const first = await api.encodeCorpus(
        request,
        proxy((p: CorpusProgress) => void phases.push(p.phase)),
      );
      expect(first).toMatchObject({ cached: 0, encoded: TEXTS.length, load: { device: 'wasm', model: 'fliplab/tiny-bert' } });
      expect(first.vectors.map((v) => v.dense?.length)).toEqual([DIM, DIM, DIM]);
      expect(phases).toContain('loading-model');
      expect(phases.at(-1)).toBe('encoding');
      await api.dispose();
      const again = await api.encodeCorpus(request);
      expect(again).toMatchObject({ cached: TEXTS.length, encoded: 0, load: null });
      expect(again.vectors.map((v) => Array.from(v.dense!))).toEqual(first.vectors.map((v) => Array.from(v.dense!)));
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'answers questions with a reader, cache first: the second request is answered from IndexedDB with no reader',
    async () => {
      const passages = [
        { id: 'd1', title: 'River', text: 'The river water runs to the sea through the old city.' },
        { id: 'd2', title: '', text: 'Rain and sun change the level of the river every year.' },
      ];
      const tasks: ReaderTask[] = ['Which river flows through the old city?', 'What changes the river?'].map((question, i) => ({
        queryId: `q${i + 1}`,
        question,
        passageIds: passages.map((p) => p.id),
        messages: readerMessages(READER_TEMPLATE, question, passages),
      }));
      const reader = { id: TINY_READER.id, label: 'tiny', model: TINY_READER.id, revision: 'main', dtype: 'fp32' as const };
      const request = { reader, load: fromDisk, template: READER_TEMPLATE, k: 2, tasks, dbName: 'encode-api-answers' };
      const answers: string[] = [];
      const progress: AnswerProgress[] = [];
      const onAnswer = proxy((queryId: string, prediction: string, from: string) => void answers.push(`${queryId} ${from} ${prediction}`));
      const first = await api.answerQuestions(
        request,
        proxy((p: AnswerProgress) => void progress.push(p)),
        onAnswer,
      );
      // Node hands the runtime a path: nothing to prepare (externalWeights null), as for an encoder
      expect(first).toEqual({ cached: 0, generated: 2, refused: [], device: 'wasm', reason: null, externalWeights: null });
      expect(answers.map((a) => a.split(' ').slice(0, 2).join(' '))).toEqual(['q1 reader', 'q2 reader']);
      expect(progress.at(-1)).toMatchObject({ done: 2, total: 2, cached: 0, etaMs: 0, device: 'wasm' });

      const generated = [...answers];
      answers.length = 0;
      await api.dispose();
      const again = await api.answerQuestions(request, undefined, onAnswer);
      expect(again).toEqual({ cached: 2, generated: 0, refused: [], device: null, reason: null, externalWeights: null });
      expect(answers).toEqual(generated.map((a) => a.replace(' reader ', ' cache ')));
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it('ranks with exact dense search on ONNX Runtime, as the JS path does', async () => {
    const docs = [
      [1, 0, 0],
      [0, 1, 0],
      [0.6, 0.8, 0],
      [0, 0, 1],
    ].map((v) => Float32Array.from(v));
    const queries = [Float32Array.from([0.8, 0.6, 0]), Float32Array.from([0, 0.1, 1])];
    const d = denseMatrix(docs);
    const q = denseMatrix(queries);
    const result = await api.denseSearch(d, q, 2, 'wasm');
    expect(result.device).toBe('wasm');
    const expected = denseTopK(d, q, 2);
    expect(result.indices.map((i) => Array.from(i))).toEqual(expected.map((e) => Array.from(e.indices)));
    expect(result.indices.map((i) => Array.from(i))).toEqual([
      [2, 0],
      [3, 1],
    ]);

    // Kept in the worker, sent in pieces, searched twice (and at other depths) without sending it again.
    await api.keepDenseDocs('m', 4, 3);
    await api.keepDenseRows('m', 0, d.data.slice(0, 3 * 3));
    await api.keepDenseRows('m', 3, d.data.slice(3 * 3));
    for (const k of [2, 4]) {
      const kept = await api.denseSearch('m', q, k, 'wasm');
      expect(kept.indices.map((i) => Array.from(i))).toEqual(denseTopK(d, q, k).map((e) => Array.from(e.indices)));
    }
    await api.dropDenseDocs();
    await expect(api.denseSearch('m', q, 2, 'wasm')).rejects.toThrow(/no dense matrix "m" is kept/);
    await expect(api.keepDenseRows('m', 0, d.data.slice(0, 3))).rejects.toThrow(/no dense matrix "m" is kept/);

    // A matrix with a piece missing is refused, not searched with zeros in its place.
    await api.keepDenseDocs('half', 4, 3);
    await api.keepDenseRows('half', 0, d.data.slice(0, 3 * 3));
    await expect(api.denseSearch('half', q, 2, 'wasm')).rejects.toThrow(/the kept matrix "half" holds 3 of its 4 rows/);
    await api.dropDenseDocs();
  });

  it(
    "keeps a corpus job's vectors in the worker as it goes (cache hits and encoded batches), searched by id",
    async () => {
      const texts = ['tides and the moon', 'the moon pulls the sea', 'ships at night', 'a lighthouse on the coast', 'x'];
      const request = { config: bgeLike, load: fromDisk, role: 'passage' as const, dbName: 'encode-api-kept' };
      // Two texts cached first, so the job's vectors arrive from the cache and from the encoder, out of order.
      await api.encodeCorpus({ ...request, texts: [texts[3]!, texts[1]!] });
      const seen: number[] = [];
      const job = await api.encodeCorpus(
        { ...request, texts, returnVectors: false, keepDense: 'corpus' },
        undefined,
        proxy((positions: readonly number[]) => void seen.push(...positions)),
      );
      expect(job).toMatchObject({ cached: 2, encoded: 3, vectors: [] });
      expect(seen.slice(0, 2).sort()).toEqual([1, 3]);
      const whole = await api.encodeCorpus({ ...request, texts });
      const d = denseMatrix(whole.vectors.map((v) => v.dense!));
      const q = denseMatrix(whole.vectors.slice(0, 2).map((v) => v.dense!));
      const kept = await api.denseSearch('corpus', q, 5, 'wasm');
      expect(kept.indices.map((i) => Array.from(i))).toEqual(denseTopK(d, q, 5).map((e) => Array.from(e.indices)));
      expect(kept.indices.map((i) => i[0])).toEqual([0, 1]);
      // Read back out of the transposed blocks, each row is the vector the job gave.
      const back = await api.keptDenseRows('corpus', [4, 0, 3]);
      expect(back.map((v) => Array.from(v))).toEqual([4, 0, 3].map((i) => Array.from(whole.vectors[i]!.dense!)));

      // A job that fails keeps nothing: the matrix kept before is gone, and no partial one replaces it.
      const failing = api.encodeCorpus({
        ...request,
        texts,
        load: { ...fromDisk, source: { localModelPath: '/nowhere/', allowRemote: false } },
        dbName: 'encode-api-kept-2',
        keepDense: 'broken',
      });
      await expect(failing).rejects.toThrow();
      await expect(api.denseSearch('corpus', q, 2, 'wasm')).rejects.toThrow(/no dense matrix "corpus" is kept/);
      await expect(api.denseSearch('broken', q, 2, 'wasm')).rejects.toThrow(/no dense matrix "broken" is kept/);
    },
    MODEL_LOAD_TIMEOUT_MS,
  );
});
