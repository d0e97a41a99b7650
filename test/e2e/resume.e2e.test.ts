/**
 * Resume with real IndexedDB: a collection encoded in the worker commits batch by batch; reloading the
 * page mid-run loses at most the batch in flight, the next visit encodes only what is missing, and the
 * visit after that encodes nothing. A renderer crashed mid-run leaves every committed batch whole. Vectors
 * must be the same whichever visit produced them. A WebGPU device lost mid-run fails the job with that said,
 * moving nothing to another device on its own; a WASM job then continues from the last committed batch.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import type { HubServer } from '../support/hub-server.ts';
import { pollUntil, e2eSetup, type E2e } from './harness.ts';

const SETUP_TIMEOUT_MS = 120_000;
const RESUME_TEST_TIMEOUT_MS = 150_000;
/** Poll interval while waiting for the first committed batches. */
const POLL_MS = 25;

// 300 passages of varied length in batches of 2: long enough that a reload lands mid-run.
const TEXTS = Array.from({ length: 300 }, (_, i) =>
  `passage ${i} about ${['tides', 'ships', 'moon', 'canal locks', 'dams'][i % 5]} ${'and more words '.repeat(i % 9)}`.trim(),
);

let e2e: E2e;
let server: HubServer;
let browser: Browser;

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'resume',
    site: 'pages',
    webgpu: true,
    serve: { modelsRoot: DEFAULT_MODELS_DIR },
  });
  ({ server, browser } = e2e);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await e2e?.close();
});

async function ready(page: Page): Promise<void> {
  await page.waitForFunction(() => 'fliplabTest' in window);
}

/** TEXTS encoded on WASM into `db`, cache first, to the end. */
const encodeAll = (page: Page, db: string) =>
  page.evaluate(([texts, dbName]) => window.fliplabTest.encodeCorpus('wasm', 'fliplab/tiny-bert', 'mean', texts, dbName), [
    TEXTS,
    db,
  ] as const);

/**
 * A page that starts encoding TEXTS into `db` and returns once 20 vectors are committed (progress is reported
 * after each commit), with how many are done.
 */
async function encodeUntilCommitted(context: BrowserContext, db: string, before: string): Promise<{ page: Page; before: number }> {
  const page = await context.newPage();
  await page.goto(`${server.url}encode.html?cache=1`);
  await ready(page);
  await page.evaluate(([texts, dbName]) => window.fliplabTest.startCorpus('wasm', 'fliplab/tiny-bert', 'mean', texts, dbName), [
    TEXTS,
    db,
  ] as const);
  const done = (await pollUntil(
    () => page.evaluate(() => window.fliplabTest.corpusProgress()),
    (p) => p !== null && p !== undefined && p.done - p.cached >= 20,
    `20 committed vectors before ${before}`,
    { everyMs: POLL_MS },
  ))!.done;
  return { page, before: done };
}

describe('encoding resumes after a reload (real IndexedDB)', () => {
  it(
    'a reload mid-run keeps committed batches; the next visit encodes only the rest; the one after, nothing',
    async () => {
      const context = await browser.newContext();
      const db = 'fliplab-resume-test';
      const { page, before } = await encodeUntilCommitted(context, db, 'the reload');
      await page.reload();
      await ready(page);

      const second = await encodeAll(page, db);
      // Everything committed before the reload is reused (at most the batch in flight may be lost).
      expect(second.cached).toBeGreaterThanOrEqual(before);
      expect(second.cached).toBeLessThan(TEXTS.length); // the reload really interrupted the job
      expect(second.encoded).toBe(TEXTS.length - second.cached);
      console.info(
        `[e2e] reload after ${before} of ${TEXTS.length} committed; next visit reused ${second.cached}, encoded ${second.encoded}`,
      );

      const third = await encodeAll(page, db);
      // Everything cached: the vectors come from IndexedDB and no model is loaded.
      expect(third).toMatchObject({ cached: TEXTS.length, encoded: 0, device: 'cache' });
      expect(third.dense).toEqual(second.dense);
      expect(third.dense.every((v) => v.length === 32)).toBe(true);
      // A fresh page (a new worker, nothing loaded): still no model file is asked for.
      await page.reload();
      await ready(page);
      const modelRequests = () => server.requests.filter((r) => r.includes('/resolve/')).length;
      const before4 = modelRequests();
      const fourth = await encodeAll(page, db);
      expect(fourth).toMatchObject({ cached: TEXTS.length, encoded: 0, device: 'cache' });
      expect(fourth.dense).toEqual(second.dense);
      expect(modelRequests()).toBe(before4);
      await context.close();
    },
    RESUME_TEST_TIMEOUT_MS,
  );
});

