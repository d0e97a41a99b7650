/**
 * fp16 weights in the browser: asking the worker for `dtype: 'fp16'` on WebGPU in Debian's chromium, whose
 * SwiftShader adapter has no `shader-f16`, runs the fp16 model (onnx/model_fp16.onnx, fp16 weights each
 * Cast to fp32) on WASM instead, says why, and gives the vectors `loadEncoder` computes in Node
 * (onnxruntime-node) from the same fp16 file within 1e-4: the fp16 file, not the fp32 one, was loaded.
 * On an adapter with shader-f16 (a real GPU) there is no fallback: the same test then checks that fp16 ran on WebGPU.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { loadEncoder, type EncodedBatch } from '../../src/encoders/encoder.ts';
import type { EncoderDtype } from '../../src/encoders/presets.ts';
import type { HubServer } from '../support/hub-server.ts';
import { testConfig, type PlainEncodeResult, type PlainError, type TestKind } from './pages/configs.ts';
import { maxAbsDiff } from '../vectors.ts';
import { e2eSetup, type E2e } from './harness.ts';

const SETUP_TIMEOUT_MS = 120_000;
/** A fresh worker compiles ORT's wasm first (~5-7 s on 2 cores, more under load). */
const TEST_TIMEOUT_MS = 60_000;
const TOLERANCE = 1e-4;

const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];

let e2e: E2e;
let server: HubServer;
let browser: Browser;
let page: Page;
let shaderF16 = false;

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'fp16',
    site: 'pages',
    webgpu: true,
    serve: { modelsRoot: DEFAULT_MODELS_DIR },
  });
  ({ server, browser } = e2e);
  page = await browser.newPage();
  await page.goto(`${server.url}encode.html?cache=0`);
  await page.waitForFunction(() => 'fliplabTest' in window);
  const features = await page.evaluate(() => window.fliplabTest.webgpuFeatures());
  // The premise: WebGPU is there (so the fallback is about fp16, not about WebGPU missing).
  expect(features.adapter).toBe(true);
  shaderF16 = features.shaderF16;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await e2e?.close();
});

async function encodeInNode(kind: TestKind, model: string, dtype: EncoderDtype, role: 'query' | 'passage'): Promise<EncodedBatch> {
  const encoder = await loadEncoder(testConfig(kind, model), {
    device: 'cpu',
    dtype,
    source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
  });
  try {
    return await encoder.encode(TEXTS, role);
  } finally {
    await encoder.dispose();
  }
}

/** Largest difference over all vectors (dense values, or SPLADE weights after checking the terms agree). */
function worstDiff(got: PlainEncodeResult | EncodedBatch, want: EncodedBatch): number {
  const dense = (got.dense as readonly ArrayLike<number>[] | undefined)?.map((v) => Array.from(v));
  const sparse = (got.sparse as readonly { indices: ArrayLike<number>; values: ArrayLike<number> }[] | undefined)?.map((s) => ({
    indices: Array.from(s.indices),
    values: Array.from(s.values),
  }));
  let worst = 0;
  if (want.dense) {
    expect(dense).toHaveLength(want.dense.length);
    want.dense.forEach((v, i) => (worst = Math.max(worst, maxAbsDiff(dense![i]!, v))));
  } else {
    expect(sparse).toHaveLength(want.sparse!.length);
    want.sparse!.forEach((s, i) => {
      expect(sparse![i]!.indices).toEqual(Array.from(s.indices));
      worst = Math.max(worst, maxAbsDiff(sparse![i]!.values, s.values));
    });
  }
  return worst;
}

function isError(r: PlainEncodeResult | PlainError): r is PlainError {
  return 'error' in r;
}

describe('fp16 asked of WebGPU: without shader-f16 it runs on WASM and equals Node fp16', () => {
  const cases = [
    { kind: 'cls', model: 'fliplab/tiny-bert', role: 'query' },
    { kind: 'splade', model: 'fliplab/tiny-splade', role: 'passage' },
  ] as const;

  for (const c of cases) {
    it(
      `${c.kind} on ${c.model}`,
      async () => {
        const [got, fp16, fp32] = await Promise.all([
          page.evaluate(([m, k, t, r]) => window.fliplabTest.tryEncodeWithDtype('webgpu', m, k, t, r, 'fp16'), [
            c.model,
            c.kind,
            TEXTS,
            c.role,
          ] as const),
          encodeInNode(c.kind, c.model, 'fp16', c.role),
          encodeInNode(c.kind, c.model, 'fp32', c.role),
        ]);
        if (isError(got)) throw new Error(`browser: ${got.error.name}: ${got.error.message}`);
        expect(got.dtype).toBe('fp16');
        if (shaderF16) {
          // A real GPU with shader-f16: fp16 runs on WebGPU itself (half-precision arithmetic: a looser bound).
          expect(got.device).toBe('webgpu');
          expect(got.reason).toBeNull();
          expect(worstDiff(got, fp16)).toBeLessThanOrEqual(1e-2);
          return;
        }
        expect(got.device).toBe('wasm');
        expect(got.reason).toMatch(/lacks shader-f16/);
        expect(got.adapterInfo).toBeNull();
        expect(got.tokens).toEqual(fp16.tokens);
        const diff = worstDiff(got, fp16);
        expect(diff).toBeLessThanOrEqual(TOLERANCE);
        // The fp16 file was the one loaded: the fp32 weights give vectors further away than that.
        expect(worstDiff(fp32, fp16)).toBeGreaterThan(10 * Math.max(diff, 1e-6));
        expect(server.requests).toContain(`/${c.model}/resolve/main/onnx/model_fp16.onnx`);
        console.info(
          `[e2e] fp16 ${c.kind}: browser wasm vs node fp16 ${diff.toExponential(2)}; node fp32 vs fp16 ${worstDiff(fp32, fp16).toExponential(2)}`,
        );
      },
      TEST_TIMEOUT_MS,
    );
  }

  it('no fp32 weights were fetched for those loads', () => {
    expect(server.requests.filter((p) => p.endsWith('/onnx/model.onnx'))).toEqual([]);
  });
});
