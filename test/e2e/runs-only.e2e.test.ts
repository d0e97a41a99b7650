/**
 * Bring your own results: TREC-COVID's qrels, Anserini's BM25 run and a second run derived from it, dropped
 * on the lab with no corpus and no queries file (the production build in Debian's chromium). The collection
 * opens from the runs, the first run is the reference and the second the candidate, the headline is on the
 * first screen, and the flip report the lab exports is `fliplab flips --json` on the same files, byte for byte
 * but for the recipes. A reload brings it back; bad files are refused by name and line, keeping what is open.
 * Bad runs dropped with the collection are reported by file and line in the collection panel and left out,
 * the good ones open, and every run names its own file in the retriever list and the reports.
 */
import { readFileSync, statSync } from 'node:fs';
import { LARGE_FILE_BYTES } from '../../src/lab/data/bytes.ts';
import { gzipSync } from 'node:zlib';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubServer } from '../support/hub-server.ts';
import { covidRuns, docsByQuery, holeyRun } from '../support/runs.ts';
import { cli, portableReport, saveDownload as saveTo, e2eSetup, type E2e } from './harness.ts';

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
let files: { qrels: string; bm25: string; other: string; bad: string; corpus: string };

/**
 * A second retriever from the BM25 run: within each query, every third document moves up two places and the
 * documents at ranks 6–8 leave for three the run never ranked; every fourth query's whole top 10 is replaced; and
 * it goes 5,000 deep.
 */
function derivedRun(text: string): string {
  const byQuery = docsByQuery(text);
  const out: string[] = [];
  for (const [q, docs] of byQuery) {
    const order = [...docs];
    for (let i = 2; i < order.length; i += 3) [order[i - 2], order[i]] = [order[i]!, order[i - 2]!];
    for (let i = 5; i < 8 && i < order.length; i++) order[i] = `new-${q}-${i}`;
    // Every fourth query loses its whole top 10 (the retriever found other passages): broken queries.
    if (Number(q) % 4 === 0) for (let i = 0; i < 10 && i < order.length; i++) order[i] = `new-${q}-${i}`;
    // 5,000 deep (4,000 more passages a query): the file is over 8 MiB, so the lab streams it from its Blob.
    for (let i = 0; i < 4000; i++) order.push(`deep-${q}-${i}`);
    order.forEach((d, i) => out.push(`${q} Q0 ${d} ${i + 1} ${(1000 - i / 10).toFixed(3)} derived`));
  }
  return `${out.join('\n')}\n`;
}

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'runs-only',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      files = { ...(await covidRuns(work, 'derived.run', derivedRun)), bad: join(work, 'bad.run'), corpus: join(work, 'corpus.jsonl.gz') };
      expect(statSync(files.other).size).toBeGreaterThan(LARGE_FILE_BYTES);
      // A run whose line 40,000 has five fields.
      const lines = readFileSync(files.other, 'utf8').split('\n');
      lines[39_999] = lines[39_999]!.split(' ').slice(0, 5).join(' ');
      await writeFile(files.bad, lines.join('\n'));
      // A BEIR corpus.jsonl.gz holding text for the first 100 passages of each query of the BM25 run, and 20,000 more.
      const ranked = new Set<string>();
      const perQuery = new Map<string, number>();
      for (const line of readFileSync(files.bm25, 'utf8').trim().split('\n')) {
        const [q, , d] = line.split(/\s+/);
        const n = perQuery.get(q!) ?? 0;
        perQuery.set(q!, n + 1);
        if (n < 100) ranked.add(d!);
      }
      const corpus = [...ranked, ...Array.from({ length: 20_000 }, (_, i) => `other-${i}`)].map(
        (id) => `${JSON.stringify({ _id: id, title: `Title of ${id}`, text: `The text of passage ${id}.` })}\n`,
      );
      await writeFile(files.corpus, gzipSync(corpus.join('')));
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const saveDownload = async (p: Page, click: () => Promise<void>): Promise<string> => (await saveTo(p, work, click)).text;

/** The files the one stored collection keeps (IndexedDB, read in the page), with their sizes. */
const storedFiles = (p: Page): Promise<{ path: string; bytes: number }[]> =>
  p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('fliplab-collections');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = await new Promise<{ files: { path: string; bytes: Uint8Array; blob?: Blob }[] }[]>((resolve) => {
      const r = db.transaction('files').objectStore('files').getAll();
      r.onsuccess = () => resolve(r.result as { files: { path: string; bytes: Uint8Array; blob?: Blob }[] }[]);
    });
    db.close();
    return (all[0]?.files ?? []).map((f) => ({ path: f.path, bytes: f.blob?.size ?? f.bytes.byteLength }));
  });

const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');

