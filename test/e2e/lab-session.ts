/**
 * What the lab's e2e files share (lab-scifact, models, no-judgments, instrument, hosting-privacy, answers): the
 * lab as a user meets it. The production build (`vite build`, PWA included; built once for the run) is served by
 * a local server that speaks the Hugging Face hub's layout for models and datasets: SciFact from ../shared/data
 * mirrored in that layout, the generated model fixtures in the hub's layouts (onnx/ and root-level weights, the
 * SPLADE presets' repos as published, the reader). Debian chromium through playwright-core (harness.ts).
 *
 * Every test stands alone: it passes run by itself (`-t`) and in any order. One browser and the local hub server
 * are made once per file (`labSetup` in `beforeAll`: launching is slow); each test opens its own pages, and, where
 * setup is cheap, its own browser context (a fresh visitor, `labContext`, `openLab`, `freshVisitor`: loading
 * SciFact from the catalog takes about a second). The one expensive setup, SciFact encoded by a tiny fixture
 * encoder, is lab-scifact.e2e.test.ts's alone.
 *
 * The visitors' contexts record what they ask for (`Lab.requested`, cleared before each test); every file checks
 * after each test that every request to the default hosts stayed on the local server (`Lab.foreignRequests`).
 *
 * Screenshots of the main views are taken on the way; with FLIPLAB_SCREENSHOTS=1 the README's pictures are
 * written to docs/screenshots/, else to a temporary folder.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { writeBeirMirror } from '../support/beir-mirror.ts';
import type { HubServer } from '../support/hub-server.ts';
import { writeHubLayouts } from '../support/hub-layouts.ts';
import { SCIFACT_DIR } from '../shared-data.ts';
import { ROOT, e2eSetup, saveDownload, type E2e } from './harness.ts';

export const SCIFACT = SCIFACT_DIR;
const SHOTS = process.env.FLIPLAB_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : null;
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
export const MODEL = 'fliplab/tiny-bert';
/** Short truncation keeps WASM encoding of SciFact's 5,183 passages to seconds on 2 cores. */
export const MAX_TOKENS = 24;

/**
 * The visitors' tabs have had their one reload for cross-origin isolation (src/app/isolation.ts), so the page does
 * not reload under a test's steps when the service worker first takes control (isolation.e2e.test.ts tests that
 * reload); pages the worker serves are isolated all the same.
 */
async function skipIsolationReload(c: BrowserContext): Promise<void> {
  await c.addInitScript(() => sessionStorage.setItem('fliplab.isolation-reloaded', '1'));
}

/** One lab file's world (`e2e`: its folder, server and browser), and what its visitors asked for. */
export class Lab {
  /** What the running test's browser contexts asked for, those that use the default hosts (the local server). */
  requested: string[] = [];

  constructor(readonly e2e: E2e) {}

  get work(): string {
    return this.e2e.work;
  }
  get server(): HubServer {
    return this.e2e.server;
  }
  get browser(): Browser {
    return this.e2e.browser;
  }

  /** The requests among `urls` (the running test's, by default) that left the local server (blob: and data: URLs never leave the page). */
  foreignRequests(urls: readonly string[] = this.requested): string[] {
    const origin = new URL(this.server.url).origin;
    return urls.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'));
  }

  /** A browser context of a new visitor whose settings name the local server as the hub; its requests are recorded. */
  async labContext(b: Browser, settings: Record<string, unknown> = {}): Promise<BrowserContext> {
    const c = await b.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    c.on('request', (r) => this.requested.push(r.url()));
    const host = this.server.url.replace(/\/$/, '');
    // Settings are the user's choice of hosts: the local server stands in for the hub.
    await c.addInitScript(
      ([h, extra]) => {
        if (!localStorage.getItem('fliplab.settings'))
          localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm', ...extra }));
      },
      [host, settings] as const,
    );
    await skipIsolationReload(c);
    return c;
  }

  /** `labContext` with a page open at the lab. */
  async openLab(b: Browser, settings: Record<string, unknown> = {}): Promise<{ context: BrowserContext; page: Page }> {
    const c = await this.labContext(b, settings);
    const p = await c.newPage();
    await p.goto(this.server.url);
    return { context: c, page: p };
  }

  /** A fresh visitor (empty storage) at a viewport; the local server stands in for the hub unless `hosts` say otherwise. */
  async freshVisitor(viewport: { width: number; height: number }, hosts: { modelHost?: string; dataHost?: string } = {}) {
    const c = await this.browser.newContext({ viewport, acceptDownloads: true });
    const seen: string[] = [];
    const origins = new Set<string>();
    const custom = hosts.modelHost !== undefined || hosts.dataHost !== undefined;
    c.on('request', (r) => {
      // The per-test check covers the default hosts; a visitor who chose other hosts is checked by `origins`.
      if (!custom) this.requested.push(r.url());
      seen.push(new URL(r.url()).pathname);
      origins.add(new URL(r.url()).origin);
    });
    const host = this.server.url.replace(/\/$/, '');
    await c.addInitScript((s) => localStorage.setItem('fliplab.settings', JSON.stringify({ ...s, device: 'wasm' })), {
      modelHost: hosts.modelHost ?? host,
      dataHost: hosts.dataHost ?? host,
    });
    await skipIsolationReload(c);
    return { c, p: await c.newPage(), seen, origins };
  }

