/**
 * "Load a local model folder" end to end in Debian's chromium: the generated tiny BERT is picked as a folder
 * (`<input webkitdirectory>`, set by playwright), registered with the real bridge and module worker, and
 * encoded on WASM. Vectors must equal what `loadEncoder` computes in Node from the same files on disk within
 * 1e-4, and no request for a model file may reach the server (the worker serves the picked bytes itself).
 * Also: the folders survive a fresh worker, remote loads still work in the same worker, and an incomplete
 * folder is a clear error naming the missing file.
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { loadEncoder, type EncodedBatch } from '../../src/encoders/encoder.ts';
import type { HubServer } from '../support/hub-server.ts';
import { testConfig, type PlainEncodeResult, type PlainError } from './pages/configs.ts';
import { e2eSetup, linkFixtureModels, type E2e } from './harness.ts';

const SETUP_TIMEOUT_MS = 120_000;
/** First wasm call in a fresh worker compiles ORT's wasm (seconds on 2 cores). */
const WASM_TEST_TIMEOUT_MS = 60_000;
const TOLERANCE = 1e-4;
const TINY_BERT = 'fliplab/tiny-bert';
const TEXTS = [
  'tides and the moon',
  'a lighthouse guides ships along the coast at night',
  'x',
  'the moon pulls the ocean; the tides rise and fall twice a day',
];

let workDir: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every URL the page, its workers and their fetches asked for. */
const seen: string[] = [];

interface Registered {
  readonly name: string;
  readonly folder: string;
  readonly revision: string;
  readonly paths: string[];
  readonly picked: number;
}

async function encodeInNode(texts: readonly string[]): Promise<EncodedBatch> {
  const encoder = await loadEncoder(testConfig('cls', TINY_BERT), {
    device: 'cpu',
    dtype: 'fp32',
    source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
  });
  try {
    return await encoder.encode(texts, 'query');
  } finally {
    await encoder.dispose();
  }
}

function isError(r: object): r is PlainError {
  return 'error' in r;
}

let worst = 0;
function expectSameVectors(got: PlainEncodeResult, node: EncodedBatch): void {
  expect(got.tokens).toEqual(node.tokens);
  expect(got.dense).toHaveLength(node.dense!.length);
  node.dense!.forEach((v, i) => {
    const b = got.dense![i]!;
    expect(b).toHaveLength(v.length);
    let d = 0;
    for (let j = 0; j < v.length; j++) d = Math.max(d, Math.abs(b[j]! - v[j]!));
    worst = Math.max(worst, d);
    expect(d).toBeLessThanOrEqual(TOLERANCE);
  });
}

/** Pick `dir` in the page's folder input and register it; the page's result. */
async function pickFolder(dir: string): Promise<Registered | PlainError> {
  await page.setInputFiles('[data-testid="folder"]', dir);
  return page.evaluate(() => window.fliplabTest.registerPickedFolder('wasm', 'fp32'));
}

const encodeLocal = (reg: Registered, texts: readonly string[]) =>
  page.evaluate(([n, r, t]) => window.fliplabTest.tryEncodeLocal('wasm', n, r, 'cls', t, 'query'), [
    reg.name,
    reg.revision,
    [...texts],
  ] as const);

/** Requests for model files: anything under the local-model root, or any file a model folder holds. */
const modelRequests = (paths: readonly string[]) =>
  paths.filter((p) => /local-models|tiny-bert|\.onnx(\?|$)|tokenizer|config\.json/.test(p));

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'local-model',
    site: 'pages',
    webgpu: false,
    prepare: async (dir) => {
      workDir = dir;
      // The server can serve the tiny BERT in the hub layout (for the remote-after-local check), so a local load
      // that fetched anything would be visible in its request log.
      return { modelsRoot: await linkFixtureModels(join(workDir, 'models'), [TINY_BERT]) };
    },
  });
  ({ server, browser } = e2e);
  context = await browser.newContext();
  context.on('request', (r) => seen.push(r.url()));
  page = await context.newPage();
  await page.goto(`${server.url}encode.html?cache=0`);
  await page.waitForFunction(() => 'fliplabTest' in window);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (worst > 0) console.info(`[e2e] local folder: largest |browser - node| on wasm: ${worst.toExponential(2)} (tolerance ${TOLERANCE})`);
  await context?.close();
  await e2e?.close();
}, SETUP_TIMEOUT_MS);

