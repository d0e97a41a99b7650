/**
 * Vector packs with any recipe, in Debian's chromium with the real IndexedDB (production build): a pack that
 * `fliplab encode --pooling mean` writes with no prefixes (no preset has that recipe) imports in the lab as a
 * recipe run, its recipe on the row and in the report's recipes, its TREC run equal to `fliplab search
 * --vectors` on the same pack, with no model request, and back after a reload. A pack from an "embedding API"
 * (a model id no host has, every query present) ranks with no model request either; without its queries it is
 * refused, naming how many are missing, and a repo-like API name that does not load says the same on its row.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { passageText } from '../../src/core/io/beir.ts';
import { readPack, writePack, zipPack, type PackPart } from '../../src/encoders/pack.ts';
import { textKeys } from '../../src/encoders/identity.ts';
import type { EncoderConfig } from '../../src/encoders/presets.ts';
import { recipeRunId } from '../../src/lab/retriever-ids.ts';
import { loadBeirFolder } from '../../src/node/files.ts';
import { readPackPath } from '../../src/node/vectors-file.ts';
import type { HubServer } from '../support/hub-server.ts';
import { cli, e2eSetup, type E2e } from './harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TINY = join(ROOT, 'examples/tiny-beir');
const MODEL = 'fliplab/tiny-bert';
const MAX_TOKENS = 24;

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;

beforeAll(async () => {
  await makeModelFixtures();
  e2e = await e2eSetup({
    name: 'pack-recipes',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      // The tiny models are served too: a lab that asked for one would get it, so only the request log tells.
      return { modelsRoot: DEFAULT_MODELS_DIR };
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const row = (p: Page, id: string) => p.locator(`[data-testid="retriever-${id}"]`);

/** Every request the page and its workers made for model files (any model, any host). */
const isModelRequest = (url: string) => /\/resolve\/|\.onnx|tokenizer|config\.json|tiny-bert|embedder|text-embedding/.test(url);

