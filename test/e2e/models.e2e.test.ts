/**
 * Models in the lab, end to end (lab-session.ts: the production build, the local hub server with the model
 * fixtures in the hub's layouts, Debian chromium): a vector pack made by `fliplab encode` used with no model;
 * model downloads (sizes before bytes, both layouts, the SPLADE presets, cancel and resume); the user's own
 * files encoded on WebGPU (SwiftShader) and a model folder picked from disk; a model folder remembered with the
 * File System Access API; calibration (a device projected twice as fast is offered, and switching keeps what was
 * encoded).
 *
 * Every test stands alone, in its own browser context. Every request of every test to the default hosts stays on
 * the local server (checked after each test).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR } from '../../scripts/models/make-fixtures.ts';
import { formatSize } from '../../src/core/bytes.ts';
import { formatRun } from '../../src/core/io/trec.ts';
import { vectorRun } from '../../src/core/retrieve/vector-run.ts';
import type { QueryId } from '../../src/core/types.ts';
import { readPack, unzipPack, zipPack } from '../../src/encoders/pack.ts';
import { PRESETS } from '../../src/encoders/presets.ts';
import { loadBeirFolder } from '../../src/node/files.ts';
import { readPackPath } from '../../src/node/vectors-file.ts';
import { LAYOUT_REPOS } from '../support/hub-layouts.ts';
import type { HubServer } from '../support/hub-server.ts';
import { launchChromium } from './browser.ts';
import { cli, portableReport } from './harness.ts';
import { demoReady, type Lab, useLabSession, MAX_TOKENS, MODEL, openAddRetriever, row, SCIFACT } from './lab-session.ts';

let lab: Lab;
let work: string;
let server: HubServer;
let browser: Browser;

useLabSession('models', (l) => {
  lab = l;
  ({ work, server, browser } = l);
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

    const { context: c, page: p } = await lab.openLab(browser);
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
      const labRun = await lab.saveDownload(p, () => p.getByTestId('export-run').click());
      expect(labRun.text).toBe(formatRun(nodeRun, id));
      await p.getByTestId('export-run-select').selectOption('bm25');
      const bm25 = await lab.saveDownload(p, () => p.getByTestId('export-run').click());
      const analysis = p.locator('section[aria-labelledby="analysis-heading"]');
      await expect.poll(() => analysis.getAttribute('data-runs'), { timeout: 60_000 }).toContain(id);
      const report = await lab.saveDownload(p, () => p.getByTestId('export-report-json').click());
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
        '--significance',
      ]);
      expect(flips.code).toBe(0);
      const withoutRecipes = (t: string) => {
        const { recipes: _, ...rest } = JSON.parse(t) as { recipes: unknown };
        return portableReport(rest);
      };
      expect(withoutRecipes(report.text)).toEqual(withoutRecipes(flips.stdout));

      // The imported encoding exports as a pack again, with the same vectors.
      const exported = await lab.saveDownload(p, () => p.getByTestId(`export-pack-${id}`).click());
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
    const { context: c, page: p } = await lab.openLab(browser, { confirmAboveMB: 0 });
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
      const { context: c, page: p } = await lab.openLab(gpuBrowser);
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
    const { context: c, page: p } = await lab.openLab(browser);
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
    // Long enough that the job is projected past the calibration's 15 s once its shaders are compiled: the
    // agreement check, run first on this path, compiles them, so the job's own first batches are no longer slow.
    const { dir: own } = await scifactSubset('own-600', 600);

    const gpuBrowser = await launchChromium({ webgpu: true });
    try {
      const { context: c, page: p } = await lab.openLab(gpuBrowser, { device: 'webgpu' });
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
