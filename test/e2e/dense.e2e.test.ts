/**
 * Exact dense search in the browser worker — MatMul + TopK on onnxruntime-web, WASM and WebGPU
 * (SwiftShader) — equals the JS exact path computed in Node, ranking and scores. Integer-valued vectors
 * make every dot product exact, so ties are real and must go to the lower index on both devices.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denseTopK } from '../../src/core/retrieve/dense.ts';
import type { HubServer } from '../support/hub-server.ts';
import { mulberry32 } from '../../bench/lib/rng.ts';
import { e2eSetup, type E2e } from './harness.ts';

const SETUP_TIMEOUT_MS = 120_000;
/** SwiftShader compiles shaders on first use: seconds per kernel. WASM needs far less. */
const WEBGPU_TEST_TIMEOUT_MS = 120_000;
const DOCS = 300;
const QUERIES = 7;
const DIM = 16;
const K = 20;

const rand = mulberry32(42);
const ints = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 7) - 3);
const docs = ints(DOCS * DIM);
const queries = ints(QUERIES * DIM);

let e2e: E2e;
let server: HubServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'dense',
    site: 'pages',
    webgpu: true,
  });
  ({ server, browser } = e2e);
  page = await browser.newPage();
  await page.goto(`${server.url}encode.html?cache=0`);
  await page.waitForFunction(() => 'fliplabTest' in window);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await e2e?.close();
});

const expected = denseTopK(
  { data: Float32Array.from(docs), rows: DOCS, dim: DIM },
  { data: Float32Array.from(queries), rows: QUERIES, dim: DIM },
  K,
);

describe('exact dense top-k in the worker equals the JS exact path', () => {
  it.each(['wasm', 'webgpu'] as const)(
    '%s',
    async (device) => {
      const got = await page.evaluate(([d, q, dev]) => window.fliplabTest.denseSearch(d, 300, q, 7, 16, 20, dev), [
        docs,
        queries,
        device,
      ] as const);
      expect(got.device).toBe(device);
      expect(got.indices).toEqual(expected.map((e) => Array.from(e.indices)));
      expect(got.scores).toEqual(expected.map((e) => Array.from(e.scores)));
    },
    WEBGPU_TEST_TIMEOUT_MS,
  );
});