async function openLab(): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const host = server.url.replace(/\/$/, '');
  await context.addInitScript((h) => {
    if (!localStorage.getItem('fliplab.settings'))
      localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' }));
  }, host);
  const page = await context.newPage();
  await page.goto(server.url);
  await page.getByTestId('pick-folder').setInputFiles(TINY);
  await expect.poll(() => row(page, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
  return { context, page, requests };
}

async function saveDownload(p: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = (await Promise.all([p.waitForEvent('download'), click()])) as [Download, void];
  const path = join(work, 'downloads', download.suggestedFilename().replace(/[/\\]/g, '_'));
  await download.saveAs(path);
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

/** Import a pack and wait until the status has settled on it: its error (naming the file) or `imported <id>`. */
async function importPack(p: Page, file: string, id: string): Promise<{ state: string | null; text: string }> {
  const status = p.getByTestId('pack-status');
  const name = file.replace(/^.*\//, '');
  await p.getByTestId('pick-pack').setInputFiles(file);
  const settled = async () => {
    const [state, text] = [await status.getAttribute('data-state'), (await status.textContent()) ?? ''];
    return (state === 'error' && text.includes(name)) || (state === 'done' && text.includes(`imported ${id}:`));
  };
  await expect.poll(settled, { timeout: 60_000 }).toBe(true);
  return { state: await status.getAttribute('data-state'), text: (await status.textContent()) ?? '' };
}

/** The lab's TREC run of `id`, as the export panel downloads it. */
async function exportedRun(p: Page, id: string): Promise<string> {
  await p.getByTestId('export-run-select').selectOption(id);
  return (await saveDownload(p, () => p.getByTestId('export-run').click())).text;
}

/**
 * Two TREC runs are the same ranking: every line's query, document, rank and tag equal, scores equal up to
 * float32 summation order (the CLI multiplies with ONNX Runtime, the lab in JS).
 */
function expectSameRun(lab: string, cliRun: string): void {
  const parse = (t: string) =>
    t
      .trimEnd()
      .split('\n')
      .map((l) => l.split(' '));
  const a = parse(lab);
  const b = parse(cliRun);
  expect(a.length).toBeGreaterThan(0);
  expect(a.map((l) => [l[0], l[2], l[3], l[5]])).toEqual(b.map((l) => [l[0], l[2], l[3], l[5]]));
  a.forEach((l, i) => expect(Math.abs(Number(l[4]) - Number(b[i]![4])), lab.split('\n')[i]).toBeLessThan(1e-6));
}

describe('vector packs with any recipe', () => {
  it('imports a mean-pooled pack with no prefixes from `fliplab encode`: the run is `fliplab search --vectors`, no model, back after a reload', async () => {
    await mkdir(join(work, 'downloads'), { recursive: true });
    const packZip = join(work, 'tiny-mean.zip');
    const enc = await cli([
      'encode',
      TINY,
      '--model',
      MODEL,
      '--pooling',
      'mean',
      '--max-length',
      String(MAX_TOKENS),
      '--model-dir',
      DEFAULT_MODELS_DIR,
      '--offline',
      '--out',
      packZip,
    ]);
    expect(enc.code, enc.stderr).toBe(0);
    const pack = await readPack(readPackPath(packZip), packZip);
    expect(pack.manifest.encoder).toMatchObject({ model: MODEL, pooling: 'mean', queryPrefix: '', passagePrefix: '' });
    const id = recipeRunId(pack.manifest.encoder);
    const search = await cli(['search', TINY, '--vectors', packZip, '--tag', id]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stderr).toMatch(/no model loaded/);

    const { context, page: p, requests } = await openLab();
    try {
      const [before, served] = [requests.length, server.requests.length];
      // What the browser asked for (page and workers) and what reached the server.
      const modelRequests = () => [...requests.slice(before), ...server.requests.slice(served)].filter(isModelRequest);
      const imported = await importPack(p, packZip, id);
      expect(imported.state, imported.text).toBe('done');
      expect(imported.text).toMatch(/: 12 of 12 passages and \d+ of \d+ queries .*no model needed/);
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      // The recipe as the pack gave it, on the row.
      const recipe = (await p.getByTestId(`recipe-${id}`).textContent()) ?? '';
      expect(recipe).toContain(MODEL);
      expect(recipe).toMatch(/mean, L2-normalized/);
      expect(recipe).toMatch(/query prefix\s*\(none\)/);
      expect(recipe).toMatch(/max tokens\s*24/);

      expectSameRun(await exportedRun(p, id), search.stdout);

      // Kept with the run: the report's recipes.
      const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toContain(id);
      const report = JSON.parse((await saveDownload(p, () => p.getByTestId('export-report-json').click())).text) as {
        recipes: Record<string, Record<string, string>>;
      };
      expect(report.recipes[id]).toMatchObject({
        model: MODEL,
        pooling: 'mean, L2-normalized',
        'query prefix': '(none)',
        'passage prefix': '(none)',
      });
      expect(modelRequests()).toEqual([]);

      // A reload brings the run back from IndexedDB by its id alone: no model, no encoding, the same run.
      await p.reload();
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      expectSameRun(await exportedRun(p, id), search.stdout);
      expect(modelRequests()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 240_000);

  it('ranks a pack from an embedding API with no model request; without its queries it is refused or says what the pack must carry', async () => {
    await mkdir(join(work, 'downloads'), { recursive: true });
    const col = await loadBeirFolder(TINY, 'test');
    const passageTexts = col.corpus.ids.map((_, i) => passageText(col.corpus, i));
    const vec = (seed: number) => {
      const v = Float32Array.from({ length: 6 }, (_, i) => Math.sin(seed * 1.7 + i * 0.9) + 0.2);
      const norm = Math.hypot(...v);
      return { dense: v.map((x) => x / norm), tokens: 0 };
    };
    const part = async (ids: readonly string[], texts: readonly string[], seed: number): Promise<PackPart> => ({
      ids,
      textKeys: await textKeys(texts),
      vectors: ids.map((_, i) => vec(seed + i)),
    });
    const api = (model: string): EncoderConfig => ({
      id: model,
      label: model,
      kind: 'dense',
      model,
      revision: '2026-11-01',
      dtype: 'fp32',
      pooling: 'mean',
      normalize: true,
      queryPrefix: '',
      passagePrefix: '',
      maxLength: 8192,
      sparseTopK: null,
    });
    const write = async (name: string, config: EncoderConfig, withQueries: boolean) => {
      const files = await writePack({
        config,
        device: 'api',
        tool: 'an embedding API',
        passages: await part(col.corpus.ids, passageTexts, 1),
        queries: withQueries ? await part(col.queries.ids, col.queries.texts, 100) : null,
      });
      const path = join(work, name);
      await writeFile(path, zipPack(files));
      return path;
    };
    const full = await write('api-full.zip', api('my-company-embedder-v4'), true);
    const noQueries = await write('api-no-queries.zip', api('my-company-embedder-v4'), false);
    const repoLike = await write('api-repo-like.zip', api('openai/text-embedding-3-small'), false);
    const id = recipeRunId(api('my-company-embedder-v4'));
    const search = await cli(['search', TINY, '--vectors', full, '--tag', id]);
    expect(search.code, search.stderr).toBe(0);

    const { context, page: p, requests } = await openLab();
    try {
      const [before, served] = [requests.length, server.requests.length];
      // What the browser asked for (page and workers) and what reached the server.
      const modelRequests = () => [...requests.slice(before), ...server.requests.slice(served)].filter(isModelRequest);

      const refused = await importPack(p, noQueries, id);
      expect(refused.state).toBe('error');
      expect(refused.text).toMatch(
        /api-no-queries\.zip\/manifest\.json: this pack has no vectors for \d+ of \d+ queries, and its model "my-company-embedder-v4" is not one the lab can load.*must carry its query vectors/,
      );
      expect(await row(p, id).count()).toBe(0);

      const imported = await importPack(p, full, id);
      expect(imported.state, imported.text).toBe('done');
      expect(imported.text).toMatch(/no model needed/);
      await expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(await row(p, id).getAttribute('data-device')).toBe('cache');
      expectSameRun(await exportedRun(p, id), search.stdout);
      expect(modelRequests()).toEqual([]);

      // A name shaped like a repo is tried; when it does not load, the row says what the pack must carry.
      const repoId = recipeRunId(api('openai/text-embedding-3-small'));
      const tried = await importPack(p, repoLike, repoId);
      expect(tried.state, tried.text).toBe('done');
      await expect.poll(() => row(p, repoId).getAttribute('data-status'), { timeout: 60_000 }).toBe('error');
      await expect
        .poll(() => row(p, repoId).textContent(), { timeout: 10_000 })
        .toMatch(
          /this pack has no vectors for \d+ of \d+ queries, and its model did not load, so the pack must carry them: Could not load openai\/text-embedding-3-small/,
        );
      // That load was seen: the request log would have caught one for the packs above.
      expect(modelRequests().some((u) => u.includes('openai/text-embedding-3-small'))).toBe(true);
    } finally {
      await context.close();
    }
  }, 240_000);
});
