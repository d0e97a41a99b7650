/**
 * The lab, end to end, as a user meets it: the production build (`vite build`, PWA included) served by a
 * local server that speaks the Hugging Face hub's layout for models and datasets, SciFact from
 * ../shared/data mirrored in that layout, Debian chromium through playwright-core.
 *
 * Every test stands alone: it passes run by itself (`-t`) and in any order. One browser, the build and the
 * local hub server are made once (`beforeAll`: launching and building are slow); each test opens its own pages,
 * and, where setup is cheap, its own browser context (a fresh visitor: loading SciFact from the catalog takes
 * about a second). The one expensive setup, SciFact encoded by a tiny fixture encoder on WASM (half a minute on
 * 2 cores), lives in one shared browser context, as a user's browser keeps IndexedDB, Cache Storage and its
 * service worker between visits: `sciFactAnalysis()` opens a new page there at the view link of BM25 against
 * the encoder, and builds what the context lacks (SciFact from the catalog, the encoder's vectors: the link
 * restores the encoder, which encodes what is not cached). So a test run alone builds what it needs, and a
 * test run after another reuses the stored data without depending on it; no test reads a page another test
 * opened. The encode test (a fresh encode, a reload mid-encoding, the resume) needs a browser where nothing of
 * the model is cached: it takes the shared context while no test has opened it yet, leaving its vectors for the
 * tests after it (one encode of SciFact in a run of the file), else a context of its own.
 *
 * Every request of every test to the default hosts stays on the local server (checked after each test); the
 * privacy test checks a session of its own (the app, a dataset from the catalog, a model and an encoding).
 *
 * Screenshots of the main views are taken on the way; with FLIPLAB_SCREENSHOTS=1 they are written to
 * docs/screenshots/ (the README's pictures), else to a temporary folder.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { writeQaCollection } from '../support/qa-collection.ts';
import { answerTokens } from '../../src/core/answers/normalize.ts';
import { writeBeirMirror } from '../support/beir-mirror.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { LAYOUT_REPOS, writeHubLayouts } from '../support/hub-layouts.ts';
import { launchChromium } from './browser.ts';
import { cli, saveDownload as saveTo, e2eSetup, type E2e, builtApp } from './harness.ts';
import { formatRun } from '../../src/core/io/trec.ts';
import type { QueryId } from '../../src/core/types.ts';
import { vectorRun } from '../../src/core/retrieve/vector-run.ts';
import { readPack, unzipPack, zipPack } from '../../src/encoders/pack.ts';
import { PRESETS } from '../../src/encoders/presets.ts';
import { formatSize } from '../../src/core/bytes.ts';
import { loadBeirFolder } from '../../src/node/files.ts';
import { readPackPath } from '../../src/node/vectors-file.ts';
import { SCIFACT_DIR } from '../shared-data.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCIFACT = SCIFACT_DIR;
const SHOTS = process.env.FLIPLAB_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : null;
const MODEL = 'fliplab/tiny-bert';
/** Short truncation keeps WASM encoding of SciFact's 5,183 passages to seconds on 2 cores. */
const MAX_TOKENS = 24;
const ENCODER_ID = `bge-small:${MODEL}-max${MAX_TOKENS}`;

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
/** What the running test's browser contexts asked for, those that use the default hosts (the local server). */
let requested: string[] = [];
/** The browser context the tests of the encoded SciFact analysis share (see the header); made on first use. */
let sciFact: BrowserContext | undefined;

const row = (p: Page, id: string) => p.locator(`[data-testid="retriever-${id}"]`);

/** Unfolds "Add a retriever" (folded once a candidate exists), leaving it open when it already is. */
async function openAddRetriever(p: Page): Promise<void> {
  const box = p.getByTestId('add-retriever');
  if (!(await box.evaluate((d) => (d as HTMLDetailsElement).open))) await box.locator('summary').click();
}

/**
 * In the page (an init script or evaluate): record, on every change of the page, the encoder row's passages in
 * its run, the runs in the analysis, its status, device and the device's reason, into `window.__samples`. As an
 * init script it samples only a page flagged for it (`__sampleFrom`, set by an earlier init script).
 */
function sampleEncoderRow(id: string): void {
  const w = window as unknown as { __samples?: string[][]; __sampleFrom?: Node };
  if (document.readyState === 'loading' && w.__sampleFrom === undefined) return;
  w.__samples = [];
  const sample = () => {
    const r = document.querySelector(`[data-testid="retriever-${CSS.escape(id)}"]`);
    const a = document.querySelector('section[aria-labelledby="analysis-heading"]');
    if (!r) return;
    w.__samples!.push([
      r.getAttribute('data-encoded-docs') ?? '',
      a?.getAttribute('data-runs') ?? '',
      r.getAttribute('data-status') ?? '',
      r.getAttribute('data-device') ?? '',
      r.querySelector('.reason')?.textContent ?? '',
    ]);
  };
  new MutationObserver(sample).observe(w.__sampleFrom ?? document.body, { subtree: true, attributes: true, childList: true });
}

const saveDownload = (p: Page, click: () => Promise<void>) => saveTo(p, join(work, 'downloads'), click);

/** A screenshot of `selector`; with `readme` it is one of the README's pictures (docs/screenshots with FLIPLAB_SCREENSHOTS=1). */
async function shot(p: Page, selector: string, name: string, readme = true): Promise<void> {
  const dir = (readme ? SHOTS : null) ?? join(work, 'screenshots');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await p.locator(selector).first().screenshot({ path: file });
  expect((await readFile(file)).byteLength).toBeGreaterThan(5_000);
}