describe('runs without a corpus', () => {
  it('TREC-COVID qrels + two runs open with no corpus; the lab’s flip report is fliplab flips on the same files', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    const p = await context.newPage();
    try {
      await p.goto(server.url);
      await p.getByTestId('pick-files').setInputFiles([files.qrels, files.bm25, files.other]);
      await expect
        .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(/passages ranked by the runs \(ids only, no corpus\).*50 queries.*50 judged/s);
      // The first run is the reference, the second the candidate: the analysis opens by itself.
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe('Anserini,derived');
      const headline = p.getByTestId('headline');
      expect(await headline.textContent()).toMatch(/Replacing Anserini by derived at k = 10 fixes \d+ and breaks \d+ of 50 queries/);
      const box = (await headline.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(800);
      // No text: the lab says so instead of offering retrievers that need it.
      expect(await p.getByTestId('no-text').isVisible()).toBe(false); // folded with the add forms
      await p.getByTestId('add-retriever').locator('summary').click();
      expect(await p.getByTestId('no-text').textContent()).toMatch(/no passage text to rank/);
      expect(await p.getByTestId('add-bm25').count()).toBe(0);

      const report = await saveDownload(p, () => p.getByTestId('export-report-json').click());
      const out = await cli([
        'flips',
        files.qrels,
        '--reference',
        files.bm25,
        '--candidate',
        files.other,
        '--name',
        'Anserini',
        '--name',
        'derived',
        '--depths',
        '1,5,10,20,50',
        '--json',
        '--per-query',
        '--significance',
      ]);
      expect(out.code).toBe(0);
      const { recipes: _a, ...app } = JSON.parse(report) as Record<string, unknown>;
      const { recipes: _c, ...cliReport } = JSON.parse(out.stdout) as Record<string, unknown>;
      expect(portableReport(app)).toEqual(portableReport(cliReport));
      expect((app['depths'] as { candidates: { broken: number; fixed: number }[] }[])[2]!.candidates[0]!.broken).toBeGreaterThan(0);
      // The per-query difference plot: one bar per query both runs answer, the broken ones at k = 10 in red.
      const plot = p.getByTestId('difference-plot').locator('[data-bars]');
      await expect.poll(() => plot.getAttribute('data-bars'), { timeout: 30_000 }).toBe('50');
      const red = await plot.locator('rect[fill="#c62828"]').count();
      expect(red).toBe((app['depths'] as { k: number; candidates: { broken: number }[] }[]).find((d) => d.k === 10)!.candidates[0]!.broken);

      // The explorer works on ids: a query's two rankings, and a passage says it has no text.
      await p.getByTestId('next-broken').click();
      const detail = p.locator('.detail-pane');
      await expect.poll(() => detail.locator('.list').count(), { timeout: 10_000 }).toBe(2);
      await detail
        .getByRole('button', { name: /^Show passage / })
        .first()
        .click();
      await expect.poll(() => detail.getByTestId('no-passage-text').count(), { timeout: 10_000 }).toBe(1);

      // Stored compactly: both runs (over 1 MiB each) as the lab keeps them, the qrels as they are.
      await expect
        .poll(() => storedFiles(p), { timeout: 30_000 })
        .toContainEqual(expect.objectContaining({ path: 'derived.run.fliplab-run.jsonl.gz' }));
      const stored = await storedFiles(p);
      expect(stored.map((f) => f.path).sort()).toEqual([
        'derived.run.fliplab-run.jsonl.gz',
        'qrels.test.txt',
        'run.bm25-flat.txt.fliplab-run.jsonl.gz',
      ]);
      expect(stored.find((f) => f.path.startsWith('derived'))!.bytes).toBeLessThan(statSync(files.other).size / 10);
      expect(stored.find((f) => f.path.startsWith('run.bm25'))!.bytes).toBeLessThan(statSync(files.bm25).size / 2);

      // A reload brings the collection and the analysis back, from what was stored: the same report.
      await p.reload();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,derived');
      const { recipes: _r, ...reloaded } = JSON.parse(await saveDownload(p, () => p.getByTestId('export-report-json').click())) as Record<
        string,
        unknown
      >;
      expect(portableReport(reloaded)).toEqual(portableReport(cliReport));

      // A collection stored whole by an older fliplab (the run file itself) is stored compactly once opened.
      await p.evaluate(
        async (text) => {
          const db = await new Promise<IDBDatabase>((resolve, reject) => {
            const r = indexedDB.open('fliplab-collections');
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => reject(r.error);
          });
          const tx = db.transaction('files', 'readwrite');
          const store = tx.objectStore('files');
          const record = await new Promise<{ id: string; files: { path: string; bytes: Uint8Array }[] }>((resolve) => {
            const r = store.getAll();
            r.onsuccess = () => resolve((r.result as { id: string; files: { path: string; bytes: Uint8Array }[] }[])[0]!);
          });
          const bytes = new TextEncoder().encode(text);
          record.files = record.files.map((f) => (f.path.startsWith('derived') ? { path: 'derived.run', bytes } : f));
          store.put(record);
          await new Promise((resolve) => (tx.oncomplete = resolve));
          db.close();
        },
        readFileSync(files.other, 'utf8'),
      );
      expect((await storedFiles(p)).map((f) => f.path)).toContain('derived.run');
      await p.reload();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,derived');
      await expect
        .poll(async () => (await storedFiles(p)).map((f) => f.path).sort(), { timeout: 30_000 })
        .toEqual(['derived.run.fliplab-run.jsonl.gz', 'qrels.test.txt', 'run.bm25-flat.txt.fliplab-run.jsonl.gz']);

      // Passage text from a corpus file added now: streamed, only the runs' passages kept, and kept after a reload.
      await p.getByTestId('pick-passage-text').setInputFiles(files.corpus);
      await expect.poll(() => p.getByTestId('passage-text').getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
      expect(await p.getByTestId('passage-text').textContent()).toMatch(/text for [\d,]+ of the runs' passages \(2\d,\d{3} read/);
      await p.reload();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,derived');
      await p.getByTestId('next-broken').click();
      await expect.poll(() => detail.locator('.list').count(), { timeout: 10_000 }).toBe(2);
      await expect
        .poll(() => detail.locator('.list').first().locator('td.title').first().textContent(), { timeout: 10_000 })
        .toMatch(/Title of /);

      // A bad run at line 40,000: named by file and line beside the import; nothing open is lost.
      await p.getByTestId('add-retriever').locator('summary').click();
      await p.getByTestId('pick-runs').setInputFiles(files.bad);
      const error = p.getByTestId('run-import-error');
      await expect.poll(() => error.textContent(), { timeout: 30_000 }).toMatch(/bad\.run, line 40000: expected 6 columns/);
      expect(await analysisRuns(p)).toBe('Anserini,derived');
      // Nothing left the page but for the app's own files.
      expect(requests.filter((u) => !u.startsWith(server.url))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);
});

describe('bad runs dropped with a collection', () => {
  it('each is named by file and line in the panel and left out; the good runs open, each naming its own file', async () => {
    const dir = join(work, 'with-bad-runs');
    await mkdir(dir, { recursive: true });
    const bm25 = readFileSync(files.bm25, 'utf8');
    const paths = {
      qrels: join(dir, 'formula.qrels'),
      bm25: join(dir, 'run.bm25-flat.txt'),
      holey: join(dir, 'holey.run'),
      nan: join(dir, 'nan.run'),
      empty: join(dir, 'empty.run'),
      twice: join(dir, 'twice.run'),
    };
    await writeFile(paths.qrels, readFileSync(files.qrels));
    await writeFile(paths.bm25, bm25);
    await writeFile(paths.holey, holeyRun(bm25));
    await writeFile(paths.nan, '1 Q0 doc1 1 inf nan\n1 Q0 doc2 2 1.5 nan\n');
    await writeFile(paths.empty, '');
    await writeFile(paths.twice, '1 Q0 doc1 1 2.0 twice\n1 Q0 doc2 2 1.5 twice\n1 Q0 doc1 3 1.0 twice\n');
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const p = await context.newPage();
    try {
      await p.goto(server.url);
      await p.getByTestId('pick-files').setInputFiles(Object.values(paths));
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,holey');
      expect(await p.getByTestId('collection-error').count()).toBe(0);
      // In view, not folded: each bad run with its file, line and what was expected, as Import runs says it.
      const problems = p.getByTestId('collection-problems');
      expect(await problems.isVisible()).toBe(true);
      const text = (await problems.textContent()) ?? '';
      expect(text).toMatch(/3 files were left out/);
      expect(text).toMatch(/nan\.run, line 1: run left out: expected a finite number as score in column 5, got "inf"/);
      expect(text).toMatch(/empty\.run: run left out: expected at least one run line/);
      expect(text).toMatch(/twice\.run, line 3: run left out: document "doc1" appears twice for query "1"/);

      // Each run names its own file: in the retriever list and in every report.
      for (const [id, file] of [
        ['Anserini', 'run.bm25-flat.txt'],
        ['holey', 'holey.run'],
      ] as const) {
        const recipe = p.getByTestId(`recipe-${id}`);
        await recipe.locator('summary').click();
        expect(await recipe.textContent()).toContain(file);
        expect(await recipe.textContent()).not.toContain('formula.qrels');
      }
      for (const button of ['export-markdown', 'export-html', 'export-latex']) {
        const report = await saveDownload(p, () => p.getByTestId(button).click());
        expect(report, button).toContain('run.bm25-flat.txt');
        expect(report, button).toContain('holey.run');
        expect(report, button).not.toMatch(/file\W{0,20}formula\.qrels/);
      }
    } finally {
      await context.close();
    }
  }, 120_000);
});
