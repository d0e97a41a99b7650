/**
 * The guard on the lazy-weights path (src/encoders/lazy-contract.ts and the session hook's fall-back in
 * encoder.ts): the self-test passes on the pinned onnxruntime-web, still runs on another version, and fails when
 * the mounted-file contract is broken (reads that return other bytes or throw, or a runtime that reads the view's
 * own buffer, as onnxruntime-node does); and a session whose stored file the runtime cannot read is made again
 * with the file in memory, through transformers.js too, with the same outputs. Node has no FileReaderSync: reads
 * come from the files' bytes, found by the Blob's size; the browser e2e (encode.e2e) runs the real one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import { loadEncoder, prepareSessions, type SessionFactory, type SessionPreparation } from '../../../src/encoders/encoder.ts';
import {
  checkLazyContract,
  LAZY_CONTRACT_TESTED_VERSION,
  lazyContractSelfTestFile,
  type SelfTestRuntime,
} from '../../../src/encoders/lazy-contract.ts';
import { lazyBytes, lazyWeightsCache, LazyWeightsRegistry, type ReadSync } from '../../../src/encoders/lazy-weights.ts';
import { externalizeGraph } from '../../../src/encoders/onnx-weights.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';
import { createLocalModelCache, localModelSource } from '../../../src/lab/local-model.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;
ortWeb.env.wasm.numThreads = 1;

beforeAll(() => makeModelFixtures(), MODEL_LOAD_TIMEOUT_MS);

const BERT_DIR = join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert');
const bertBytes = () => new Uint8Array(readFileSync(join(BERT_DIR, 'onnx/model.onnx')));

/** Reads of the files given, found by the Blob's size, standing in for FileReaderSync; `mode` breaks them. */
function readerOf(files: readonly Uint8Array[], mode: 'right' | 'other bytes' | 'throwing' = 'right') {
  const stats = { reads: 0 };
  const bySize = new Map(files.map((f) => [f.length, f]));
  const read: ReadSync = (blob, start, end) => {
    stats.reads++;
    if (mode === 'throwing') throw new DOMException('The requested file could not be read', 'NotReadableError');
    const bytes = bySize.get(blob.size)!.slice(start, end);
    return mode === 'right' ? bytes : bytes.map((b) => b ^ 0x5a);
  };
  return { read, stats };
}

describe('the self-test of the mounted-file contract', () => {
  it('records the onnxruntime-web version package.json pins (an upgrade changes both, after the e2e)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies['onnxruntime-web']).toBe(LAZY_CONTRACT_TESTED_VERSION);
    expect(ortWeb.env.versions.web).toBe(LAZY_CONTRACT_TESTED_VERSION);
  });

  it('passes on the pinned onnxruntime-web, whose weights came through the view', async () => {
    const { read, stats } = readerOf([lazyContractSelfTestFile()]);
    const check = await checkLazyContract(ortWeb as unknown as SelfTestRuntime, read, { executionProviders: ['wasm'] });
    expect(check).toEqual({ ok: true, version: LAZY_CONTRACT_TESTED_VERSION, reason: null });
    expect(stats.reads).toBe(2); // one subarray per initializer
  });

  it('still runs on another version, and says the version is untested when it passes', async () => {
    const { read, stats } = readerOf([lazyContractSelfTestFile()]);
    const upgraded = { InferenceSession: ortWeb.InferenceSession, Tensor: ortWeb.Tensor, env: { versions: { web: '1.99.0' } } };
    const check = await checkLazyContract(upgraded as unknown as SelfTestRuntime, read, { executionProviders: ['wasm'] });
    expect(check.ok).toBe(true);
    expect(check.version).toBe('1.99.0');
    expect(check.reason).toMatch(/^onnxruntime-web 1\.99\.0 \(tested: .+\) is not the version tested; it passed the self-test/);
    expect(stats.reads).toBe(2);
  });

  it.each([
    ['reads that return other bytes', ortWeb, 'other bytes', /wrong weights read: element 0 is /],
    ['reads that throw', ortWeb, 'throwing', /failed the self-test .*: model files are read into memory instead$/],
    // onnxruntime-node copies a mounted buffer natively: the view holds no bytes of its own
    ["a runtime that reads the view's own buffer (onnxruntime-node)", ortNode, 'right', /^onnxruntime-web \(version unknown\)/],
  ] as const)('fails on %s', async (_, ort, mode, reason) => {
    const { read } = readerOf([lazyContractSelfTestFile()], mode);
    const check = await checkLazyContract(ort as unknown as SelfTestRuntime, read, {
      executionProviders: [ort === ortWeb ? 'wasm' : 'cpu'],
    });
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(reason);
  });
});

