/**
 * The agreement check and the NaN guard in the encode worker's corpus job (src/worker/agreement-check.ts,
 * corpus-job.ts), driven over comlink in Node with onnxruntime-node (its CPU device stands for WASM), the real
 * generated models and fake-indexeddb. The disagreement is real: `fliplab/tiny-bert-offset`'s fp16 file is its
 * fp32 weights rounded to half (scripts/models/precision-traps.ts), `fliplab/tiny-bert-overflow`'s fp16 file
 * computes in half and overflows into NaN on the token "÷"; the plain tiny BERT's fp16 and q8 files agree.
 */
import 'fake-indexeddb/auto';
import { expose, proxy, wrap, type Remote } from 'comlink';
import * as ortNode from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_DIR,
  makeModelFixtures,
  makeTrapFixtures,
  TINY_BERT_OFFSET,
  TINY_BERT_OVERFLOW,
} from '../../../scripts/models/make-fixtures.ts';
import { GLITCH_TOKEN } from '../../../scripts/models/precision-traps.ts';
import { AGREEMENT_THRESHOLDS, agreementSample } from '../../../src/encoders/agreement.ts';
import type { OrtLike } from '../../../src/encoders/dense-onnx.ts';
import { PRESETS, type EncoderConfig, type EncoderDtype } from '../../../src/encoders/presets.ts';
import type { CorpusProgress, CorpusRequest, WorkerLoadOptions } from '../../../src/lab/encode-types.ts';
import { installErrorTransfer } from '../../../src/lab/errors.ts';
import { failureOf } from '../../../src/lab/problems.ts';
import { EmbeddingStore } from '../../../src/store/embeddings.ts';
import { createEncodeApi, type EncodeApi } from '../../../src/worker/encode-api.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;

const config = (model: string): EncoderConfig => ({ ...PRESETS['bge-large'], id: `check-${model}`, model });
const fromDisk = (dtype: EncoderDtype): WorkerLoadOptions => ({
  device: 'wasm',
  dtype,
  source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
});

const QUERIES = Array.from({ length: 12 }, (_, i) => `question ${i} about ${['tides', 'the moon', 'ships', 'rivers'][i % 4]}`);
const PASSAGES = Array.from(
  { length: 48 },
  (_, i) =>
    `passage ${i} on ${['ocean waves', 'city water', 'cancer cells', 'river levels', 'sun light'][i % 5]} ${'and more words '.repeat(i % 6)}`,
);
const SAMPLE = agreementSample(QUERIES, PASSAGES);

installErrorTransfer();
const { port1, port2 } = new MessageChannel();
expose(createEncodeApi({ ort: ortNode as unknown as OrtLike, cpuDevice: 'cpu' }), port1);
const api: Remote<EncodeApi> = wrap<EncodeApi>(port2);

beforeAll(async () => {
  await Promise.all([makeModelFixtures(), makeTrapFixtures()]);
  await api.init({ useBrowserCache: false });
}, MODEL_LOAD_TIMEOUT_MS);
afterAll(async () => {
  await api.dispose();
  port1.close();
  port2.close();
});

/** A corpus job with the lab's sample; its phases, and what it threw (or returned). */
async function job(model: string, dtype: EncoderDtype, texts: readonly string[], role: 'query' | 'passage', dbName: string) {
  const phases: string[] = [];
  const request: CorpusRequest = { config: config(model), load: fromDisk(dtype), texts, role, dbName, agreement: SAMPLE };
  const outcome = await api
    .encodeCorpus(
      request,
      proxy((p: CorpusProgress) => void phases.push(p.phase)),
    )
    .catch((e: unknown) => e);
  return { phases, outcome };
}

async function stored(dbName: string): Promise<number> {
  const store = await EmbeddingStore.open(dbName);
  try {
    return (await store.list()).reduce((n, r) => n + r.count, 0);
  } finally {
    store.close();
  }
}