describe('a picked local model folder', () => {
  let reg: Registered;

  it('registers: named after the folder, only the files a load reads', async () => {
    const got = await pickFolder(join(DEFAULT_MODELS_DIR, TINY_BERT));
    if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
    reg = got;
    const onDisk = await readdir(join(DEFAULT_MODELS_DIR, TINY_BERT), { recursive: true, withFileTypes: true });
    expect(reg.picked).toBe(onDisk.filter((e) => e.isFile()).length);
    expect(reg.name).toBe('local/tiny-bert');
    expect(reg.revision).toMatch(/^sha256-[0-9a-f]{16}$/);
    expect(reg.paths).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']));
    expect(reg.paths).not.toContain('vocab.txt');
  });

  it(
    'encodes on wasm like Node from the same files (≤ 1e-4), with no request for a model file',
    async () => {
      const [got, expected] = await Promise.all([encodeLocal(reg, TEXTS), encodeInNode(TEXTS)]);
      if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
      expect(got.device).toBe('wasm');
      expectSameVectors(got, expected);
      expect(got.denseTypes).toEqual(TEXTS.map(() => 'Float32Array'));
      // the runtime read the weights from the picked File as it filled each tensor (lazy-weights.ts)
      expect(got.externalWeights).toBeGreaterThan(0);
      expect(got.lazyWeights).toBe(true);
      // The ORT wasm came from the server (so the log works); nothing of the model did, nor left the page.
      expect(server.requests.some((p) => /ort-wasm-simd-threaded\.asyncify-[\w-]+\.wasm$/.test(p))).toBe(true);
      expect(modelRequests(server.requests)).toEqual([]);
      expect(modelRequests(seen.map((u) => new URL(u).pathname))).toEqual([]);
    },
    WASM_TEST_TIMEOUT_MS,
  );

  it(
    'a folder with model.onnx at its root (as several public conversions are laid out) encodes the same',
    async () => {
      const rootLayout = join(workDir, 'tiny-bert-root');
      await mkdir(rootLayout, { recursive: true });
      for (const e of await readdir(join(DEFAULT_MODELS_DIR, TINY_BERT), { withFileTypes: true })) {
        if (e.isFile()) await copyFile(join(DEFAULT_MODELS_DIR, TINY_BERT, e.name), join(rootLayout, e.name));
      }
      await copyFile(join(DEFAULT_MODELS_DIR, TINY_BERT, 'onnx/model.onnx'), join(rootLayout, 'model.onnx'));
      const got = await pickFolder(rootLayout);
      if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
      expect(got.name).toBe('local/tiny-bert-root');
      expect(got.paths).toContain('onnx/model.onnx');
      const [vectors, expected] = await Promise.all([encodeLocal(got, TEXTS), encodeInNode(TEXTS)]);
      if (isError(vectors)) throw new Error(`browser: ${vectors.error.name}: ${vectors.error.message}`);
      expectSameVectors(vectors, expected);
      expect(modelRequests(server.requests)).toEqual([]);
    },
    WASM_TEST_TIMEOUT_MS,
  );

  it(
    'a fresh worker (after a crash or an abort) gets the folder again from the bridge',
    async () => {
      const before = await page.evaluate(() => window.fliplabTest.workerRunning('wasm'));
      expect(before).toBe(true);
      await page.evaluate(() => window.fliplabTest.terminateWorker('wasm'));
      const got = await encodeLocal(reg, TEXTS.slice(0, 2));
      if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
      expect(got.workerStarts).toBe(2);
      expectSameVectors(got, await encodeInNode(TEXTS.slice(0, 2)));
      expect(modelRequests(server.requests)).toEqual([]);
    },
    WASM_TEST_TIMEOUT_MS,
  );

  it(
    'the remote path still works in the same worker, and the local folder again after it',
    async () => {
      const remote = await page.evaluate((t) => window.fliplabTest.tryEncodeWith('wasm', 'fliplab/tiny-bert', 'cls', t, 'query'), TEXTS);
      if (isError(remote)) throw new Error(`browser: ${remote.error.name}: ${remote.error.message}`);
      const expected = await encodeInNode(TEXTS);
      expectSameVectors(remote, expected);
      expect(server.requests).toContain(`/${TINY_BERT}/resolve/main/onnx/model.onnx`);
      const requestsAfterRemote = server.requests.length;

      const local = await encodeLocal(reg, TEXTS);
      if (isError(local)) throw new Error(`browser: ${local.error.name}: ${local.error.message}`);
      expect(local.workerStarts).toBe(2); // same worker throughout
      expectSameVectors(local, expected);
      expect(modelRequests(server.requests.slice(requestsAfterRemote))).toEqual([]);
    },
    WASM_TEST_TIMEOUT_MS,
  );
});

describe('errors', () => {
  it('a folder without tokenizer.json: a clear error naming it, before any worker call', async () => {
    const incomplete = join(workDir, 'picked', 'my-bert');
    await mkdir(join(incomplete, 'onnx'), { recursive: true });
    for (const file of ['config.json', 'tokenizer_config.json', 'vocab.txt', 'onnx/model.onnx'])
      await copyFile(join(DEFAULT_MODELS_DIR, TINY_BERT, file), join(incomplete, file));
    const got = await pickFolder(incomplete);
    if (!isError(got)) throw new Error('expected an error');
    expect(got.error.name).toBe('LocalModelError');
    // Only the missing file is listed as missing (the rest of the message says what a model needs).
    expect(got.error.message).toMatch(/"my-bert" is missing tokenizer\.json: a fp32 model needs /);
    expect(got.workerStarts).toBe(2);
  });

  it(
    'loading a local name no folder was registered as: a clear error, no request',
    async () => {
      const before = server.requests.length;
      const got = await page.evaluate(() =>
        window.fliplabTest.tryEncodeLocal('wasm', 'local/never-picked', 'sha256-0000000000000000', 'cls', ['moon'], 'query'),
      );
      if (!isError(got)) throw new Error('expected an error');
      expect(got.error.message).toContain('local/never-picked');
      expect(got.error.message).toMatch(/no local model folder registered/);
      expect(modelRequests(server.requests.slice(before))).toEqual([]);
    },
    WASM_TEST_TIMEOUT_MS,
  );
});