describe('a session whose stored file the runtime cannot read', () => {
  it.each([
    ['onnxruntime-web, reads that throw', ortWeb, 'throwing', 'wasm'],
    ["onnxruntime-node, which reads the view's own buffer", ortNode, 'right', 'cpu'],
  ] as const)(
    '%s: is made again with the file in memory, with the same outputs',
    async (_, ort, mode, ep) => {
      const bytes = bertBytes();
      const registry = new LazyWeightsRegistry();
      const location = registry.nextLocation();
      const moved = externalizeGraph(bytes, { location })!;
      const { read } = readerOf([bytes], mode);
      registry.add({
        location,
        data: lazyBytes(new Blob([bytes]), read),
        tensors: moved.tensors,
        bytes: moved.bytes,
        read: async () => bytes,
      });
      const runtime = ort as unknown as typeof ortNode;
      const prepared: SessionPreparation[] = [];
      const hook = prepareSessions(ort as unknown as SessionFactory, {
        pooling: null,
        onPrepared: (p) => prepared.push(p),
        lazyWeights: registry,
      });
      const options = { executionProviders: [ep] };
      let session: ortNode.InferenceSession;
      try {
        session = await runtime.InferenceSession.create(moved.graph, { ...options, ...hook.sessionOptions });
      } finally {
        hook.release();
      }
      expect(prepared).toEqual([
        {
          externalTensors: moved.tensors,
          externalBytes: moved.bytes,
          pooled: false,
          lazy: false,
          lazyFallback: expect.stringMatching(
            /^the runtime could not read the weights from the stored file \(.+\): read into memory instead$/,
          ),
        },
      ]);
      const plain = await runtime.InferenceSession.create(bytes, options);
      try {
        const ids = BigInt64Array.from([2n, 7n, 9n, 3n]);
        const feeds = Object.fromEntries(
          plain.inputNames.map((n) => [n, new runtime.Tensor('int64', n === 'input_ids' ? ids : ids.map(() => 1n), [1, 4])]),
        );
        const [a, b] = [await plain.run(feeds), await session.run(feeds)];
        expect(Array.from(b.last_hidden_state!.data as Float32Array)).toEqual(Array.from(a.last_hidden_state!.data as Float32Array));
      } finally {
        await Promise.all([plain.release(), session.release()]);
      }
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it(
    'through transformers.js: a lazy load the runtime cannot read (onnxruntime-node) still loads, and encodes as from disk',
    async () => {
      const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
      const folder = new Map(files.map((f) => [f, new Blob([readFileSync(join(BERT_DIR, f))])]));
      const registry = new LazyWeightsRegistry();
      const cache = lazyWeightsCache({
        inner: createLocalModelCache(new Map([['local/tiny-bert', folder]])),
        readSync: readerOf([bertBytes()]).read,
        registry,
      });
      const config = (model: string): EncoderConfig => ({ ...PRESETS['bge-large'], id: 'tiny-cls', model });
      const texts = ['tides and the moon', 'a lighthouse guides ships along the coast at night'];
      const lazy = await loadEncoder(config('local/tiny-bert'), {
        device: 'cpu',
        dtype: 'fp32',
        source: { ...localModelSource(), customCache: cache },
        ort: ortNode as unknown as SessionFactory,
        lazyWeights: registry,
      });
      const fromDisk = await loadEncoder(config('fliplab/tiny-bert'), {
        device: 'cpu',
        dtype: 'fp32',
        source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
      });
      try {
        // transformers.js was handed the graph alone: the session was to mount the stored file
        expect(cache.served.size).toBeGreaterThan(0);
        expect(lazy.prepared).toMatchObject({ pooled: true, lazy: false, lazyFallback: expect.stringContaining('read into memory') });
        const [got, want] = [await lazy.encode(texts, 'passage'), await fromDisk.encode(texts, 'passage')];
        expect(got.pooledOnDevice).toBe(true);
        got.dense!.forEach((v, i) => v.forEach((x, j) => expect(Math.abs(x - want.dense![i]![j]!)).toBeLessThan(1e-5)));
      } finally {
        await Promise.all([lazy.dispose(), fromDisk.dispose()]);
      }
    },
    MODEL_LOAD_TIMEOUT_MS,
  );
});