describe('the agreement check before a job (WASM fp16 and q8 against WASM fp32)', () => {
  it(
    'refuses fp16 weights that disagree, before encoding anything, with the numbers',
    async () => {
      const { phases, outcome } = await job(TINY_BERT_OFFSET.id, 'fp16', PASSAGES, 'passage', 'check-offset');
      expect(failureOf(outcome)).toBe('disagreement');
      const e = outcome as Error & { minCosine: number; medianCosine: number; meanOverlap: number; device: string; dtype: string };
      expect(e).toMatchObject({ name: 'DisagreementError', device: 'wasm', dtype: 'fp16' });
      // Half's spacing at the offset leaves the words about one bit: far below fp16's thresholds.
      expect(e.minCosine).toBeLessThan(0.9);
      expect(e.medianCosine).toBeLessThan(AGREEMENT_THRESHOLDS.fp16.medianCosine);
      expect(e.message).toMatch(/^wasm fp16 disagrees with the reference \(WASM fp32\) .*min cosine 0\.\d+ < 0\.99/);
      expect(phases).toContain('agreement');
      expect(phases).not.toContain('encoding');
      expect(await stored('check-offset')).toBe(0);
      console.info(`[agreement] tiny-bert-offset fp16: ${e.message.replace(/.*— /, '').replace(/\. Nothing.*/, '')}`);
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'passes fp16 and q8 files that agree, says so in the load, and checks a path once per worker',
    async () => {
      await api.dispose();
      for (const dtype of ['fp16', 'q8'] as const) {
        const queries = await job('fliplab/tiny-bert', dtype, QUERIES, 'query', `check-agree-${dtype}`);
        expect(queries.outcome).not.toBeInstanceOf(Error);
        const q = queries.outcome as Awaited<ReturnType<EncodeApi['encodeCorpus']>>;
        expect(q.encoded).toBe(QUERIES.length);
        expect(q.load?.agreement).toMatchObject({
          passed: true,
          device: 'wasm',
          dtype,
          queries: 8,
          passages: 32,
          overlapK: 10,
          nonFinite: 0,
        });
        expect(q.load!.agreement!.minCosine!).toBeGreaterThan(AGREEMENT_THRESHOLDS[dtype].minCosine);
        expect(queries.phases).toContain('agreement');
        // The passages job in the same worker finds the path checked: no second check.
        const passages = await job('fliplab/tiny-bert', dtype, PASSAGES, 'passage', `check-agree-${dtype}`);
        expect(passages.phases).not.toContain('agreement');
        expect((passages.outcome as typeof q).load?.agreement).toEqual(q.load?.agreement);
        // Who made the vectors, as the cache records it (and a pack made from it says).
        const store = await EmbeddingStore.open(`check-agree-${dtype}`);
        const devices = (await store.list()).map((r) => r.device);
        store.close();
        expect(devices).toEqual([
          expect.stringMatching(new RegExp(`^wasm · ${dtype} · onnxruntime-node \\d+\\.\\d+\\.\\d+ · transformers\\.js 4\\.`)),
          expect.stringMatching(/^wasm · /),
        ]);
        console.info(
          `[agreement] tiny-bert ${dtype}: min cosine ${q.load!.agreement!.minCosine}, overlap ${q.load!.agreement!.meanOverlap}`,
        );
      }
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'checks nothing on the reference path itself (WASM, fp32)',
    async () => {
      const { phases, outcome } = await job('fliplab/tiny-bert', 'fp32', QUERIES, 'query', 'check-reference');
      expect(phases).not.toContain('agreement');
      expect((outcome as { load: { agreement?: unknown } }).load.agreement).toBeUndefined();
    },
    MODEL_LOAD_TIMEOUT_MS,
  );
});

describe('the NaN guard', () => {
  it(
    'fp16 arithmetic that overflows on one token passes the check on a sample without it, then stops at its first batch',
    async () => {
      // The shortest passage holds the glitch token: it is in the job's first batch (batches go by length), not in the sample.
      const glitch = `${GLITCH_TOKEN} x`;
      const texts = [...PASSAGES.slice(0, 1), glitch, ...PASSAGES.slice(1)];
      expect(SAMPLE.passages).not.toContain(glitch);
      const { phases, outcome } = await job(TINY_BERT_OVERFLOW.id, 'fp16', texts, 'passage', 'check-overflow');
      expect(phases).toContain('agreement');
      expect(failureOf(outcome)).toBe('non-finite');
      expect(outcome).toMatchObject({ name: 'NonFiniteVectorError', batch: 1, bad: 1, first: 1, role: 'passage' });
      expect(await stored('check-overflow')).toBe(0);
      // The same texts in fp32 (the reference path) are finite: the overflow is half precision's.
      const fp32 = await job(TINY_BERT_OVERFLOW.id, 'fp32', texts, 'passage', 'check-overflow-fp32');
      expect(fp32.outcome).toMatchObject({ encoded: texts.length });
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'a sample holding the overflowing token refuses the path before any job starts',
    async () => {
      await api.dispose();
      const request: CorpusRequest = {
        config: config(TINY_BERT_OVERFLOW.id),
        load: fromDisk('fp16'),
        texts: QUERIES,
        role: 'query',
        dbName: 'check-overflow-sample',
        agreement: { queries: SAMPLE.queries, passages: [...SAMPLE.passages.slice(1), `a ${GLITCH_TOKEN} b`] },
      };
      const e = await api.encodeCorpus(request).catch((x: unknown) => x);
      expect(failureOf(e)).toBe('disagreement');
      expect(e).toMatchObject({ nonFinite: 1, minCosine: null });
      expect((e as Error).message).toMatch(/1 of 40 vectors hold NaN or ∞/);
    },
    MODEL_LOAD_TIMEOUT_MS,
  );
});