/** The top `height` pixels of `selector` (README pictures of long sections), rendered as on screen. */
async function shotTop(p: Page, selector: string, name: string, height: number): Promise<void> {
  const dir = SHOTS ?? join(work, 'screenshots');
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

/** A browser context of a new visitor whose settings name the local server as the hub; its requests are recorded. */
async function labContext(b: Browser, settings: Record<string, unknown> = {}): Promise<BrowserContext> {
  const c = await b.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  c.on('request', (r) => requested.push(r.url()));
  const host = server.url.replace(/\/$/, '');
  // Settings are the user's choice of hosts: the local server stands in for the hub.
  await c.addInitScript(
    ([h, extra]) => {
      if (!localStorage.getItem('fliplab.settings'))
        localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm', ...extra }));
    },
    [host, settings] as const,
  );
  return c;
}

async function openLab(b: Browser, settings: Record<string, unknown> = {}): Promise<{ context: BrowserContext; page: Page }> {
  const c = await labContext(b, settings);
  const p = await c.newPage();
  await p.goto(server.url);
  return { context: c, page: p };
}

/** Loads SciFact from the catalog (downloaded unless this browser stores it) and waits for BM25's run. */
async function loadSciFact(p: Page): Promise<void> {
  await p.getByTestId('catalog-scifact').click();
  await expect
    .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
    .toMatch(/5,183 passages.*1,109 queries.*300 judged/s);
  await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
}

/** The shared SciFact context, made on first use. */
async function sciFactContext(): Promise<BrowserContext> {
  sciFact ??= await labContext(browser);
  return sciFact;
}

/**
 * What `sciFactAnalysis()` may take: encoding SciFact when nothing is cached. A test that starts with it has
 * 480 s, this and up to four minutes of its own.
 */
const SCIFACT_SETUP_MS = 240_000;

/** The view link of the analysis the SciFact tests read: BM25 against the fixture encoder. */
const SCIFACT_VIEW = `#c=${encodeURIComponent('beir:scifact')}&ref=bm25&cand=${encodeURIComponent(ENCODER_ID)}`;

/**
 * A new page in the shared SciFact context at the complete analysis of BM25 against the fixture encoder. What
 * the context lacks is built first: SciFact from the catalog when the link finds it missing (the view the link
 * names comes back once it is loaded), the encoder's vectors when they are not all cached (the link restores
 * the encoder: cached batches are read back, the rest is encoded). Idempotent: a test after another that built
 * them reopens them from IndexedDB in seconds.
 */
async function sciFactAnalysis(): Promise<Page> {
  const p = await (await sciFactContext()).newPage();
  try {
    await p.goto(`${server.url}${SCIFACT_VIEW}`);
    const missing = p.getByTestId('missing-collection');
    const opened = async () => /5,183 passages/.test((await p.getByTestId('collection-summary').allTextContents()).join(' '));
    await expect.poll(async () => (await missing.count()) > 0 || (await opened()), { timeout: 60_000 }).toBe(true);
    if ((await missing.count()) > 0) await loadSciFact(p);
    await expect.poll(() => row(p, ENCODER_ID).getAttribute('data-status'), { timeout: SCIFACT_SETUP_MS }).toBe('ready');
    const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
    await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toBe(`bm25,${ENCODER_ID}`);
    await expect.poll(() => analysis.getAttribute('data-partial'), { timeout: 60_000 }).toBe('');
    return p;
  } catch (e) {
    await p.close();
    throw e;
  }
}

/** The requests among `urls` that left the local server (blob: and data: URLs never leave the page). */
function foreignRequests(urls: readonly string[]): string[] {
  const origin = new URL(server.url).origin;
  return urls.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'));
}

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'app',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      const mirror = join(work, 'mirror');
      await writeBeirMirror(mirror, { sourceDir: SCIFACT, name: 'scifact', layout: 'jsonl.gz' });
      return {
        datasetsRoot: mirror,
        // The fixtures in the hub's layouts: onnx/ and root-level weights, the SPLADE presets' repos as published.
        modelsRoot: await writeHubLayouts(join(work, 'models')),
      };
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

beforeEach(() => {
  requested = [];
});

// Every test's own requests to the default hosts stayed on the local server (the privacy test's claim, per test).
afterEach(() => {
  expect(foreignRequests(requested)).toEqual([]);
});

afterAll(async () => {
  await sciFact?.close();
  await e2e?.close();
});

describe('the lab (wasm)', () => {
  it('loads SciFact from the catalog (hub layout) and ranks it with BM25', async () => {
    // A new visitor: nothing stored, so SciFact is downloaded.
    const { context: c, page } = await openLab(browser);
    try {
      await page.getByTestId('catalog-scifact').click();
      await expect
        .poll(() => page.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(/5,183 passages.*1,109 queries.*300 judged/s);
      await expect.poll(() => row(page, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(requested.filter((u) => u.includes('/datasets/')).length).toBeGreaterThan(0);
      // Downloaded once: the stored-collections table lists it.
      await expect.poll(() => page.locator('table.stored').textContent()).toMatch(/SciFact/);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('encodes with a fixture model on WASM, analyses the partial run live, and resumes after a reload', async () => {
    // A fresh encode: the shared SciFact context while no test has opened it (nothing is cached there yet, and
    // what this test encodes serves the tests after it), else a context of its own.
    const shared = sciFact === undefined;
    const c = shared ? await sciFactContext() : await labContext(browser);
    const page = await c.newPage();
    try {
      await page.goto(server.url);
      await loadSciFact(page);
      await openAddRetriever(page);
      await page.getByTestId('encoder-preset').selectOption('bge-small');
      await page.getByTestId('encoder-model').fill(MODEL);
      await page.getByTestId('encoder-max-length').fill(String(MAX_TOKENS));
      // Every change of the page is sampled: (passages in the encoder's run, runs in the analysis, the row's
      // status, its device and the device's reason).
      await page.evaluate(sampleEncoderRow, ENCODER_ID);
      await page.getByTestId('add-encoder').click();
      // While encoding: a partial run, analysed and marked partial.
      await expect
        .poll(async () => Number((await row(page, ENCODER_ID).getAttribute('data-encoded-docs')) || 0), { timeout: 90_000 })
        .toBeGreaterThan(300);
      const analysis = page.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.getAttribute('data-partial'), { timeout: 30_000 }).toBe(ENCODER_ID);
      expect(await analysis.textContent()).toMatch(/partial/i);
      expect(await analysis.textContent()).toMatch(/Partial: .*\d of 5,183 passages/);
      // Honest partial results: with its queries encoded but no passage yet the run was never analysed.
      const samples = await page.evaluate(() => (window as unknown as { __samples: string[][] }).__samples);
      const inAnalysis = ([, runs]: string[]) => (runs ?? '').split(',').includes(ENCODER_ID);
      expect(samples.some(([docs]) => docs === '0')).toBe(true);
      expect(samples.filter(([docs]) => docs === '0').some(inAnalysis)).toBe(false);
      expect(samples.some(inAnalysis)).toBe(true);
      // A fresh encode (nothing of this model in the cache) never says it is restoring, and while it encodes its
      // device column names the device, not the cache.
      const statuses = samples.map(([, , status]) => status).filter((s) => s !== '');
      expect(statuses[0]).not.toBe('restoring');
      expect(statuses).not.toContain('restoring');
      expect(statuses).toContain('encoding');
      for (const [, , , device, reason] of samples.filter(([, , status]) => status === 'encoding')) {
        expect(device).toBe('wasm');
        expect(reason).not.toMatch(/no model loaded/);
      }
      await shot(page, 'section[aria-labelledby="retrievers-heading"]', 'retrievers.png');
      // Read last, right before the reload: a slow screenshot must not let the encoding finish in between.
      const committedBeforeReload = Number(await row(page, ENCODER_ID).getAttribute('data-encoded-docs'));
      expect(committedBeforeReload).toBeLessThan(5_183);

      // Reload mid-encoding: the URL brings back the collection (IndexedDB) and the encoder; committed batches are cache hits.
      // The reloaded page is sampled from its start (once: the flag is taken by the first page that sees it).
      await page.addInitScript((id) => {
        if (sessionStorage.getItem('fliplab.e2e.sample') !== id) return;
        sessionStorage.removeItem('fliplab.e2e.sample');
        (window as unknown as { __sampleFrom: Node }).__sampleFrom = document;
      }, ENCODER_ID);
      await page.addInitScript(sampleEncoderRow, ENCODER_ID);
      await page.evaluate((id) => sessionStorage.setItem('fliplab.e2e.sample', id), ENCODER_ID);
      await page.reload();
      await expect.poll(() => row(page, ENCODER_ID).getAttribute('data-status'), { timeout: 180_000 }).toBe('ready');
      // Resumed: what was committed is restored from the cache, then the rest is encoded on the device that encodes,
      // which the device column names (never "no model loaded" while a model encodes).
      const resumed = await page.evaluate(() => (window as unknown as { __samples: string[][] }).__samples);
      const resumedStatuses = resumed.map(([, , status]) => status);
      expect(resumedStatuses).toContain('restoring');
      expect(resumedStatuses.indexOf('restoring')).toBeLessThan(resumedStatuses.indexOf('encoding'));
      for (const [, , , device, reason] of resumed.filter(([, , status]) => status === 'encoding')) {
        expect(device).toBe('wasm');
        expect(reason).not.toMatch(/no model loaded/);
      }
      expect(await row(page, ENCODER_ID).getAttribute('data-device')).toBe('wasm');
      expect(await row(page, ENCODER_ID).textContent()).not.toMatch(/no model loaded/);
      const cached = Number(await row(page, ENCODER_ID).getAttribute('data-cached'));
      const total = Number(await row(page, ENCODER_ID).getAttribute('data-total'));
      expect(total).toBe(5_183);
      expect(cached).toBeGreaterThanOrEqual(committedBeforeReload);
      expect(cached).toBeLessThan(total);
    } finally {
      await (shared ? page.close() : c.close());
    }
  }, 300_000);

  it("shows the transition tables, and their numbers equal `fliplab flips --json` on the app's exported runs", async () => {
    const page = await sciFactAnalysis();
    try {
      const analysis = page.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.textContent(), { timeout: 30_000 }).toMatch(/Transitions at k = 10/);
      // The analysis of the finished run (not the last partial one) is on screen.
      await expect.poll(() => analysis.getAttribute('data-partial'), { timeout: 60_000 }).toBe('');
      const report = await saveDownload(page, () => page.getByTestId('export-report-json').click());
      const appReport = JSON.parse(report.text) as {
        depths: { k: number; candidates: { name: string; broken: number; fixed: number }[] }[];
      };
      expect(appReport.depths.map((d) => d.k)).toEqual([1, 5, 10, 20, 50]);

      await page.getByTestId('export-run-select').selectOption('bm25');
      const bm25 = await saveDownload(page, () => page.getByTestId('export-run').click());
      await page.getByTestId('export-run-select').selectOption(ENCODER_ID);
      const enc = await saveDownload(page, () => page.getByTestId('export-run').click());
      const out = await cli([
        'flips',
        join(SCIFACT, 'qrels/test.tsv'),
        '--reference',
        bm25.path,
        '--candidate',
        enc.path,
        '--name',
        'bm25',
        '--name',
        ENCODER_ID,
        '--json',
        '--per-query',
      ]);
      expect(out.stderr).not.toMatch(/error/i);
      expect(out.code).toBe(0);
      // Named as the app names them (--name), the CLI's JSON is the app's download, byte for byte, but for the
      // recipes: the app knows how its runs were made (BM25's k1 and b, the encoder's model, …), the CLI knows files.
      const { recipes: appRecipes, ...appRest } = JSON.parse(report.text) as { recipes: Record<string, Record<string, string>> };
      const { recipes: cliRecipes, ...cliRest } = JSON.parse(out.stdout) as { recipes: Record<string, Record<string, string>> };
      expect(`${JSON.stringify(appRest, null, 2)}\n`).toBe(`${JSON.stringify(cliRest, null, 2)}\n`);
      expect(out.stdout.slice(0, out.stdout.indexOf('"recipes"'))).toBe(report.text.slice(0, report.text.indexOf('"recipes"')));
      expect(appRecipes['bm25']).toMatchObject({ k1: '1.5', b: '0.75' });
      expect(appRecipes[ENCODER_ID]).toMatchObject({
        model: MODEL,
        'max tokens': String(MAX_TOKENS),
        'passages encoded': '5,183 of 5,183',
      });
      expect(cliRecipes['bm25']).toMatchObject({ retriever: 'imported TREC run', file: bm25.path, queries: '300' });

      // The 2×2 matrix on the page shows the same counts at k = 10.
      const at10 = appReport.depths.find((d) => d.k === 10)!.candidates[0]!;
      const matrix = await page.locator('section[aria-labelledby="analysis-heading"] table').first().textContent();
      expect(matrix).toContain(String(at10.broken));
      await shot(page, 'section[aria-labelledby="analysis-heading"]', 'fixture-analysis.png', false);
    } finally {
      await page.close();
    }
  }, 480_000);

  it('exports per-query transitions, trec_eval text and reports that parse back', async () => {
    const page = await sciFactAnalysis();
    try {
      const csv = await saveDownload(page, () => page.getByTestId('export-per-query-csv').click());
      const rows = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true }).data;
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r['state@10']))).toEqual(
        new Set(rows.map((r) => r['state@10']).filter((s) => ['preserved', 'broken', 'fixed', 'unchanged'].includes(s!))),
      );
      const json = JSON.parse((await saveDownload(page, () => page.getByTestId('export-per-query-json').click())).text) as {
        per_query: unknown[];
      };
      expect(json.per_query).toHaveLength(300);

      await page.getByTestId('export-run-select').selectOption('bm25');
      const evalText = await saveDownload(page, () => page.getByTestId('export-trec-eval').click());
      const bm25Run = await saveDownload(page, () => page.getByTestId('export-run').click());
      const cliEval = await cli(['eval', join(SCIFACT, 'qrels/test.tsv'), bm25Run.path]);
      expect(evalText.text).toBe(cliEval.stdout);

      const html = await saveDownload(page, () => page.getByTestId('export-html').click());
      expect(html.text).toMatch(/^<!doctype html>/i);
      expect(html.text).toContain('<svg');
      expect(html.text).not.toMatch(/<script/i);
      const md = await saveDownload(page, () => page.getByTestId('export-markdown').click());
      expect(md.text).toMatch(/\| *k *\|/);

      // Plot images: SVG as text, PNG drawn through a canvas in the real browser.
      const svg = await saveDownload(page, () => page.getByRole('button', { name: 'SVG', exact: true }).click());
      expect(svg.text).toMatch(/<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      const [pngDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'PNG', exact: true }).click(),
      ]);
      const png = await readFile((await pngDownload.path())!);
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(png.byteLength).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  }, 480_000);

  it('opens a query in the explorer with both rankings side by side', async () => {
    const page = await sciFactAnalysis();
    try {
      await page
        .getByRole('button', { name: /^Broken/ })
        .first()
        .click();
      const list = page.getByRole('listbox').first();
      await list.getByRole('option').first().click();
      await expect
        .poll(() => page.locator('section[aria-labelledby="explorer-heading"]').textContent(), { timeout: 30_000 })
        .toMatch(/first relevant/i);
      // The URL follows the view just after the frame (coalesced), so it is polled.
      await expect.poll(() => page.url(), { timeout: 5_000 }).toMatch(/[#&]q=/);
      await shot(page, 'section[aria-labelledby="explorer-heading"]', 'fixture-explorer.png', false);

      // The link holds the view, not the data: a new tab on this machine reopens the same view from the cache.
      const detailHeading = await page.locator('section[aria-labelledby="explorer-heading"] .detail-pane h3').first().textContent();
      expect(detailHeading).toMatch(/^Query /);
      const other = await page.context().newPage();
      try {
        const opened = Date.now();
        await other.goto(page.url());
        await expect.poll(() => row(other, ENCODER_ID).getAttribute('data-status'), { timeout: 120_000, interval: 50 }).toBe('ready');
        console.info(`[e2e] SciFact with every vector cached: the encoder run was ready ${Date.now() - opened} ms after opening the link`);
        expect(await row(other, ENCODER_ID).getAttribute('data-cached')).toBe('5183');
        // Every vector was cached: the run was rebuilt from IndexedDB with no model loaded.
        expect(await row(other, ENCODER_ID).getAttribute('data-device')).toBe('cache');
        await expect
          .poll(() => other.locator('section[aria-labelledby="explorer-heading"] .detail-pane h3').first().textContent(), {
            timeout: 30_000,
          })
          .toBe(detailHeading);
        expect(
          await other
            .getByRole('button', { name: /^Broken/ })
            .first()
            .getAttribute('aria-pressed'),
        ).toBe('true');
      } finally {
        await other.close();
      }
    } finally {
      await page.close();
    }
  }, 480_000);

  it('shows a malformed file’s error in place, with file and line, and keeps the open collection', async () => {
    const { context: c, page } = await openLab(browser);
    try {
      await loadSciFact(page);
      const bad = join(work, 'bad');
      await mkdir(join(bad, 'qrels'), { recursive: true });
      await writeFile(join(bad, 'corpus.jsonl'), '{"_id":"d1","title":"","text":"one"}\n{"_id":"d2","text": oops}\n');
      await writeFile(join(bad, 'queries.jsonl'), '{"_id":"q1","text":"one"}\n');
      await writeFile(join(bad, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
      await page.getByTestId('pick-files').setInputFiles([join(bad, 'corpus.jsonl'), join(bad, 'queries.jsonl')]);
      const error = page.getByTestId('collection-error');
      await expect.poll(() => error.textContent(), { timeout: 30_000 }).toMatch(/corpus\.jsonl.*line 2/s);
      expect(await page.getByTestId('collection-summary').textContent()).toMatch(/SciFact/);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('opens offline after the first visit (service worker + IndexedDB + cached model files)', async () => {
    const page = await sciFactAnalysis();
    try {
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      // Make sure this page is controlled before pulling the plug.
      if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
      // Controlled before going offline (on a loaded machine the worker may claim the page a moment later).
      await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 }).toBe(true);
      await page.context().setOffline(true);
      try {
        await page.reload();
        await expect.poll(() => page.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/5,183 passages/);
        await expect.poll(() => row(page, ENCODER_ID).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
        expect(await row(page, ENCODER_ID).getAttribute('data-cached')).toBe('5183');
      } finally {
        await page.context().setOffline(false);
      }
    } finally {
      await page.close();
    }
  }, 480_000);
});

describe('storage', () => {
  it('lists the stored vectors and model files with sizes, and deletes model files', async () => {
    const page = await sciFactAnalysis();
    try {
      await page.getByTestId('storage-refresh').click();
      const encodings = page.getByTestId('stored-encodings');
      await expect.poll(() => encodings.textContent(), { timeout: 30_000 }).toMatch(/fliplab\/tiny-bert/);
      const rows = await encodings.locator('tbody tr').allTextContents();
      expect(rows.some((r) => /passage/.test(r) && /5,183/.test(r))).toBe(true);
      expect(rows.some((r) => /query/.test(r) && /300/.test(r))).toBe(true);
      const models = page.getByTestId('stored-models');
      const host = new URL(server.url).host;
      await expect.poll(() => models.textContent()).toContain(`${host}/${MODEL}`);
      await models
        .locator('tbody tr', { hasText: `${host}/${MODEL}` })
        .getByRole('button', { name: 'Delete' })
        .click();
      await expect
        .poll(
          async () =>
            (await page.getByTestId('stored-models').count()) === 0 || !(await models.textContent())?.includes(`${host}/${MODEL}`),
        )
        .toBe(true);
    } finally {
      await page.close();
    }
  }, 480_000);
});

describe('vector packs: encoded in Node, used in the browser with no model', () => {
  it('imports a pack made by `fliplab encode`: the run and its flips equal the Node run, no model request, back after a reload', async () => {
    const packZip = join(work, 'scifact-tiny.zip');
    const BGE_QUERY = PRESETS['bge-large'].queryPrefix;
    const enc = await cli([
      'encode',
      SCIFACT,
      '--model',
      MODEL,
      '--pooling',
      'cls',
      '--query-prefix',
      BGE_QUERY,
      '--max-length',
      String(MAX_TOKENS),
      '--model-dir',
      DEFAULT_MODELS_DIR,
      '--offline',
      '--out',
      packZip,
    ]);
    expect(enc.stderr).toMatch(/encode: 5183 passages and 300 queries/);
    expect(enc.code).toBe(0);
    // The Node run: exact search over the pack's vectors (the JS kernel, the lab's arithmetic).
    const pack = await readPack(readPackPath(packZip), packZip);
    const col = await loadBeirFolder(SCIFACT, 'test');
    const id = `bge-large:${MODEL}-max${MAX_TOKENS}`;
    const nodeRun = await vectorRun(col.corpus, pack.passages!.vectors, pack.queries!.ids as readonly QueryId[], pack.queries!.vectors, {
      depth: 1000,
      name: id,
    });
    const nodeRunPath = join(work, 'node-pack.run');
    await writeFile(nodeRunPath, formatRun(nodeRun, id));

    const { context: c, page: p } = await openLab(browser);
    try {
      await p.getByTestId('catalog-scifact').click();
      await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
      const before = server.requests.length;
      const modelRequests = () => server.requests.slice(before).filter((r) => r.includes('tiny-bert') || /\.onnx|tokenizer/.test(r));

      // A truncated pack is refused with the file and what is wrong; nothing is added.
      const files = unzipPack(new Uint8Array(await readFile(packZip)), 'x');
      files.set('passages.f32', files.get('passages.f32')!.slice(0, 1000));
      const broken = join(work, 'broken-pack.zip');
      await writeFile(broken, zipPack(files, 'broken-pack'));
      await p.getByTestId('pick-pack').setInputFiles(broken);
      await expect.poll(() => p.getByTestId('pack-status').getAttribute('data-state'), { timeout: 60_000 }).toBe('error');
      expect(await p.getByTestId('pack-status').textContent()).toMatch(
        /broken-pack\.zip\/passages\.f32: expected 165856 float32 values .*\(truncated\?\)/,
      );
      expect(await row(p, id).count()).toBe(0);

      await p.getByTestId('pick-pack').setInputFiles(packZip);
      const status = p.getByTestId('pack-status');
      // Settled on this pack (not the broken one's message, not "importing"), whatever the outcome: the text says which.
      await expect
        .poll(
          async () => !(await status.textContent())!.includes('broken-pack') && (await status.getAttribute('data-state')) !== 'importing',
          {
            timeout: 60_000,
          },
        )
        .toBe(true);
      expect(await status.textContent()).toMatch(/5,183 of 5,183 passages and 300 of 300 queries.*no model needed/);
      expect(await status.getAttribute('data-state')).toBe('done');
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      expect(modelRequests()).toEqual([]);

      // The run is the Node run, line for line; the flip analysis is `fliplab flips --json` on it.
      await p.getByTestId('export-run-select').selectOption(id);
      const labRun = await saveDownload(p, () => p.getByTestId('export-run').click());
      expect(labRun.text).toBe(formatRun(nodeRun, id));
      await p.getByTestId('export-run-select').selectOption('bm25');
      const bm25 = await saveDownload(p, () => p.getByTestId('export-run').click());
      const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toContain(id);
      const report = await saveDownload(p, () => p.getByTestId('export-report-json').click());
      const flips = await cli([
        'flips',
        join(SCIFACT, 'qrels/test.tsv'),
        '--reference',
        bm25.path,
        '--candidate',
        nodeRunPath,
        '--name',
        'bm25',
        '--name',
        id,
        '--json',
        '--per-query',
      ]);
      expect(flips.code).toBe(0);
      const withoutRecipes = (t: string) => {
        const { recipes: _, ...rest } = JSON.parse(t) as { recipes: unknown };
        return rest;
      };
      expect(withoutRecipes(report.text)).toEqual(withoutRecipes(flips.stdout));

      // The imported encoding exports as a pack again, with the same vectors.
      const exported = await saveDownload(p, () => p.getByTestId(`export-pack-${id}`).click());
      const again = await readPack(unzipPack(new Uint8Array(await readFile(exported.path)), exported.name), exported.name);
      expect(again.passages!.ids).toEqual(pack.passages!.ids);
      expect(Array.from(again.passages!.vectors[4321]!.dense!)).toEqual(Array.from(pack.passages!.vectors[4321]!.dense!));

      // A reload brings the run back from IndexedDB: no model, no encoding.
      const reloaded = Date.now();
      await p.reload();
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000, interval: 50 }).toBe('ready');
      console.info(`[e2e] imported pack: the run was back ${Date.now() - reloaded} ms after the reload`);
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      expect(modelRequests()).toEqual([]);
    } finally {
      await c.close();
    }
  }, 300_000);
});

describe('model downloads: sizes before bytes, both layouts, the SPLADE presets', () => {
  it('lists the files and sizes, asks above the threshold, then downloads a root-layout SPLADE preset, counting its bytes', async () => {
    // Ask before every download (threshold 0 MB): the tiny model stands in for a 1.34 GB one.
    const { context: c, page: p } = await openLab(browser, { confirmAboveMB: 0 });
    try {
      // The bundled demo collection (88 passages).
      await p.getByTestId('demo-analysis').click();
      try {
        await demoReady(p);
      } catch (e) {
        console.error((await p.locator('body').textContent())?.slice(0, 2000));
        throw e;
      }
      const before = server.requests.length;
      await openAddRetriever(p);
      await p.getByTestId('encoder-preset').selectOption('splade-pp');
      await p.getByTestId('add-encoder').click();
      const id = 'splade-pp';
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000 }).toBe('confirm');
      // Nothing but one-byte probes before the user agrees; the row names every file with its size.
      const weights = join(work, 'models', LAYOUT_REPOS.spladePreset, 'model.onnx');
      const size = (await readFile(weights)).byteLength;
      const box = p.getByTestId(`download-${id}`);
      expect(await box.textContent()).toMatch(/Needs a download of/);
      expect(await box.textContent()).toContain('model.onnx');
      expect(await box.textContent()).toContain(formatSize(size));
      expect(Number(await box.getAttribute('data-download-bytes'))).toBeGreaterThan(size);
      const fetchedWeights = () =>
        server.requests.slice(before).filter((r) => r.endsWith(`${LAYOUT_REPOS.spladePreset}/resolve/main/model.onnx`));
      const probes = fetchedWeights().length;
      expect(probes).toBeGreaterThan(0);
      const toFetch = await box.getAttribute('data-download-bytes');
      await p.getByTestId(`confirm-download-${id}`).click();
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      expect(fetchedWeights().length).toBeGreaterThan(probes);
      // The byte counts reached the page: every byte of every file.
      expect(await row(p, id).getAttribute('data-downloaded')).toBe(toFetch);
      expect(await row(p, id).getAttribute('data-device')).toBe('wasm');
      expect(await row(p, id).getAttribute('data-total')).toBe('88');

      // A second encoder of the same files: cached in this browser, so nothing to ask, and it starts at once.
      await openAddRetriever(p);
      await p.getByTestId('encoder-preset').selectOption('splade-pp');
      await p.getByTestId('encoder-max-length').fill('32');
      const samples: string[] = [];
      const other = 'splade-pp-max32';
      const watch = setInterval(
        () =>
          void row(p, other)
            .getAttribute('data-status')
            .then((st) => st && samples.push(st))
            .catch(() => undefined),
        20,
      );
      try {
        await p.getByTestId('add-encoder').click();
        await expect.poll(() => row(p, other).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      } finally {
        clearInterval(watch);
      }
      expect(samples).not.toContain('confirm');

      // The paper's checkpoint as naver publishes it (no ONNX): the row says what to host, and the other preset.
      await openAddRetriever(p);
      await p.getByTestId('encoder-preset').selectOption('splade');
      await p.getByTestId('encoder-max-length').fill('');
      await p.getByTestId('add-encoder').click();
      await expect.poll(() => row(p, 'splade').getAttribute('data-status'), { timeout: 60_000 }).toBe('error');
      expect(await row(p, 'splade').textContent()).toMatch(
        /has no ONNX weights for fp32.*optimum-cli export onnx --model naver\/splade-cocondenser-ensembledistil/s,
      );

      // Cancel at the question: no weights are fetched, and the row can be resumed.
      await openAddRetriever(p);
      await p.getByTestId('encoder-preset').selectOption('bge-small');
      await p.getByTestId('encoder-model').fill(LAYOUT_REPOS.bertRoot);
      await p.getByTestId('add-encoder').click();
      const root = `bge-small:${LAYOUT_REPOS.bertRoot}`;
      await expect.poll(() => row(p, root).getAttribute('data-status'), { timeout: 60_000 }).toBe('confirm');
      await row(p, root)
        .getByRole('button', { name: /^Cancel/ })
        .click();
      await expect.poll(() => row(p, root).getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled');
      const rootWeights = () => server.requests.filter((r) => r.endsWith(`${LAYOUT_REPOS.bertRoot}/resolve/main/model.onnx`)).length;
      const probed = rootWeights();
      await p.getByTestId(`resume-${root}`).click();
      await expect.poll(() => row(p, root).getAttribute('data-status'), { timeout: 60_000 }).toBe('confirm');
      await p.getByTestId(`confirm-download-${root}`).click();
      await expect.poll(() => row(p, root).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      expect(rootWeights()).toBeGreaterThan(probed);
    } finally {
      await c.close();
    }
  }, 300_000);
});

describe('the lab without judgments', () => {
  it('compares retrievers on a custom corpus (CSV, no qrels) by overlap@k and rank-biased overlap, explores and exports it', async () => {
    const { context: c, page } = await openLab(browser);
    try {
      const dir = join(work, 'custom');
      await mkdir(dir, { recursive: true });
      // 30 passages: the default depths 1–50 go beyond the corpus, which the lab must say.
      const lines = (await readFile(join(SCIFACT, 'corpus.jsonl'), 'utf8')).trim().split('\n').slice(0, 30);
      const rows = lines.map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
      const csv = ['id,title,text', ...rows.map((r) => [r._id, r.title, r.text].map((f) => `"${f.replaceAll('"', '""')}"`).join(','))].join(
        '\n',
      );
      await writeFile(join(dir, 'passages.csv'), `${csv}\n`);
      await writeFile(
        join(dir, 'queries.tsv'),
        'q1\tgenetic variation in cancer\nq2\timmune cells and inflammation\nq3\tprotein folding\n',
      );
      await page.getByTestId('pick-files').setInputFiles([join(dir, 'passages.csv'), join(dir, 'queries.tsv')]);
      await expect
        .poll(() => page.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(/30 passages.*3 queries.*no judgments/s);
      await expect.poll(() => row(page, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      await openAddRetriever(page);
      await page.getByTestId('add-bm25').click();
      await expect.poll(() => row(page, 'bm25-k1=1.2-b=0.65').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      const table = page.locator('section[aria-labelledby="analysis-heading"] table').first();
      await expect.poll(() => table.textContent(), { timeout: 30_000 }).toMatch(/bm25-k1=1\.2-b=0\.65/);
      expect(await page.locator('section[aria-labelledby="analysis-heading"]').textContent()).toMatch(/overlap/i);
      const variant = 'bm25-k1=1.2-b=0.65';

      // Depth 50 is beyond the 30 passages: said in words, and its column is flagged.
      await expect.poll(() => page.getByTestId('depth-notes').getAttribute('data-beyond-corpus'), { timeout: 10_000 }).toBe('50');
      expect(await page.getByTestId('depth-notes').textContent()).toMatch(/Depth 50 is beyond this corpus \(30 passages\)/);
      expect(await table.getByTestId('depth-flag').count()).toBeGreaterThanOrEqual(1);

      // The explorer works without judgments: least agreement first, both rankings side by side, shared passages marked.
      const explorer = page.getByTestId('agreement-explorer');
      const queries = explorer.getByRole('listbox').getByRole('option');
      await expect.poll(() => queries.count(), { timeout: 10_000 }).toBe(3);
      await queries.first().click();
      const detail = explorer.locator('.detail-pane');
      await expect.poll(() => detail.locator('.list').count(), { timeout: 10_000 }).toBe(2);
      const shared = await detail.locator('.list').first().locator('tr.shared').count();
      expect(await detail.getByTestId('shared-summary').textContent()).toMatch(
        new RegExp(`^\\s*${shared} of the top \\d+ passages are in both`),
      );
      expect(await detail.locator('.list').nth(1).locator('tr.shared').count()).toBe(shared);
      expect(await detail.locator('.list').first().locator('tr.shared .grade').allTextContents()).toEqual(Array(shared).fill('in both'));
      expect(await detail.getByText('Judged documents').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);

      // Exports: the agreement JSON is `fliplab compare --json --per-query` on the exported runs, byte for byte.
      expect(await page.getByTestId('export-report-json').isDisabled()).toBe(true);
      expect(await page.locator('#export-flips-why').textContent()).toMatch(/no judgments/);
      const json = await saveDownload(page, () => page.getByTestId('export-agreement-json').click());
      await page.getByTestId('export-run-select').selectOption('bm25');
      const ref = await saveDownload(page, () => page.getByTestId('export-run').click());
      await page.getByTestId('export-run-select').selectOption(variant);
      const cand = await saveDownload(page, () => page.getByTestId('export-run').click());
      const out = await cli([
        'compare',
        '--reference',
        ref.path,
        '--candidate',
        cand.path,
        '--name',
        'bm25',
        '--name',
        variant,
        '--json',
        '--per-query',
      ]);
      expect(out.code).toBe(0);
      expect(json.text).toBe(out.stdout);
      const perQuery = await saveDownload(page, () => page.getByTestId('export-agreement-csv').click());
      const csvLines = perQuery.text.trim().split(/\r\n/);
      expect(csvLines[0]).toBe('qid,candidate,overlap@1,rbo@1,overlap@5,rbo@5,overlap@10,rbo@10,overlap@20,rbo@20,overlap@50,rbo@50');
      expect(csvLines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['q1', 'q2', 'q3'].map((q) => `${q},${variant}`));
      const md = await saveDownload(page, () => page.getByTestId('export-agreement-markdown').click());
      expect(md.text).toMatch(/## Agreement with the reference/);
      expect(md.text).toMatch(/depth 50 exceeds the depth of run/);
    } finally {
      await c.close();
    }
  }, 120_000);
});

/**
 * A BEIR folder of the user's own cut from SciFact: its first 20 judged queries, their documents, and the
 * first `distractors` passages of the corpus.
 */
async function scifactSubset(name: string, distractors: number): Promise<{ dir: string; passages: string[] }> {
  const dir = join(work, name);
  await mkdir(join(dir, 'qrels'), { recursive: true });
  const qrels = (await readFile(join(SCIFACT, 'qrels/test.tsv'), 'utf8')).trim().split('\n').slice(1, 21);
  const qids = new Set(qrels.map((l) => l.split('\t')[0]));
  const docs = new Set(qrels.map((l) => l.split('\t')[1]));
  const corpus = (await readFile(join(SCIFACT, 'corpus.jsonl'), 'utf8')).trim().split('\n');
  const passages = corpus.filter((l, i) => i < distractors || docs.has((JSON.parse(l) as { _id: string })._id));
  const queries = (await readFile(join(SCIFACT, 'queries.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .filter((l) => qids.has((JSON.parse(l) as { _id: string })._id));
  await writeFile(join(dir, 'corpus.jsonl'), `${passages.join('\n')}\n`);
  await writeFile(join(dir, 'queries.jsonl'), `${queries.join('\n')}\n`);
  await writeFile(join(dir, 'qrels/test.tsv'), `query-id\tcorpus-id\tscore\n${qrels.join('\n')}\n`);
  return { dir, passages };
}

describe('the lab (webgpu, own files)', () => {
  it('encodes a small collection of the user’s own files on WebGPU and analyses it', async () => {
    // A small BEIR folder cut from SciFact: 20 judged queries and their documents plus distractors.
    const { dir: own, passages: kept } = await scifactSubset('own-scifact', 80);

    const gpuBrowser = await launchChromium({ webgpu: true });
    try {
      const { context: c, page: p } = await openLab(gpuBrowser);
      const chooseDevice = async (device: 'auto' | 'webgpu') => {
        await p.evaluate((d) => {
          const s = JSON.parse(localStorage.getItem('fliplab.settings')!) as Record<string, string>;
          localStorage.setItem('fliplab.settings', JSON.stringify({ ...s, device: d }));
        }, device);
        await p.reload();
      };
      await chooseDevice('auto');
      await p.getByTestId('pick-folder').setInputFiles(own);
      await expect
        .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(new RegExp(`${kept.length} passages`));
      await openAddRetriever(p);
      await p.getByTestId('encoder-model').fill(MODEL);
      await p.getByTestId('encoder-max-length').fill('16');
      await p.getByTestId('add-encoder').click();
      const id = `bge-small:${MODEL}-max16`;
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 240_000 }).toBe('ready');
      // "Auto" does not run on SwiftShader (a software adapter, slower than WASM), and says so.
      expect(await row(p, id).getAttribute('data-device')).toBe('wasm');
      expect(await row(p, id).textContent()).toMatch(/software renderer \(google swiftshader[^)]*\), slower than WASM/i);
      await expect
        .poll(() => p.locator('section[aria-labelledby="analysis-heading"]').textContent(), { timeout: 30_000 })
        .toMatch(/Transitions at k = 10/);

      // "WebGPU" uses it, and the row names the adapter. The reload restores the collection and the first
      // encoder from the browser (its vectors are cached: no model is loaded for it).
      await chooseDevice('webgpu');
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      // The same model as a folder picked from disk: loaded from the files, no model request at all.
      const before = server.requests.length;
      await openAddRetriever(p);
      await p.getByTestId('encoder-max-length').fill('16'); // the form starts afresh after the reload
      await p.getByTestId('pick-model-folder').setInputFiles(join(DEFAULT_MODELS_DIR, MODEL));
      const local = 'bge-small:local/tiny-bert-max16';
      await expect.poll(() => row(p, local).getAttribute('data-status'), { timeout: 240_000 }).toBe('ready');
      expect(await row(p, local).getAttribute('data-device')).toBe('webgpu');
      expect(await row(p, local).getAttribute('data-adapter')).toMatch(/swiftshader/i);
      expect(server.requests.slice(before).filter((r) => r.includes('tiny-bert') || r.includes('/local-models/'))).toEqual([]);
      await c.close();
    } finally {
      await gpuBrowser.close();
    }
  }, 360_000);
});

describe('remembered model folders (File System Access)', () => {
  it('a folder chosen with the directory picker is read again after a reload, when something must be encoded', async () => {
    const { context: c, page: p } = await openLab(browser);
    try {
      await p.getByTestId('demo-analysis').click();
      await demoReady(p);
      // A real directory handle: the tiny BERT copied into the origin's private file system. Only the picker's
      // dialog is replaced (headless Chromium cannot show it); the handle, its storage and its reading are real.
      await p.evaluate(
        async (files) => {
          const root = await navigator.storage.getDirectory();
          const dir = await root.getDirectoryHandle('tiny-bert', { create: true });
          for (const path of files) {
            const bytes = await (await fetch(`/fliplab/tiny-bert/resolve/main/${path}`)).arrayBuffer();
            const parts = path.split('/');
            let at = dir;
            for (const part of parts.slice(0, -1)) at = await at.getDirectoryHandle(part, { create: true });
            const writable = await (await at.getFileHandle(parts.at(-1)!, { create: true })).createWritable();
            await writable.write(bytes);
            await writable.close();
          }
          (window as unknown as { showDirectoryPicker: () => Promise<unknown> }).showDirectoryPicker = async () => dir;
        },
        ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt', 'onnx/model.onnx'],
      );
      await openAddRetriever(p);
      await p.getByTestId('encoder-max-length').fill('32');
      await p.getByTestId('choose-model-folder').click();
      const first = 'bge-small:local/tiny-bert-max32';
      await expect.poll(() => row(p, first).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');

      // After a reload nothing of the folder is registered; a retriever that needs encoding (another length)
      // reads the remembered handle again, with no pick and no request for model files.
      const other = 'bge-small:local/tiny-bert-max16';
      const before = server.requests.length;
      await p.goto(`${server.url}#c=${encodeURIComponent('example:demo')}&ref=bm25&cand=${encodeURIComponent(other)}`);
      await p.reload();
      await expect.poll(() => row(p, other).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
      expect(await row(p, other).getAttribute('data-device')).toBe('wasm');
      expect(server.requests.slice(before).filter((r) => r.includes('tiny-bert'))).toEqual([]);
    } finally {
      await c.close();
    }
  }, 240_000);
});

describe('calibration: a device projected twice as fast is offered', () => {
  it('on WebGPU over SwiftShader, times a batch on WASM, offers it with both projections, and switching keeps what was encoded', async () => {
    const { dir: own } = await scifactSubset('own-1000', 1000);

    const gpuBrowser = await launchChromium({ webgpu: true });
    try {
      const { context: c, page: p } = await openLab(gpuBrowser, { device: 'webgpu' });
      await p.getByTestId('pick-folder').setInputFiles(own);
      await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/passages/);
      await openAddRetriever(p);
      await p.getByTestId('encoder-model').fill(MODEL);
      await p.getByTestId('encoder-max-length').fill('128');
      await p.getByTestId('add-encoder').click();
      const id = `bge-small:${MODEL}-max128`;
      const offer = p.getByTestId(`offer-${id}`);
      // Settled: the offer is up, or the job ended without one (then the row's text says why).
      await expect
        .poll(
          async () =>
            (await offer.count()) === 1 || ['ready', 'error', 'cancelled'].includes((await row(p, id).getAttribute('data-status'))!),
          {
            timeout: 240_000,
          },
        )
        .toBe(true);
      expect(await offer.count(), (await row(p, id).textContent()) ?? '').toBe(1);
      expect(await row(p, id).getAttribute('data-device')).toBe('webgpu');
      const said = (await offer.textContent())!;
      console.info(`[e2e] calibration on SwiftShader: ${said.replace(/\s+/g, ' ').trim()}`);
      expect(said).toMatch(/WASM is [\d.]+× faster here \(one batch timed on it\): .* left instead of .* left/);
      const before = Number(await row(p, id).getAttribute('data-encoded-docs'));
      await p.getByTestId(`switch-${id}`).click();
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 180_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('wasm');
      // What SwiftShader had committed was kept: the WASM job started from it.
      expect(Number(await row(p, id).getAttribute('data-cached'))).toBeGreaterThanOrEqual(before);
      expect(await offer.count()).toBe(0);
      await c.close();
    } finally {
      await gpuBrowser.close();
    }
  }, 420_000);
});

// ---------------------------------------------------------------------------------------------------------
// The lab as an instrument: #demo, phones, keyboard and screen readers.

const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** A fresh visitor (empty storage) at a viewport; the local server stands in for the hub unless `hosts` say otherwise. */
async function freshVisitor(viewport: { width: number; height: number }, hosts: { modelHost?: string; dataHost?: string } = {}) {
  const c = await browser.newContext({ viewport, acceptDownloads: true });
  const seen: string[] = [];
  const origins = new Set<string>();
  const custom = hosts.modelHost !== undefined || hosts.dataHost !== undefined;
  c.on('request', (r) => {
    // The privacy test below checks the default hosts; a visitor who chose other hosts is checked by `origins`.
    if (!custom) requested.push(r.url());
    seen.push(new URL(r.url()).pathname);
    origins.add(new URL(r.url()).origin);
  });
  const host = server.url.replace(/\/$/, '');
  await c.addInitScript((s) => localStorage.setItem('fliplab.settings', JSON.stringify({ ...s, device: 'wasm' })), {
    modelHost: hosts.modelHost ?? host,
    dataHost: hosts.dataHost ?? host,
  });
  return { c, p: await c.newPage(), seen, origins };
}

/** Waits for the demo's complete analysis: BM25 against both instant candidates, a headline for each. */
async function demoReady(p: Page): Promise<void> {
  const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
  await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toBe('bm25,bm25-rm3,ql');
  await expect.poll(() => p.locator('[data-testid="headline"] p').count(), { timeout: 30_000 }).toBe(2);
}

/**
 * Width beyond the viewport (0 = the page never scrolls sideways), and no panel scrolls sideways either
 * (only the table boxes inside them may): a panel that overflows cuts its paragraphs off at the right.
 */
const sideways = (p: Page) =>
  p.evaluate(() => {
    const page = document.documentElement.scrollWidth - document.documentElement.clientWidth;
    const panels = [...document.querySelectorAll('main > .panel')].map((e) => e.scrollWidth - e.clientWidth);
    return Math.max(page, ...panels.map((x) => (x > 1 ? x : 0)));
  });

async function axeViolations(p: Page): Promise<string[]> {
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

/** Where the headline is at the current scroll: in the first screen when all of it lies within the viewport's height of the top. */
const headlineBox = (p: Page) =>
  p.evaluate(() => {
    const h = document.querySelector('[data-testid="headline"]')!.getBoundingClientRect();
    const top = h.top + scrollY;
    return { scrollY, top, bottom: h.bottom + scrollY, inFirstScreen: top >= 0 && h.bottom + scrollY <= innerHeight };
  });

describe('the lab as an instrument', () => {
  for (const vp of VIEWPORTS) {
    it(`#demo opens a complete analysis with no download and no sideways scrolling (${vp.name} ${vp.width}×${vp.height})`, async () => {
      const { c, p, seen } = await freshVisitor(vp);
      try {
        await p.goto(`${server.url}#demo`);
        await demoReady(p);
        const headline = await p.getByTestId('headline').textContent();
        expect(headline).toMatch(
          /Replacing bm25 by bm25-rm3 at k = 3 fixes \d+ and breaks \d+ of 32 queries \(net [+-]?\d+\); nDCG@10 0\.\d{3} → 0\.\d{3}\./,
        );
        expect(await p.getByTestId('collection-summary').textContent()).toMatch(/fliplab classroom collection.*88 passages.*32 judged/s);
        // It sweeps only depths every run reaches: no depth warning on the first screen.
        await expect.poll(() => p.evaluate(() => location.hash), { timeout: 5_000 }).toMatch(/[#&]d=1,3(,\d+)*(&|$)/);
        await p.waitForTimeout(500); // the warnings follow the depths within a task or two
        expect(await p.getByTestId('depth-notes').count()).toBe(0);
        // Nothing was downloaded: no dataset, no model.
        expect(seen.filter((path) => path.startsWith('/datasets/') || path.includes('/resolve/'))).toEqual([]);
        // The setup is compact once a collection is open: the catalog waits behind "Change collection".
        expect(await p.getByTestId('catalog-scifact').isVisible()).toBe(false);
        expect(await sideways(p)).toBe(0);
        // The analysis is the product: its headline is on the first screen, unscrolled, and again after a reload.
        expect(await headlineBox(p)).toMatchObject({ scrollY: 0, inFirstScreen: true });
        await expect.poll(() => p.evaluate(() => location.hash), { timeout: 5_000 }).toMatch(/c=example%3Ademo/);
        await p.reload();
        await demoReady(p);
        expect(await headlineBox(p)).toMatchObject({ scrollY: 0, inFirstScreen: true });
        // Every retriever is one line, with its Device and Remove on screen (phones too).
        for (const id of ['bm25', 'bm25-rm3', 'ql']) {
          const r = (await row(p, id).boundingBox())!;
          expect(r.height, `${id} row height`).toBeLessThan(48);
          expect(r.x + r.width, `${id} row right edge`).toBeLessThanOrEqual(vp.width);
        }
        expect(await row(p, 'ql').getByRole('button', { name: 'Remove ql' }).isVisible()).toBe(true);
        // The depth plot is drawn at the width it is shown (its text keeps its size on a phone, panels stacked).
        const plot = p.locator('[data-depth-plot] svg').first();
        await plot.scrollIntoViewIfNeeded();
        await expect
          .poll(() => plot.evaluate((svg) => svg.getBoundingClientRect().width / Number(svg.getAttribute('width'))), { timeout: 10_000 })
          .toBeGreaterThan(0.95);
        await p.evaluate(() => scrollTo(0, 0));

        // The explorer: "next broken query" opens one; its detail is on screen, with the query terms marked.
        await p.getByTestId('next-broken').click();
        const detail = p.locator('.detail-pane');
        await expect.poll(() => detail.locator('h3').first().textContent(), { timeout: 30_000 }).toMatch(/^Query q\d+/);
        const box = (await detail.boundingBox())!;
        expect(box.width).toBeGreaterThan(vp.width < 600 ? vp.width * 0.8 : 400);
        // A link to that query opens the explorer there, not at the top of the page.
        const qid = (await detail.locator('h3').first().textContent())!.match(/^Query (q\d+)/)![1]!;
        await expect.poll(() => p.evaluate(() => location.hash), { timeout: 5_000 }).toContain(`q=${qid}`);
        const linked = await c.newPage();
        await linked.goto(p.url());
        const linkedDetail = linked.locator('.detail-pane');
        await expect
          .poll(() => linkedDetail.locator('h3').first().textContent(), { timeout: 60_000 })
          .toMatch(new RegExp(`^Query ${qid}\\b`));
        await expect
          .poll(
            async () => {
              const b = await linkedDetail.locator('h3').first().boundingBox();
              return b !== null && b.y >= 0 && b.y + b.height <= vp.height;
            },
            { timeout: 10_000 },
          )
          .toBe(true);
        await linked.close();
        await expect.poll(async () => (await detail.boundingBox())!.y < vp.height, { timeout: 5_000 }).toBe(true);
        expect(await detail.locator('.list').count()).toBe(2);
        for (const list of await detail.locator('.list').all()) expect((await list.boundingBox())!.width).toBeGreaterThan(250);
        if (vp.width >= 1280) {
          // The two rankings stand side by side on a 1280 px screen.
          const [a, b] = await detail.locator('.list').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().top));
          expect(a).toBe(b);
        }
        // Ids never break mid-id, and no grade marker spills out of its cell.
        const cells = await detail.locator('.list tr.doc').evaluateAll((rows) =>
          rows.map((r) => {
            const id = r.querySelector('.doc-id') as HTMLElement;
            const cell = r.querySelector('td.title') as HTMLElement;
            const range = document.createRange();
            range.selectNodeContents(id);
            // One line box per line the id's text occupies.
            const idLines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
            return { id: id.textContent, idLines, spill: cell.scrollWidth - cell.clientWidth };
          }),
        );
        expect(cells.filter((c) => c.idLines !== 1 || c.spill > 1)).toEqual([]);
        // The explorer's selects have names.
        const explorerSection = p.locator('section[aria-labelledby="explorer-heading"]');
        for (const name of ['Candidate', 'Depth k']) expect(await explorerSection.getByRole('combobox', { name }).count()).toBe(1);
        expect(await sideways(p)).toBe(0);
        if (vp.width >= 1280) {
          // At least 40 characters of query text fit the list's text column.
          const fits = await p.evaluate(() => {
            const cell = document.querySelector('.list-pane [role="option"] .text') as HTMLElement;
            const ctx = document.createElement('canvas').getContext('2d')!;
            ctx.font = getComputedStyle(cell).font;
            return { room: cell.clientWidth, need: ctx.measureText('how does vaccination protect people who a').width };
          });
          expect(fits.room).toBeGreaterThanOrEqual(fits.need);
        }
        // Show a passage of the reference: the query's words are marked, and BM25 says why it scored it.
        await detail
          .locator('.list')
          .first()
          .getByRole('button', { name: /^Show passage / })
          .first()
          .click();
        await expect.poll(() => detail.locator('.passage-text mark').count(), { timeout: 10_000 }).toBeGreaterThan(0);
        await expect.poll(() => detail.getByTestId('bm25-why').count(), { timeout: 10_000 }).toBe(1);
        expect(await detail.getByTestId('bm25-why').textContent()).toMatch(/Why bm25 scores it \d+\.\d{4}/);
        expect(await axeViolations(p)).toEqual([]);
      } finally {
        await c.close();
      }
    }, 120_000);
  }

  it('every button of the retrievers panel gives a run with its default values; a bad value is said in words', async () => {
    const { c, p } = await freshVisitor({ width: 1280, height: 800 });
    try {
      await p.goto(`${server.url}#demo`);
      await demoReady(p);
      // Start from BM25 alone: the demo's instant candidates go, and "Add a retriever" unfolds.
      for (const id of ['bm25-rm3', 'ql'])
        await row(p, id)
          .getByRole('button', { name: `Remove ${id}` })
          .click();
      await expect.poll(() => p.locator('[data-testid^="retriever-"]').count()).toBe(1);
      await expect.poll(() => p.getByTestId('add-retriever').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);

      // A μ that is not positive is refused next to its input, in words; nothing is added.
      await p.getByTestId('ql-mu').fill('-5');
      await p.getByTestId('add-ql').click();
      expect(await p.getByRole('alert').filter({ hasText: 'Dirichlet μ' }).textContent()).toBe('Dirichlet μ must be greater than 0.');
      expect(await p.locator('[data-testid^="retriever-"]').count()).toBe(1);
      await p.getByTestId('ql-mu').fill('1000');

      const buttons = ['add-rm3', 'add-ql', 'add-bm25', 'add-encoder'];
      for (const [i, id] of buttons.entries()) {
        await openAddRetriever(p);
        await p.getByTestId(id).click();
        await expect.poll(() => p.locator('[data-testid^="retriever-"]').count(), { timeout: 10_000 }).toBe(i + 2);
        await expect
          .poll(() => p.locator('[data-testid^="retriever-"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))), {
            timeout: 90_000,
          })
          .toEqual(Array(i + 2).fill('ready'));
      }
      const ids = await p.locator('[data-testid^="retriever-"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')));
      expect(ids.slice(0, 4)).toEqual(['retriever-bm25', 'retriever-bm25-rm3', 'retriever-ql', 'retriever-bm25-k1=1.2-b=0.65']);
      expect(ids[4]).toMatch(/^retriever-.*bge-small/);
      // Every run is in the analysis, and the encoder's vectors export as a pack.
      await expect
        .poll(() => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs'), { timeout: 30_000 })
        .toBe(`bm25,bm25-rm3,ql,bm25-k1=1.2-b=0.65,${ids[4]!.replace(/^retriever-/, '')}`);
      const pack = await saveDownload(p, () =>
        p
          .locator(`[data-testid="${ids[4]}"]`)
          .getByRole('button', { name: /^Export the vectors/ })
          .click(),
      );
      expect(pack.name).toMatch(/\.zip$/);
    } finally {
      await c.close();
    }
  }, 180_000);

  it('the first visit offers the demo in one click; keyboard and screen-reader structure hold', async () => {
    const { c, p } = await freshVisitor({ width: 1280, height: 800 });
    try {
      await p.goto(server.url);
      expect(await axeViolations(p)).toEqual([]);
      // A skip link first in the tab order, then navigation that moves focus, not only the scroll position.
      await p.keyboard.press('Tab');
      expect(await p.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the analysis');
      await p.keyboard.press('Enter');
      expect(await p.evaluate(() => document.activeElement?.id)).toBe('analysis-heading');
      await p.getByTestId('demo').click();
      await demoReady(p);
      await p.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Queries' }).click();
      expect(await p.evaluate(() => document.activeElement?.id)).toBe('explorer-heading');
      await p.getByRole('navigation', { name: 'Parts of the analysis' }).getByRole('link', { name: 'Depth plot' }).click();
      expect(await p.evaluate(() => document.activeElement?.textContent)).toBe('Depth plot');
      // One h1, and no level skipped on the way down.
      const levels = await p.evaluate(() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1])));
      expect(levels.filter((l) => l === 1)).toHaveLength(1);
      levels.forEach((l, i) => expect(l - (levels[i - 1] ?? 0), `heading ${i} (h${l})`).toBeLessThanOrEqual(1));
      // Buttons say what they act on: no two share a name.
      const names = await p.evaluate(() =>
        [...document.querySelectorAll('button')]
          .filter((b) => b.offsetParent !== null)
          .map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim()),
      );
      expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
      expect(names).toContain('Remove bm25-rm3');
      expect(await axeViolations(p)).toEqual([]);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('#demo opens offline after a first visit (the demo collection is part of the cached app)', async () => {
    const { c, p, seen } = await freshVisitor({ width: 1280, height: 800 });
    try {
      await p.goto(server.url);
      await p.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      if (!(await p.evaluate(() => navigator.serviceWorker.controller !== null))) await p.reload();
      // Controlled before going offline (on a loaded machine the worker may claim the page a moment later).
      await expect.poll(() => p.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 }).toBe(true);
      await c.setOffline(true);
      const before = seen.length;
      const errors: string[] = [];
      p.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      p.on('pageerror', (e) => void errors.push(String(e)));
      await p.goto(`${server.url}#demo`);
      await p.reload(); // a real navigation, served by the service worker
      try {
        await demoReady(p);
      } catch (e) {
        // What the page said (a script that was not cached, a request that failed) is the diagnosis.
        throw new Error(`${(e as Error).message}\npage errors offline: ${errors.join(' | ') || 'none'}`, { cause: e });
      }
      expect(await p.getByTestId('collection-summary').textContent()).toMatch(/fliplab classroom collection/);
      expect(seen.slice(before).filter((path) => path.startsWith('/datasets/') || path.includes('/resolve/'))).toEqual([]);
    } finally {
      await c.setOffline(false);
      await c.close();
    }
  }, 120_000);

  it('says offline, unreachable and not found apart, in plain words, with a Retry', async () => {
    // Not found: a host that serves no datasets (404 for every layout).
    const bare = await startHubServer({ staticRoot: builtApp() });
    const dead = 'http://127.0.0.1:9'; // nothing listens on the discard port
    const cases = [
      { dataHost: bare.url.replace(/\/$/, ''), problem: 'not-found', says: /SciFact is not on 127\.0\.0\.1:\d+/, offline: false },
      { dataHost: dead, problem: 'unreachable', says: /127\.0\.0\.1:9 did not answer/, offline: false },
      { dataHost: server.url.replace(/\/$/, ''), problem: 'offline', says: /This browser is offline/, offline: true },
    ] as const;
    try {
      for (const t of cases) {
        const { c, p, origins } = await freshVisitor({ width: 1280, height: 800 }, { dataHost: t.dataHost });
        try {
          await p.goto(server.url);
          if (t.offline) await c.setOffline(true);
          await p.getByTestId('catalog-scifact').click();
          const failure = p.getByTestId('download-failure');
          await expect.poll(() => failure.getAttribute('data-problem'), { timeout: 30_000 }).toBe(t.problem);
          expect(await failure.textContent()).toMatch(t.says);
          expect(await failure.textContent()).toMatch(/open your own files below/);
          expect(await failure.getByRole('button', { name: 'Retry' }).isVisible()).toBe(true);
          if (t.offline) {
            // Back online, Retry downloads it.
            await c.setOffline(false);
            await failure.getByRole('button', { name: 'Retry' }).click();
            await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
            expect(await p.getByTestId('download-failure').count()).toBe(0);
          }
          // Requests went to the page's own server and the chosen data host only.
          expect([...origins].filter((o) => o !== new URL(server.url).origin && o !== new URL(t.dataHost).origin)).toEqual([]);
        } finally {
          await c.close();
        }
      }
      // A model host that does not answer: the row says so (not "not found") and offers Retry.
      const { c, p } = await freshVisitor({ width: 1280, height: 800 }, { modelHost: dead });
      try {
        await p.goto(`${server.url}#demo`);
        await demoReady(p);
        await openAddRetriever(p);
        await p.getByTestId('encoder-model').fill(MODEL);
        await p.getByTestId('add-encoder').click();
        const encoder = row(p, 'bge-small:fliplab/tiny-bert');
        await expect.poll(() => encoder.getAttribute('data-status'), { timeout: 60_000 }).toBe('error');
        const text = (await encoder.textContent()) ?? '';
        expect(text).toMatch(/could not reach http:\/\/127\.0\.0\.1:9/);
        expect(text).not.toMatch(/not found/);
        expect(text).toMatch(/Check the host in Settings/);
        expect(await encoder.getByRole('button', { name: /^Retry / }).isVisible()).toBe(true);
      } finally {
        await c.close();
      }
    } finally {
      await bare.close();
    }
  }, 240_000);

  it('#demo on a browser that has SciFact uses SciFact; README screenshots from it', async () => {
    // A browser that stores SciFact (loaded from the catalog), then #demo opened in a new tab.
    const { context: c, page: first } = await openLab(browser);
    try {
      await loadSciFact(first);
      await first.close();
      const page = await c.newPage();
      await page.goto(`${server.url}#demo`);
      const analysis = page.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 120_000 }).toBe('bm25,bm25-rm3,ql');
      expect(await page.getByTestId('collection-summary').textContent()).toMatch(/SciFact.*5,183 passages/s);
      expect(await page.getByTestId('headline').textContent()).toMatch(
        /Replacing bm25 by bm25-rm3 at k = 10 fixes \d+ and breaks \d+ of 300 queries/,
      );
      // The recipe of every run is on screen.
      await page.getByTestId('recipe-bm25-rm3').locator('summary').click();
      expect(await page.getByTestId('recipe-bm25-rm3').textContent()).toMatch(/fb_docs\s*10.*fb_terms\s*10.*original query weight\s*0\.5/s);
      await page.setViewportSize({ width: 1280, height: 800 });
      await shotTop(page, 'section[aria-labelledby="analysis-heading"]', 'analysis.png', 1500);
      await page.getByTestId('next-broken').click();
      await expect.poll(() => page.locator('.detail-pane h3').first().textContent(), { timeout: 30_000 }).toMatch(/^Query /);
      await page
        .locator('.detail-pane .list')
        .first()
        .getByRole('button', { name: /^Show passage / })
        .first()
        .click();
      await expect.poll(() => page.getByTestId('bm25-why').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      // What RM3 searched for instead, above its list.
      await expect
        .poll(() => page.getByTestId('rm3-expansion').textContent(), { timeout: 10_000 })
        .toMatch(/bm25-rm3 searched for: .*\(added\)/s);
      await shotTop(page, 'section[aria-labelledby="explorer-heading"]', 'explorer.png', 1500);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#analysis-heading').evaluate((h) => h.scrollIntoView({ block: 'start' }));
      const dir = SHOTS ?? join(work, 'screenshots');
      await mkdir(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'phone.png') });
      expect(await sideways(page)).toBe(0);
    } finally {
      await c.close();
    }
  }, 180_000);
});

describe('static hosting', () => {
  it('works from a sub-path of any static host (relative base: assets, workers, service worker scope)', async () => {
    // The same build, served one folder down: http://host/app/ instead of http://host/.
    const sub = await startHubServer({ staticRoot: dirname(builtApp()), datasetsRoot: join(work, 'mirror') });
    const c = await browser.newContext();
    try {
      const host = sub.url.replace(/\/$/, '');
      await c.addInitScript(
        (h) => localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' })),
        host,
      );
      const p = await c.newPage();
      await p.goto(`${sub.url}${basename(builtApp())}/`);
      await p.getByTestId('catalog-scifact').click();
      await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
      const scope = await p.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      expect(scope).toBe(`${sub.url}${basename(builtApp())}/`);
      expect(sub.requests.filter((r) => r.startsWith('/assets/') || r === '/sw.js')).toEqual([]);
    } finally {
      await c.close();
      await sub.close();
    }
  }, 120_000);
});

describe('privacy', () => {
  it('sent every request to the local server only', async () => {
    // A session of its own (every other test's requests are checked after it, by afterEach): the app and its
    // service worker, SciFact from the catalog, then a link that opens the demo with an encoder (a model's files).
    const { context: c, page } = await openLab(browser);
    try {
      await loadSciFact(page);
      const encoder = `bge-small:${MODEL}-max16`;
      const demo = await c.newPage();
      await demo.goto(`${server.url}#c=${encodeURIComponent('example:demo')}&ref=bm25&cand=${encodeURIComponent(encoder)}`);
      await expect.poll(() => row(demo, encoder).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
    } finally {
      await c.close();
    }
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((u) => u.includes('/datasets/')).length).toBeGreaterThan(0);
    expect(requested.filter((u) => u.includes(`/${MODEL}/resolve/`)).length).toBeGreaterThan(0);
    expect(foreignRequests(requested)).toEqual([]);
  }, 240_000);

  it('installs a Content-Security-Policy that allows only the chosen hosts, and it blocks the rest', async () => {
    const { context: c, page } = await openLab(browser);
    try {
      const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      const origin = new URL(server.url).origin;
      expect(csp).toContain(`connect-src 'self' ${origin};`);
      expect(csp).not.toMatch(/huggingface/);
      const blocked = await page.evaluate(async () => {
        const violation = new Promise<string>((resolve) =>
          document.addEventListener('securitypolicyviolation', (e) => resolve(`${e.effectiveDirective} ${e.blockedURI}`), { once: true }),
        );
        await fetch('http://192.0.2.1/not-allowed').catch(() => undefined);
        return violation;
      });
      expect(blocked).toBe('connect-src http://192.0.2.1/not-allowed');
    } finally {
      await c.close();
    }
  });
});

/** The answers panel at k = 2 with the generated decoder from the hub-layout server, fp32. */
async function chooseTinyReader(p: Page): Promise<void> {
  await p.getByTestId('answer-k').fill('2');
  await p.getByTestId('reader-preset').selectOption('custom');
  await p.getByTestId('reader-model').fill(LAYOUT_REPOS.reader);
  await p.getByTestId('reader-dtype').selectOption('fp32');
}

describe('answer-level flips (the paper’s §3.5)', () => {
  it('reads gold from the queries’ metadata, answers the flip set with a reader, and shows the table the CLI computes from the exported answers', async () => {
    const qa = writeQaCollection(join(work, 'qa'));
    const { context: c, page: p } = await openLab(browser);
    try {
      await p.getByTestId('pick-folder').setInputFiles(qa.dir);
      await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/150 passages.*30 queries/s);
      await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      await openAddRetriever(p);
      await p.getByTestId('add-rm3').click();
      await expect.poll(() => row(p, 'bm25-rm3').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      const panel = p.getByTestId('answers-panel');
      await expect
        .poll(() => p.getByTestId('gold-status').textContent(), { timeout: 30_000 })
        .toMatch(/Gold answers: 30 queries \(from queries metadata\)/);
      await chooseTinyReader(p);
      await expect.poll(() => p.getByTestId('answer-flip-table').textContent(), { timeout: 30_000 }).toMatch(/bm25-rm3\s*[1-9]\d* flips/);
      await p.getByTestId('reader-run').click();
      // Done when the job is gone and every run has the answers its flip and control queries need.
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 120_000 }).toBe(1);
      expect(await panel.getByTestId('answers-error').count()).toBe(0);
      const counts = await p
        .locator('[data-testid="answer-runs"] tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [
            r.querySelector('td')!.textContent!.trim(),
            r.querySelector('[data-testid="answer-count"]')!.textContent!.trim(),
          ]),
        );
      for (const [needed, have] of counts) expect(have!.split(' ')[0]).toBe(needed);

      // The exports, then the CLI on them.
      const ref = await saveDownload(p, () => p.locator('tr[data-run="bm25"] [data-testid="export-answers"]').click());
      const cand = await saveDownload(p, () => p.locator('tr[data-run="bm25-rm3"] [data-testid="export-answers"]').click());
      const table = JSON.parse((await saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<string, unknown>;
      const runs: string[] = [];
      for (const name of ['bm25', 'bm25-rm3']) {
        await p.getByTestId('export-run-select').selectOption(name);
        runs.push((await saveDownload(p, () => p.getByTestId('export-run').click())).path);
      }
      /** `fliplab answers flips --json` on the lab's exported runs and answers, with the given gold. */
      const flipsFromCli = async (gold: string) => {
        const r = await cli(
          ['answers', 'flips', join(qa.dir, 'qrels', 'test.tsv'), '--reference', runs[0]!, '--candidate', runs[1]!]
            .concat(['--name', 'bm25', '--name', 'bm25-rm3', '--gold', gold])
            .concat(['--reference-answers', ref.path, '--candidate-answers', cand.path, '--at', '2', '--json']),
        );
        expect(r.code).toBe(0);
        return JSON.parse(r.stdout) as Record<string, unknown>;
      };
      const fromCli = await flipsFromCli(join(qa.dir, 'queries.jsonl'));
      // The Export panel offers the same table, and every run's answers in one file (each line names its run).
      expect(JSON.parse((await saveDownload(p, () => p.getByTestId('export-answers-table').click())).text)).toEqual(table);
      const all = (await saveDownload(p, () => p.getByTestId('export-all-answers').click())).text.trim().split('\n');
      expect(all).toHaveLength(ref.text.trim().split('\n').length + cand.text.trim().split('\n').length);
      // Warnings are each tool's own (the CLI also reports parsing notes); every number and set is the same.
      expect({ ...table, warnings: [] }).toEqual({ ...fromCli, warnings: [] });
      expect((table.candidates as { flips: number }[])[0]!.flips).toBeGreaterThan(0);

      // Gold from a file, made so that some reference answers are right and the candidate's are not: the
      // regressions are then non-zero, and the lab and the CLI must still agree on every count.
      const predictionsOf = (text: string) =>
        new Map(
          text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { query_id: string; prediction: string })
            .map((r) => [r.query_id, answerTokens(r.prediction)]),
        );
      const refAnswers = predictionsOf(ref.text);
      const candAnswers = predictionsOf(cand.text);
      const goldRows = [...refAnswers].map(([q, tokens]) => {
        const own = tokens.find((t) => !(candAnswers.get(q) ?? []).includes(t));
        return { query_id: q, answers: [own ?? 'zzz-never'] };
      });
      const goldFile = join(work, 'qa-gold.jsonl');
      await writeFile(goldFile, goldRows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      await p.getByTestId('gold-file').setInputFiles(goldFile);
      await expect.poll(() => p.getByTestId('gold-status').textContent(), { timeout: 10_000 }).toMatch(/from qa-gold\.jsonl/);
      const regressed = JSON.parse((await saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<
        string,
        unknown
      > & { candidates: { regressions_among_flips: { count: number } }[] };
      const fromGoldFile = await flipsFromCli(goldFile);
      expect({ ...regressed, warnings: [] }).toEqual({ ...fromGoldFile, warnings: [] });
      expect(regressed.candidates[0]!.regressions_among_flips.count).toBeGreaterThan(0);

      // The explorer shows both answers under both rankings, scored.
      const flipQuery = (table.candidates as { flip_queries: string[] }[])[0]!.flip_queries[0]!;
      await p.evaluate((q) => (location.hash = `${location.hash}&q=${encodeURIComponent(q)}`), flipQuery);
      await expect
        .poll(() => p.locator('section[aria-labelledby="explorer-heading"] [data-testid="answer"]').count(), { timeout: 30_000 })
        .toBe(2);
      expect(await p.locator('[data-testid="answer"]').first().textContent()).toMatch(
        /Answer from this run.s top 2: .*(✓ correct|✗ incorrect)/s,
      );

      // A reload keeps the answers (asking again finds every one in the cache) and the gold file (kept for the collection).
      await p.reload();
      await expect.poll(() => row(p, 'bm25-rm3').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => p.getByTestId('gold-status').textContent(), { timeout: 30_000 }).toMatch(/from qa-gold\.jsonl, kept/);
      await chooseTinyReader(p);
      await expect.poll(() => p.getByTestId('reader-run').isEnabled(), { timeout: 30_000 }).toBe(true);
      await p.getByTestId('reader-run').click();
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 60_000 }).toBe(1);
      const again = JSON.parse((await saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<string, unknown>;
      expect(again).toEqual(regressed);

      // The same model as a folder picked from disk: nothing fetched for it, the same answers (a new cache
      // key, the folder's fingerprint, so they are generated again, not read back).
      const before = server.requests.length;
      await p.getByTestId('reader-preset').selectOption('folder');
      await p.getByTestId('reader-dtype').selectOption('fp32');
      await p.getByTestId('reader-folder').setInputFiles(join(DEFAULT_MODELS_DIR, LAYOUT_REPOS.reader));
      await expect
        .poll(() => p.getByTestId('reader-folder-status').textContent(), { timeout: 30_000 })
        .toMatch(/local\/tiny-gpt2 \(fp32\)/);
      await p.getByTestId('reader-run').click();
      await expect
        .poll(() => p.locator('tr[data-run="bm25-rm3"] [data-testid="answer-count"]').textContent(), { timeout: 60_000 })
        .toMatch(/\(local\/tiny-gpt2 \(fp32/);
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 60_000 }).toBe(1);
      expect(await panel.getByTestId('answers-error').count()).toBe(0);
      const fromFolder = await saveDownload(p, () => p.locator('tr[data-run="bm25"] [data-testid="export-answers"]').click());
      const byQuery = (text: string) =>
        Object.fromEntries(
          text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { query_id: string; prediction: string })
            .map((r) => [r.query_id, r.prediction]),
        );
      // These answers are the folder reader's own (its name in every line), and they equal the hub reader's.
      for (const line of fromFolder.text.trim().split('\n'))
        expect((JSON.parse(line) as { source: string }).source).toMatch(/^local\/tiny-gpt2 \(fp32/);
      expect(byQuery(fromFolder.text)).toEqual(byQuery(ref.text));
      expect(server.requests.slice(before).filter((r) => r.includes('tiny-gpt2'))).toEqual([]);

      // Bad input: a malformed predictions file names file and line, and loses nothing.
      const bad = join(work, 'bad-predictions.jsonl');
      await writeFile(bad, '{"query_id": "q1", "prediction": "red"}\nnot json\n');
      await p.locator('tr[data-run="bm25"] [data-testid="predictions-file"]').setInputFiles(bad);
      await expect
        .poll(() => panel.getByTestId('answers-error').textContent(), { timeout: 10_000 })
        .toMatch(/bad-predictions\.jsonl.*line 2/);
      const still = JSON.parse((await saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<string, unknown>;
      expect(still).toEqual(regressed);
    } finally {
      await c.close();
    }
  }, 240_000);
});