  /** Click something that downloads a file; it is saved in the file's downloads folder. */
  saveDownload(p: Page, click: () => Promise<void>): Promise<{ name: string; text: string; path: string }> {
    return saveDownload(p, join(this.work, 'downloads'), click);
  }

  /** Where screenshots go: docs/screenshots for the README's with FLIPLAB_SCREENSHOTS=1, else a folder of the file's. */
  shotsDir(readme = true): string {
    return (readme ? SHOTS : null) ?? join(this.work, 'screenshots');
  }

  /** A screenshot of `selector`; with `readme` it is one of the README's pictures. */
  async shot(p: Page, selector: string, name: string, readme = true): Promise<void> {
    const dir = this.shotsDir(readme);
    await mkdir(dir, { recursive: true });
    const file = join(dir, name);
    await p.locator(selector).first().screenshot({ path: file });
    expect((await readFile(file)).byteLength).toBeGreaterThan(5_000);
  }

  /** The top `height` pixels of `selector` (README pictures of long sections), rendered as on screen. */
  async shotTop(p: Page, selector: string, name: string, height: number): Promise<void> {
    const dir = this.shotsDir();
    await mkdir(dir, { recursive: true });
    const el = p.locator(selector).first();
    // A viewport as tall as the picture: off-screen parts are not rendered (content-visibility: auto).
    const viewport = p.viewportSize()!;
    await p.setViewportSize({ width: viewport.width, height });
    await el.evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await p.waitForTimeout(300);
    const box = (await el.boundingBox())!;
    await p.screenshot({
      path: join(dir, name),
      clip: { x: box.x, y: Math.max(0, box.y), width: box.width, height: Math.min(height, box.height) },
    });
    await p.setViewportSize(viewport);
    expect((await readFile(join(dir, name))).byteLength).toBeGreaterThan(5_000);
  }

  /** Close the browser and the server, and delete the folder. */
  close(): Promise<void> {
    return this.e2e.close();
  }
}

/**
 * Set up one lab file (`fliplab-<name>-` folder): the model fixtures, SciFact mirrored in the hub's dataset
 * layout (`<work>/mirror`), the fixtures in the hub's model layouts (`<work>/models`), the server on the app's
 * build and Chromium (WASM; the WebGPU tests launch their own).
 */
export async function labSetup(name: string): Promise<Lab> {
  await makeModelFixtures();
  return new Lab(
    await e2eSetup({
      name,
      site: 'app',
      webgpu: false,
      prepare: async (work) => {
        const mirror = join(work, 'mirror');
        await writeBeirMirror(mirror, { sourceDir: SCIFACT, name: 'scifact', layout: 'jsonl.gz' });
        return {
          datasetsRoot: mirror,
          // The fixtures in the hub's layouts: onnx/ and root-level weights, the SPLADE presets' repos as published.
          modelsRoot: await writeHubLayouts(join(work, 'models')),
        };
      },
    }),
  );
}

export const row = (p: Page, id: string) => p.locator(`[data-testid="retriever-${id}"]`);

/** Unfolds "Add a retriever" (folded once a candidate exists), leaving it open when it already is. */
export async function openAddRetriever(p: Page): Promise<void> {
  const box = p.getByTestId('add-retriever');
  if (!(await box.evaluate((d) => (d as HTMLDetailsElement).open))) await box.locator('summary').click();
}

/** Loads SciFact from the catalog (downloaded unless this browser stores it) and waits for BM25's run. */
export async function loadSciFact(p: Page): Promise<void> {
  await p.getByTestId('catalog-scifact').click();
  await expect
    .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
    .toMatch(/5,183 passages.*1,109 queries.*300 judged/s);
  await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
}

/** Waits for the demo's complete analysis: BM25 against both instant candidates, a headline for each. */
export async function demoReady(p: Page): Promise<void> {
  const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
  await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toBe('bm25,bm25-rm3,ql');
  await expect.poll(() => p.locator('[data-testid="headline"] p').count(), { timeout: 30_000 }).toBe(2);
}

/** axe-core's serious and critical violations on the page, as `<impact> <rule>: <nodes>`. */
export async function axeViolations(p: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP forbids injected <script> tags.
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(await readFile(AXE, 'utf8'));
  const found = await p.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (c: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const r = await axe.run(document);
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.nodes.join(' | ')}`);
}

/**
 * A file's lab session: `labSetup(name)` before its tests (`ready` gets it), each test's requests recorded
 * from scratch and checked after it — every request to the default hosts stayed on the local server (the
 * privacy test's claim, per test) — and everything closed after the file.
 */
export function useLabSession(name: string, ready: (lab: Lab) => void): void {
  let lab: Lab | undefined;
  beforeAll(async () => {
    lab = await labSetup(name);
    ready(lab);
  }, 240_000);
  beforeEach(() => {
    if (lab) lab.requested = [];
  });
  afterEach(() => {
    expect(lab?.foreignRequests()).toEqual([]);
  });
  afterAll(async () => {
    await lab?.close();
  });
}
