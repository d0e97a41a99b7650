/**
 * SciFact in the lab, end to end (lab-session.ts: the production build, the local hub server, Debian chromium):
 * loaded from the catalog (hub layout) and ranked with BM25; encoded on WASM by a tiny fixture encoder, analysed
 * live while partial and resumed after a reload; the transition tables against `fliplab flips --json` on the
 * lab's exported runs; the exports (per-query transitions, trec_eval text, reports, plot images, and the run of
 * BM25 (Anserini), byte for byte `fliplab bm25 --preset anserini`'s); the explorer and a link to its view; a
 * malformed file's error in place; the lab offline after a first visit; the storage table (stored vectors and
 * model files, deleting model files).
 *
 * Every test stands alone: it passes run by itself (`-t`) and in any order. The one expensive setup, SciFact
 * encoded by the fixture encoder on WASM (half a minute on 2 cores), lives in one shared browser context, as a
 * user's browser keeps IndexedDB, Cache Storage and its service worker between visits: `sciFactAnalysis()` opens
 * a new page there at the view link of BM25 against the encoder, and builds what the context lacks (SciFact from
 * the catalog, the encoder's vectors: the link restores the encoder, which encodes what is not cached). So a test
 * run alone builds what it needs, and a test run after another reuses the stored data without depending on it;
 * no test reads a page another test opened. The encode test (a fresh encode, a reload mid-encoding, the resume)
 * needs a browser where nothing of the model is cached: it takes the shared context while no test has opened it
 * yet, leaving its vectors for the tests after it (one encode of SciFact in a run of the e2e suite: the tests
 * that read the encoded analysis are all in this file), else a context of its own.
 *
 * Every request of every test to the default hosts stays on the local server (checked after each test).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { HubServer } from '../support/hub-server.ts';
import { cli, portableReport } from './harness.ts';
import { type Lab, useLabSession, loadSciFact, MAX_TOKENS, MODEL, openAddRetriever, row, SCIFACT } from './lab-session.ts';

/** The fixture encoder as the lab names it. */
const ENCODER_ID = `bge-small:${MODEL}-max${MAX_TOKENS}`;

let lab: Lab;
let work: string;
let server: HubServer;
let browser: Browser;
/** The browser context the tests of the encoded SciFact analysis share (see the header); made on first use. */
let sciFact: BrowserContext | undefined;

useLabSession('lab-scifact', (l) => {
  lab = l;
  ({ work, server, browser } = l);
});

// Before the session's browser closes (after-hooks run last registered first).
afterAll(async () => {
  await sciFact?.close();
});

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

