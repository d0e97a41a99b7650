/**
 * The browser half of the encoders, end to end: the Vite-built test page drives the real bridge and
 * module worker in Debian's chromium (playwright-core), models come from a local server in the Hugging
 * Face hub URL layout (`remoteHost`, not a local path), and every vector must equal what `loadEncoder`
 * computes in Node (onnxruntime-node reading the very same files from disk) within 1e-4.
 *
 * WebGPU here is SwiftShader on the CPU (`--enable-unsafe-webgpu`): correct but slow, so it gets one tiny
 * batch per model and fp32 only (no shader-f16). See /work/shared/TOOLCHAIN.md.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { loadEncoder, type EncodedBatch } from '../../src/encoders/encoder.ts';
import type { HubServer } from '../support/hub-server.ts';
import { launchChromium } from './browser.ts';
import { testConfig, type PlainEncodeResult, type PlainError, type TestKind } from './pages/configs.ts';
import { maxAbsDiff } from '../vectors.ts';
import { e2eSetup, linkFixtureModels, type E2e } from './harness.ts';

/** Fixtures, Vite build, server and browser launch (the build takes seconds; a cold CI disk more). */
const SETUP_TIMEOUT_MS = 120_000;
/** First wasm call in a fresh worker compiles ORT's 26 MB wasm (~5-7 s on 2 cores). */
const WASM_TEST_TIMEOUT_MS = 60_000;
/** SwiftShader WebGPU: seconds of shader compilation per model on the first call. */
const WEBGPU_TEST_TIMEOUT_MS = 120_000;
const TOLERANCE = 1e-4;

const TINY_BERT = 'fliplab/tiny-bert';
const TINY_SPLADE = 'fliplab/tiny-splade';
/** Not on the server at all: every file 404s. */
const MISSING_MODEL = 'fliplab/not-on-this-server';
/** Real tokenizer and config, garbage bytes for onnx/model.onnx. */
const CORRUPT_MODEL = 'fliplab/corrupt-bert';

// Varied lengths, so batches are padded and padding must not leak into the vectors.
const TEXTS = [
  'tides and the moon',
  'a lighthouse guides ships along the coast at night',
  'x',
  'the moon pulls the ocean; the tides rise and fall twice a day along every coast',
];

let workDir: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;

/** Node reference: the same module on onnxruntime-node, same files, read from disk. */
async function encodeInNode(kind: TestKind, model: string, texts: readonly string[], role: 'query' | 'passage'): Promise<EncodedBatch> {
  const encoder = await loadEncoder(testConfig(kind, model), {
    device: 'cpu',
    dtype: 'fp32',
    source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
  });
  try {
    return await encoder.encode(texts, role);
  } finally {
    await encoder.dispose();
  }
}

/** Largest browser-vs-Node difference seen per device (printed at the end: numbers, not just a pass). */
const worstDiff = new Map<string, number>();

function expectSameVectors(browserResult: PlainEncodeResult, node: EncodedBatch): void {
  expect(browserResult.tokens).toEqual(node.tokens);
  const record = (d: number) => worstDiff.set(browserResult.device, Math.max(d, worstDiff.get(browserResult.device) ?? 0));
  if (node.dense) {
    expect(browserResult.dense).toHaveLength(node.dense.length);
    node.dense.forEach((v, i) => {
      const d = maxAbsDiff(browserResult.dense![i]!, v);
      record(d);
      expect(d).toBeLessThanOrEqual(TOLERANCE);
    });
    // Transferred typed arrays, not JSON-ish copies.
    expect(browserResult.denseTypes).toEqual(node.dense.map(() => 'Float32Array'));
  }
  if (node.sparse) {
    expect(browserResult.sparse).toHaveLength(node.sparse.length);
    node.sparse.forEach((s, i) => {
      const got = browserResult.sparse![i]!;
      expect(got.indices).toEqual(Array.from(s.indices));
      const d = maxAbsDiff(got.values, s.values);
      record(d);
      expect(d).toBeLessThanOrEqual(TOLERANCE);
    });
  }
}

function isError(r: PlainEncodeResult | PlainError): r is PlainError {
  return 'error' in r;
}