describe('a renderer crashed mid-encode', () => {
  it(
    'keeps every committed batch whole: the next page encodes only the rest, and the vectors are a clean run’s',
    async () => {
      const context = await browser.newContext();
      const db = 'fliplab-crash-test';
      const { page, before } = await encodeUntilCommitted(context, db, 'the crash');
      // The renderer dies (DevTools protocol): the worker and any transaction in flight die with it.
      const cdp = await context.newCDPSession(page);
      const crashed = page.waitForEvent('crash', { timeout: 10_000 });
      void cdp.send('Page.crash').catch(() => undefined);
      await crashed;

      const next = await context.newPage();
      await next.goto(`${server.url}encode.html?cache=1`);
      await ready(next);
      const resumed = await encodeAll(next, db);
      expect(resumed.cached).toBeGreaterThanOrEqual(before);
      expect(resumed.cached).toBeLessThan(TEXTS.length);
      expect(resumed.encoded).toBe(TEXTS.length - resumed.cached);
      console.info(`[e2e] crash after ${before} of ${TEXTS.length} committed; the next page reused ${resumed.cached}`);
      // Against a clean run in a fresh database: no vector was left half-written.
      const clean = await encodeAll(next, `${db}-clean`);
      expect(clean).toMatchObject({ cached: 0, encoded: TEXTS.length });
      expect(resumed.dense).toHaveLength(TEXTS.length);
      resumed.dense.forEach((v, i) => {
        expect(v).toHaveLength(32);
        const worst = Math.max(...v.map((x, j) => Math.abs(x - clean.dense[i]![j]!)));
        expect(worst, `passage ${i}`).toBeLessThan(1e-5);
      });
      await context.close();
    },
    RESUME_TEST_TIMEOUT_MS,
  );
});

describe('two tabs, one encoding (Web Locks)', () => {
  it(
    'a second tab asking for the same run while the first encodes it waits and encodes nothing itself',
    async () => {
      const context = await browser.newContext();
      const [a, b] = [await context.newPage(), await context.newPage()];
      for (const p of [a, b]) {
        await p.goto(`${server.url}encode.html?cache=1`);
        await ready(p);
      }
      const db = 'fliplab-two-tabs-test';
      await a.evaluate(([texts, dbName]) => window.fliplabTest.startCorpus('wasm', 'fliplab/tiny-bert', 'mean', texts, dbName), [
        TEXTS,
        db,
      ] as const);
      await pollUntil(
        () => a.evaluate(() => window.fliplabTest.corpusProgress()),
        (p) => p !== null && p !== undefined && p.done - p.cached >= 10,
        '10 committed vectors in the first tab',
        { everyMs: POLL_MS },
      );
      const second = await encodeAll(b, db);
      const first = (await a.evaluate(() => window.fliplabTest.corpusResult())) as { encoded: number; dense: number[][] };
      // The first tab encoded everything; the second took it all from the cache as it landed.
      expect(first.encoded).toBe(TEXTS.length);
      expect(second).toMatchObject({ cached: TEXTS.length, encoded: 0 });
      expect(second.dense).toEqual(first.dense);
      await context.close();
    },
    RESUME_TEST_TIMEOUT_MS,
  );
});

describe('a lost WebGPU device mid-run', () => {
  const LOST_DEVICE_TIMEOUT_MS = 240_000;
  const FEW = TEXTS.slice(0, 24);

  it(
    'fails the job saying so, switching nothing on its own; WASM then continues from the last committed batch, equal to a WASM-only run within 1e-4',
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}encode.html?cache=1`);
      await ready(page);
      await page.evaluate(
        ([texts]) => window.fliplabTest.startCorpus('webgpu', 'fliplab/tiny-bert', 'mean', texts, 'fliplab-lost-device'),
        [FEW] as const,
      );
      const committedOnGpu = (await pollUntil(
        () => page.evaluate(() => window.fliplabTest.corpusProgress()),
        (p) => p !== null && p !== undefined && p.done - p.cached >= 4,
        '4 vectors committed on WebGPU',
        { everyMs: POLL_MS },
      ))!.done;
      expect(await page.evaluate(() => window.fliplabTest.loseWebGpuDevice())).toBe(true);
      const failed = (await page.evaluate(() => window.fliplabTest.corpusResult())) as { error?: string; failure?: string | null };
      // Reported, never swapped silently: the job fails, naming the device, and nothing ran on WASM in its place.
      expect(failed.failure).toBe('device-lost');
      expect(failed.error).toMatch(
        /WebGPU failed mid-job \(.*\); the vectors committed before are kept, and nothing was encoded on another device/s,
      );
      // The user's choice (the row's "Continue on WASM"): a WASM job finds the batches committed on WebGPU in
      // IndexedDB and encodes only the rest.
      const result = await page.evaluate(
        ([texts]) => window.fliplabTest.encodeCorpus('wasm', 'fliplab/tiny-bert', 'mean', texts, 'fliplab-lost-device'),
        [FEW] as const,
      );
      expect(result.device).toBe('wasm');
      expect(result.fallback).toBeNull();
      expect(result.cached).toBeGreaterThanOrEqual(committedOnGpu);
      expect(result.cached + result.encoded).toBe(FEW.length);
      expect(result.encoded).toBeGreaterThan(0);

      const wasmOnly = await page.evaluate(
        ([texts]) => window.fliplabTest.encodeCorpus('wasm', 'fliplab/tiny-bert', 'mean', texts, 'fliplab-wasm-only'),
        [FEW] as const,
      );
      expect(wasmOnly.encoded).toBe(FEW.length);
      result.dense.forEach((v, i) => v.forEach((x, j) => expect(Math.abs(x - wasmOnly.dense[i]![j]!)).toBeLessThanOrEqual(1e-4)));
      console.info(
        `[e2e] device lost after ${committedOnGpu} of ${FEW.length} on webgpu; wasm reused ${result.cached}, encoded ${result.encoded}`,
      );
      await context.close();
    },
    LOST_DEVICE_TIMEOUT_MS,
  );
});
