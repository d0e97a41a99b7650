/**
 * Every static host gets every core: the production build served by a static server that sends no COOP/COEP
 * header (as GitHub Pages or a bucket serve it) is cross-origin isolated after the first load — the app's service
 * worker adds the headers to what it serves and the page reloads once, by itself, when the worker first takes
 * control — so ONNX Runtime's WASM gets more than one thread on a multi-core machine, and the page says how many
 * and why. Under COEP credentialless, a model still loads from a hub on another origin (a second local server).
 */
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { e2eSetup, linkFixtureModels, type E2e } from './harness.ts';

const MODEL = 'fliplab/tiny-bert';
const ENCODER = `bge-small:${MODEL}-max16`;
/** Sessions storage key where each document of a tab notes whether it started isolated (init script below). */
const LOADS = 'isolation-e2e.loads';

let e2e: E2e;
let hub: HubServer;

beforeAll(async () => {
  await makeModelFixtures();
  // The app's server: the build and nothing else, no isolation headers (the hub server sends none unless asked).
  e2e = await e2eSetup({ name: 'isolation', site: 'app' });
  // The hub: another origin (another port), as huggingface.co is.
  hub = await startHubServer({ modelsRoot: await linkFixtureModels(join(e2e.work, 'models'), [MODEL]) });
}, 240_000);

afterAll(async () => {
  await hub?.close();
  await e2e?.close();
});

/** A new visitor whose settings name the local hub; every document of the context notes `crossOriginIsolated` at its start. */
async function visitor(): Promise<BrowserContext> {
  const c = await e2e.browser.newContext();
  await c.addInitScript(
    ([h, key]) => {
      if (!localStorage.getItem('fliplab.settings'))
        localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' }));
      sessionStorage.setItem(key, JSON.stringify([...(JSON.parse(sessionStorage.getItem(key) ?? '[]') as boolean[]), crossOriginIsolated]));
    },
    [hub.url.replace(/\/$/, ''), LOADS] as const,
  );
  return c;
}

/** `crossOriginIsolated` of the page's current document (null while it is being replaced). */
const isolated = (p: Page) => p.evaluate(() => crossOriginIsolated).catch(() => null);
/** The documents this tab has loaded so far, each as whether it started isolated. */
const loads = async (p: Page) => JSON.parse((await p.evaluate((key) => sessionStorage.getItem(key), LOADS)) ?? '[]') as boolean[];

/** Open the app for the first time in `c` and wait for the one reload that makes the page isolated. */
async function firstVisit(c: BrowserContext): Promise<Page> {
  const p = await c.newPage();
  await p.goto(e2e.server.url);
  await expect.poll(() => isolated(p), { timeout: 60_000 }).toBe(true);
  return p;
}

describe('any static host', () => {
  it('serves the app with no isolation header (the host of this test is a plain static one)', async () => {
    const response = await fetch(e2e.server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('cross-origin-opener-policy')).toBeNull();
    expect(response.headers.get('cross-origin-embedder-policy')).toBeNull();
  });

  it('is cross-origin isolated after the first load (one reload, by itself), with more than one WASM thread', async () => {
    const c = await visitor();
    try {
      const p = await firstVisit(c);
      expect(await p.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
      // The host's page was not isolated; the service worker's is; the tab reloaded once and only once.
      expect(await loads(p)).toEqual([false, true]);
      expect(await p.evaluate(() => sessionStorage.getItem('fliplab.isolation-reloaded'))).toBe('1');
      const cores = await p.evaluate(() => navigator.hardwareConcurrency);
      const threads = Math.min(4, cores);
      const shown = p.getByTestId('wasm-threads');
      await expect.poll(() => shown.getAttribute('data-threads')).toBe(String(threads));
      expect(await shown.textContent()).toMatch(new RegExp(`^\\s*WASM threads for encoders and readers: ${threads} threads?: isolated`));
      if (cores > 1) expect(threads).toBeGreaterThan(1);
      // Settled: no second reload comes.
      await p.waitForTimeout(2_000);
      expect(await loads(p)).toEqual([false, true]);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('still loads a model from the hub on another origin (COEP credentialless), and encodes with it', async () => {
    const c = await visitor();
    try {
      await (await firstVisit(c)).close();
      // A link that opens the demo with an encoder: a new tab, isolated from its first document.
      const p = await c.newPage();
      const workers: string[] = [];
      p.on('worker', (w) => workers.push(w.url()));
      await p.goto(`${e2e.server.url}#c=${encodeURIComponent('example:demo')}&ref=bm25&cand=${encodeURIComponent(ENCODER)}`);
      expect(await isolated(p)).toBe(true);
      const row = p.locator(`[data-testid="retriever-${ENCODER}"]`);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      expect(await row.getAttribute('data-device')).toBe('wasm');
      // The encode worker is isolated too (its recipe names the threads it ran with), and ONNX Runtime started its
      // threads: workers of its own beside the lab's and the encoder's (counted as they started: an idle encode
      // worker ends, and its threads with it).
      const threads = Number(await p.getByTestId('wasm-threads').getAttribute('data-threads'));
      expect(await p.locator(`[data-testid="recipe-${ENCODER}"]`).textContent()).toMatch(new RegExp(`wasm threads\\s*${threads}(?!\\d)`));
      expect(workers.filter((url) => !/\/(lab|encode)\.worker-[^/]*\.js$/.test(url)).length).toBeGreaterThanOrEqual(threads - 1);
      expect(await loads(p)).toEqual([true]);
      expect(hub.requests.filter((r) => r.startsWith(`/${MODEL}/resolve/`)).length).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  }, 180_000);

  it('says so where the service worker cannot run (one thread, and why)', async () => {
    const c = await e2e.browser.newContext({ serviceWorkers: 'block' });
    try {
      const p = await c.newPage();
      await p.goto(e2e.server.url);
      const shown = p.getByTestId('wasm-threads');
      await expect
        .poll(() => shown.textContent(), { timeout: 30_000 })
        .toMatch(/1 thread: this host does not allow more, and the app's service worker/);
      expect(await shown.getAttribute('data-threads')).toBe('1');
      expect(await isolated(p)).toBe(false);
    } finally {
      await c.close();
    }
  }, 60_000);
});