/** A fresh browser context and test page for one describe block, closed after it. */
function pageForSuite(assign: (page: Page) => void, options: { readonly cache?: boolean } = {}): void {
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    context = await browser.newContext();
    assign(await openTestPage(context, '', options.cache));
  }, SETUP_TIMEOUT_MS);
  afterAll(() => context?.close());
}

/**
 * The test page; `cache` keeps model files in Cache Storage as the app does (default off, so every load
 * fetches: a suite with the cache on loads its first model from the network and the rest from the cache).
 */
async function openTestPage(context: BrowserContext, query = '', cache = false): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}encode.html?cache=${cache ? 1 : 0}${query}`);
  await page.waitForFunction(() => 'fliplabTest' in window);
  return page;
}

const encodeWith = (
  page: Page,
  device: 'wasm' | 'webgpu',
  model: string,
  kind: TestKind,
  texts: readonly string[],
  role: 'query' | 'passage',
) => page.evaluate(([d, m, k, t, r]) => window.fliplabTest.tryEncodeWith(d, m, k, t, r), [device, model, kind, [...texts], role] as const);

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'encode',
    site: 'pages',
    webgpu: true,
    prepare: async (dir) => {
      workDir = dir;

      // Models root: the generated models linked (so Node and browser read the very same files) + a corrupt one.
      const modelsRoot = await linkFixtureModels(join(workDir, 'models'), [TINY_BERT, TINY_SPLADE]);
      const corrupt = join(modelsRoot, CORRUPT_MODEL);
      await mkdir(join(corrupt, 'onnx'), { recursive: true });
      for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
        await symlink(join(DEFAULT_MODELS_DIR, TINY_BERT, file), join(corrupt, file));
      await writeFile(join(corrupt, 'onnx/model.onnx'), 'this is not an ONNX model\n'.repeat(64));

      return { modelsRoot };
    },
  });
  ({ server, browser } = e2e);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const [device, d] of worstDiff)
    console.info(`[e2e] largest |browser - node| on ${device}: ${d.toExponential(2)} (tolerance ${TOLERANCE})`);
  await e2e?.close();
}, SETUP_TIMEOUT_MS);

describe('wasm in a module worker equals Node (onnxruntime-node) within 1e-4', () => {
  let context: BrowserContext;
  let page: Page;
  /** Every URL any page, worker or fetch in this context asked for. */
  const seen: string[] = [];

  beforeAll(async () => {
    context = await browser.newContext();
    context.on('request', (r) => seen.push(r.url()));
    page = await openTestPage(context, '', true);
  }, SETUP_TIMEOUT_MS);
  afterAll(() => context?.close());

  const cases: readonly { kind: TestKind; model: string; role: 'query' | 'passage'; name: string }[] = [
    { kind: 'cls', model: TINY_BERT, role: 'query', name: 'BGE-like (CLS, query prefix, L2)' },
    { kind: 'mean', model: TINY_BERT, role: 'passage', name: 'E5-like (masked mean, "passage: ", L2)' },
    { kind: 'splade', model: TINY_SPLADE, role: 'passage', name: 'SPLADE-like (max log(1+ReLU), top 16)' },
  ];
  for (const c of cases) {
    it(
      c.name,
      async () => {
        const [got, expected] = await Promise.all([
          encodeWith(page, 'wasm', c.model, c.kind, TEXTS, c.role),
          encodeInNode(c.kind, c.model, TEXTS, c.role),
        ]);
        if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
        expect(got.device).toBe('wasm');
        expect(got.reason).toBeNull();
        // every model pools in its session (only the pooled rows leave it); the vectors are still the CPU oracle's
        expect(got.pooledOnDevice).toBe(true);
        // the weights went to the runtime as external data read from the cached file as it asked for them
        // (onnx-weights.ts, lazy-weights.ts): the file was never whole in the tab
        expect(got.externalWeights).toBeGreaterThan(0);
        expect(got.lazyWeights).toBe(true);
        expectSameVectors(got, expected);
      },
      WASM_TEST_TIMEOUT_MS,
    );
  }

  it('privacy: every request went to the local server; ORT wasm and models came from its origin', () => {
    const origin = new URL(server.url).origin;
    const network = seen.filter((u) => !u.startsWith('blob:') && !u.startsWith('data:'));
    expect(network.length).toBeGreaterThan(0);
    expect(network.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(network.some((u) => /\/assets\/ort-wasm-simd-threaded\.asyncify-[\w-]+\.wasm$/.test(u))).toBe(true);
    // Models through the hub layout (remoteHost), never through a local-model path.
    expect(server.requests).toContain(`/${TINY_BERT}/resolve/main/onnx/model.onnx`);
    expect(server.requests).toContain(`/${TINY_SPLADE}/resolve/main/tokenizer.json`);
    expect(server.requests.filter((p) => p.startsWith('/models/'))).toEqual([]);
  });
});

describe('webgpu (SwiftShader) in a module worker equals Node within 1e-4', () => {
  let page: Page;
  pageForSuite((p) => (page = p), { cache: true });

  const tiny = TEXTS.slice(0, 2);
  for (const c of [
    { kind: 'cls' as const, model: TINY_BERT, role: 'query' as const },
    { kind: 'mean' as const, model: TINY_BERT, role: 'passage' as const },
    { kind: 'splade' as const, model: TINY_SPLADE, role: 'passage' as const },
  ]) {
    it(
      `${c.kind} on ${c.model}`,
      async () => {
        const [got, expected] = await Promise.all([
          encodeWith(page, 'webgpu', c.model, c.kind, tiny, c.role),
          encodeInNode(c.kind, c.model, tiny, c.role),
        ]);
        if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
        expect(got.device).toBe('webgpu');
        expect(got.reason).toBeNull();
        expect(got.adapterInfo).toMatchObject({ architecture: 'swiftshader' });
        // device pooling on WebGPU (SPLADE's max, CLS, mean) equals Node's CPU pooling
        expect(got.pooledOnDevice).toBe(true);
        // weights uploaded to the GPU from the cached file, a tensor at a time, as external data
        expect(got.externalWeights).toBeGreaterThan(0);
        expect(got.lazyWeights).toBe(true);
        expectSameVectors(got, expected);
      },
      WEBGPU_TEST_TIMEOUT_MS,
    );
  }
});

describe('errors reach the page', () => {
  let page: Page;
  pageForSuite((p) => (page = p));

  it(
    'a model the server does not have: a clear error naming the model, not a hang',
    async () => {
      const got = await encodeWith(page, 'wasm', MISSING_MODEL, 'cls', ['moon'], 'query');
      if (!isError(got)) throw new Error('expected an error');
      expect(got.error.message).toContain(MISSING_MODEL);
      expect(got.error.message).toMatch(/not found: config\.json \(HTTP 404\)/);
      expect(server.requests.some((p) => p.startsWith(`/${MISSING_MODEL}/resolve/main/`))).toBe(true);
    },
    WASM_TEST_TIMEOUT_MS,
  );

  it(
    'a corrupt model.onnx: a clear error naming the model',
    async () => {
      const got = await encodeWith(page, 'wasm', CORRUPT_MODEL, 'cls', ['moon'], 'query');
      if (!isError(got)) throw new Error('expected an error');
      expect(got.error.message).toContain(CORRUPT_MODEL);
      expect(got.error.message).toMatch(/protobuf|parse|invalid|model/i);
    },
    WASM_TEST_TIMEOUT_MS,
  );

  it(
    'a fresh worker encodes after those errors (a failed load poisons transformers.js in its worker)',
    async () => {
      const got = await encodeWith(page, 'wasm', TINY_BERT, 'cls', ['moon'], 'query');
      if (isError(got)) throw new Error(`browser: ${got.error.message}`);
      // One worker per call: each failure ended its worker.
      expect(got.workerStarts).toBe(3);
      expectSameVectors(got, await encodeInNode('cls', TINY_BERT, ['moon'], 'query'));
    },
    WASM_TEST_TIMEOUT_MS,
  );
});

describe('abort', () => {
  let page: Page;
  pageForSuite((p) => (page = p));

  const abortAfter = (ms: number) =>
    page.evaluate(([m, t, after]) => window.fliplabTest.encodeThenAbort('wasm', m, 'mean', t, 'passage', after), [
      TINY_BERT,
      TEXTS,
      ms,
    ] as const);

  it('an already-aborted signal rejects at once without starting a worker', async () => {
    const got = await abortAfter(0);
    expect(got).toMatchObject({ error: { name: 'AbortError' }, workerStarts: 0 });
    // At once: in the task that aborted, before the page's next one. (How long that is: npm run bench:encode -- --abort.)
    expect(got.events).toEqual(['abort', 'rejected AbortError', 'next task']);
  });

  it(
    'aborting a running call rejects with AbortError before the worker can answer again, and ends it; the next call works',
    async () => {
      // 300 ms in, the fresh worker is still compiling ORT's wasm / loading the model (it takes seconds).
      const got = await abortAfter(300);
      expect(got).toMatchObject({ error: { name: 'AbortError' }, workerStarts: 1 });
      // The rejection comes in the task that aborted: no message from the worker (a result, the next batch) is
      // handled before it, and the call never completes.
      expect(got.events).toEqual(['abort', 'rejected AbortError', 'next task']);
      expect(await page.evaluate(() => window.fliplabTest.workerRunning('wasm'))).toBe(false);

      const next = await encodeWith(page, 'wasm', TINY_BERT, 'mean', TEXTS, 'passage');
      if (isError(next)) throw new Error(`browser: ${next.error.message}`);
      expect(next.workerStarts).toBe(2);
      expectSameVectors(next, await encodeInNode('mean', TINY_BERT, TEXTS, 'passage'));
    },
    WASM_TEST_TIMEOUT_MS,
  );
});

describe('idle shutdown', () => {
  const IDLE_MS = 300;
  it(
    'the worker ends after idleMs without calls, not before; the next call starts a fresh one',
    async () => {
      const context = await browser.newContext();
      try {
        const page = await openTestPage(context, `&idleMs=${IDLE_MS}`);
        // A generous ceiling: what is asserted is that it ends by itself, not how soon (bench:encode -- --abort).
        const got = await page.evaluate(([m, ceiling]) => window.fliplabTest.encodeThenIdle('wasm', m, 'cls', ['moon'], 'query', ceiling), [
          TINY_BERT,
          30_000,
        ] as const);
        expect(got.workerStarts).toBe(1);
        // Still there as the call returns (a test that passes when no worker ever ran proves nothing) and half an
        // idle period later (a timer due before the bridge's), then gone with no call made.
        expect(got.events).toEqual(['returned: running true', 'half idle: running true', 'ended']);
        const next = await encodeWith(page, 'wasm', TINY_BERT, 'cls', ['moon'], 'query');
        if (isError(next)) throw new Error(`browser: ${next.error.message}`);
        expect(next.workerStarts).toBe(2);
        expectSameVectors(next, await encodeInNode('cls', TINY_BERT, ['moon'], 'query'));
      } finally {
        await context.close();
      }
    },
    WASM_TEST_TIMEOUT_MS,
  );
});

describe('without --enable-unsafe-webgpu', () => {
  let plain: Browser;
  let page: Page;
  beforeAll(async () => {
    plain = await launchChromium({ webgpu: false });
    page = await openTestPage(await plain.newContext());
  }, SETUP_TIMEOUT_MS);
  afterAll(() => plain?.close());

  it(
    'asking for webgpu falls back to wasm, says why, and still matches Node',
    async () => {
      const got = await encodeWith(page, 'webgpu', TINY_BERT, 'cls', ['moon', 'tides'], 'query');
      if (isError(got)) throw new Error(`browser: ${got.error.message}`);
      expect(got.device).toBe('wasm');
      expect(got.reason).toMatch(/no WebGPU adapter granted|navigator\.gpu missing/);
      expect(got.adapterInfo).toBeNull();
      // no cache to keep the file in (cache=0): the weights point into the fetched bytes instead
      expect(got.externalWeights).toBeGreaterThan(0);
      expect(got.lazyWeights).toBe(false);
      expectSameVectors(got, await encodeInNode('cls', TINY_BERT, ['moon', 'tides'], 'query'));
    },
    WASM_TEST_TIMEOUT_MS,
  );
});