/** The shared SciFact context, made on first use. */
async function sciFactContext(): Promise<BrowserContext> {
  sciFact ??= await lab.labContext(browser);
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

describe('the lab (wasm)', () => {
  it('loads SciFact from the catalog (hub layout) and ranks it with BM25', async () => {
    // A new visitor: nothing stored, so SciFact is downloaded.
    const { context: c, page } = await lab.openLab(browser);
    try {
      await page.getByTestId('catalog-scifact').click();
      await expect
        .poll(() => page.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(/5,183 passages.*1,109 queries.*300 judged/s);
      await expect.poll(() => row(page, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(lab.requested.filter((u) => u.includes('/datasets/')).length).toBeGreaterThan(0);
      // Downloaded once: the stored-collections table lists it.
      await expect.poll(() => page.getByTestId('stored-collections').textContent()).toMatch(/SciFact/);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('encodes with a fixture model on WASM, analyses the partial run live, and resumes after a reload', async () => {
    // A fresh encode: the shared SciFact context while no test has opened it (nothing is cached there yet, and
    // what this test encodes serves the tests after it), else a context of its own.
    const shared = sciFact === undefined;
    const c = shared ? await sciFactContext() : await lab.labContext(browser);
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
      await lab.shot(page, 'section[aria-labelledby="retrievers-heading"]', 'retrievers.png');
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
      const report = await lab.saveDownload(page, () => page.getByTestId('export-report-json').click());
      const appReport = JSON.parse(report.text) as {
        depths: { k: number; candidates: { name: string; broken: number; fixed: number }[] }[];
      };
      expect(appReport.depths.map((d) => d.k)).toEqual([1, 5, 10, 20, 50]);

      await page.getByTestId('export-run-select').selectOption('bm25');
      const bm25 = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
      await page.getByTestId('export-run-select').selectOption(ENCODER_ID);
      const enc = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
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
        '--significance',
      ]);
      expect(out.stderr).not.toMatch(/error/i);
      expect(out.code).toBe(0);
      // Named as the app names them (--name), the CLI's JSON is the app's download, byte for byte, but for the
      // recipes: the app knows how its runs were made (BM25's k1 and b, the encoder's model, …), the CLI knows files.
      const { recipes: appRecipes, ...appRest } = JSON.parse(report.text) as { recipes: Record<string, Record<string, string>> };
      const { recipes: cliRecipes, ...cliRest } = JSON.parse(out.stdout) as { recipes: Record<string, Record<string, string>> };
      expect(`${JSON.stringify(portableReport(appRest), null, 2)}\n`).toBe(`${JSON.stringify(portableReport(cliRest), null, 2)}\n`);
      expect(out.stdout.slice(0, out.stdout.indexOf('"recipes"'))).toBe(report.text.slice(0, report.text.indexOf('"recipes"')));
      expect(appRecipes['bm25']).toMatchObject({ k1: '1.5', b: '0.75' });
      expect(appRecipes[ENCODER_ID]).toMatchObject({
        model: MODEL,
        'max tokens': String(MAX_TOKENS),
        'passages encoded': '5,183 of 5,183',
      });
      expect(cliRecipes['bm25']).toMatchObject({ retriever: 'imported TREC run', file: bm25.path, queries: '300' });

      // The paired tests of the measures are in both (the whole JSON above), and the table on the page shows the
      // CLI's numbers: one row per measure for the one candidate, the nDCG@10 row's difference and adjusted p.
      const tests = (
        cliRest as unknown as { significance: { rows: { measure: string; mean_diff: number; n: number; p_t_adjusted: number }[] } }
      ).significance;
      expect(tests.rows).toHaveLength(6);
      const table = page.getByTestId('significance-table');
      expect(await table.locator('tbody tr[data-candidate]').count()).toBe(6);
      const ndcg = tests.rows.find((r) => r.measure === 'ndcg_cut_10')!;
      const ndcgRow = await table.locator('tr[data-measure="ndcg_cut_10"]').textContent();
      expect(ndcgRow).toContain(`${ndcg.mean_diff >= 0 ? '+' : '−'}${Math.abs(ndcg.mean_diff).toFixed(4)} [`);
      expect(ndcgRow).toContain(String(ndcg.n));

      // The 2×2 matrix on the page shows the same counts at k = 10.
      const at10 = appReport.depths.find((d) => d.k === 10)!.candidates[0]!;
      const matrix = await page.locator('section[aria-labelledby="analysis-heading"] table').first().textContent();
      expect(matrix).toContain(String(at10.broken));
      await lab.shot(page, 'section[aria-labelledby="analysis-heading"]', 'fixture-analysis.png', false);
    } finally {
      await page.close();
    }
  }, 480_000);

  it('exports per-query transitions, trec_eval text and reports that parse back', async () => {
    const page = await sciFactAnalysis();
    try {
      const csv = await lab.saveDownload(page, () => page.getByTestId('export-per-query-csv').click());
      const rows = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true }).data;
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r['state@10']))).toEqual(
        new Set(rows.map((r) => r['state@10']).filter((s) => ['preserved', 'broken', 'fixed', 'unchanged'].includes(s!))),
      );
      const json = JSON.parse((await lab.saveDownload(page, () => page.getByTestId('export-per-query-json').click())).text) as {
        per_query: unknown[];
      };
      expect(json.per_query).toHaveLength(300);

      await page.getByTestId('export-run-select').selectOption('bm25');
      const evalText = await lab.saveDownload(page, () => page.getByTestId('export-trec-eval').click());
      const bm25Run = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
      const cliEval = await cli(['eval', join(SCIFACT, 'qrels/test.tsv'), bm25Run.path]);
      expect(evalText.text).toBe(cliEval.stdout);

      const html = await lab.saveDownload(page, () => page.getByTestId('export-html').click());
      expect(html.text).toMatch(/^<!doctype html>/i);
      expect(html.text).toContain('<svg');
      expect(html.text).not.toMatch(/<script/i);
      const md = await lab.saveDownload(page, () => page.getByTestId('export-markdown').click());
      expect(md.text).toMatch(/\| *k *\|/);

      // Plot images: SVG as text, PNG drawn through a canvas in the real browser.
      const svg = await lab.saveDownload(page, () => page.getByRole('button', { name: 'SVG', exact: true }).click());
      expect(svg.text).toMatch(/<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      const [pngDownload] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'PNG', exact: true }).click(),
      ]);
      const png = await readFile((await pngDownload.path())!);
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(png.byteLength).toBeGreaterThan(10_000);

      // BM25 (Anserini), added on this page from the instant candidates: its run file is, byte for byte, the one
      // `fliplab bm25 --preset anserini` writes for the same collection (last: it becomes a candidate of the view).
      // The CLI ranks in this process while the browser ranks in its own.
      const cliRunning = cli(['bm25', SCIFACT, '--preset', 'anserini', '--depth', '1000']);
      await openAddRetriever(page);
      await page.getByTestId('add-anserini').click();
      await expect.poll(() => row(page, 'bm25-anserini').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      expect(await row(page, 'bm25-anserini').textContent()).toContain('Lucene BM25 as Anserini runs it: k1 = 0.9, b = 0.4');
      await page.getByTestId('export-run-select').selectOption('bm25-anserini');
      const anseriniRun = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
      const cliRun = await cliRunning;
      expect(cliRun.code, cliRun.stderr).toBe(0);
      const [appLines, cliLines] = [anseriniRun.text.split('\n'), cliRun.stdout.split('\n')];
      expect(new Set(cliLines.slice(0, -1).map((l) => l.split(' ')[0])).size).toBe(300);
      expect(cliLines[0]).toMatch(/^\S+ Q0 \S+ 1 \d+(\.\d+)? bm25-anserini$/);
      // Compared as a whole (a multi-megabyte diff helps no one): the first line that differs, if any.
      const differs = appLines.findIndex((l, i) => l !== cliLines[i]);
      expect(differs < 0 ? null : { line: differs + 1, app: appLines[differs], cli: cliLines[differs] }).toBeNull();
      expect(anseriniRun.text === cliRun.stdout).toBe(true);
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
      await lab.shot(page, 'section[aria-labelledby="explorer-heading"]', 'fixture-explorer.png', false);

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
    const { context: c, page } = await lab.openLab(browser);
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
