/**
 * Judgment holes, end to end (the production build in Debian's chromium): TREC-COVID's qrels, Anserini's BM25
 * run and a second run that puts passages nobody judged into some queries' top 10. The headline says how many
 * broken queries have unjudged passages; "Next hole" walks them in the explorer, and three judgments made with
 * the keyboard (0, 0, then 2) change the analysis. The lab's flip report and its exported qrels are then exactly
 * what `fliplab flips --qrels base --qrels added` computes from the same files, judged-only too; a reload keeps
 * the judgments; undo and clear take them back.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubServer } from '../support/hub-server.ts';
import { covidRuns, holeyRun } from '../support/runs.ts';
import { cliFlipsReport, portableReport, saveDownload as saveTo, e2eSetup, type E2e } from './harness.ts';

/** With FLIPLAB_SCREENSHOTS=1 the judging view becomes the README's picture (docs/screenshots/judging.png). */
const SHOTS = process.env.FLIPLAB_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/screenshots') : null;

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
let files: { qrels: string; bm25: string; other: string; corpus: string };

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'judgments',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      files = { ...(await covidRuns(work, 'holey.run', holeyRun)), corpus: join(work, 'corpus.jsonl') };
      // Text for the passages the second run brought (the judge reads them); the rest of the corpus is not needed.
      const texts = Array.from({ length: 51 }, (_, q) =>
        Array.from({ length: 10 }, (_, i) => ({
          _id: `new-${q}-${i}`,
          title: `Passage ${i + 1} the dense retriever found for topic ${q}`,
          text: 'Hospitalized adults with COVID-19 who received the antiviral recovered faster than those on placebo; mortality did not differ.',
        })),
      ).flat();
      await writeFile(files.corpus, texts.map((t) => `${JSON.stringify(t)}\n`).join(''));
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const saveDownload = async (p: Page, click: () => Promise<void>): Promise<string> => (await saveTo(p, work, click)).text;
const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');

/** `fliplab flips` on the test's files, as the lab names the runs; extra qrels files layered in order. */
const flips = (extra: string[], judgedOnly = false): Promise<Record<string, unknown>> =>
  cliFlipsReport(
    [files.qrels, ...extra],
    { reference: files.bm25, candidate: files.other, names: ['Anserini', 'holey'] },
    judgedOnly ? ['--judged-only'] : [],
  );

async function labReport(p: Page): Promise<Record<string, unknown>> {
  const { recipes: _r, ...report } = JSON.parse(await saveDownload(p, () => p.getByTestId('export-report-json').click())) as Record<
    string,
    unknown
  >;
  return portableReport(report);
}

type Row = { broken: number; broken_with_unjudged: number };
const at10 = (report: Record<string, unknown>): Row =>
  (report['depths'] as { k: number; candidates: Row[] }[]).find((d) => d.k === 10)!.candidates[0]!;

describe('judgment holes', () => {
  it('measures the holes, judges three in the explorer, and agrees with fliplab flips --qrels base --qrels added', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const p = await context.newPage();
    try {
      await p.goto(server.url);
      await p.getByTestId('pick-files').setInputFiles([files.qrels, files.bm25, files.other]);
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,holey');
      await p.getByTestId('pick-passage-text').setInputFiles(files.corpus);
      await expect.poll(() => p.getByTestId('passage-text').getAttribute('data-state'), { timeout: 60_000 }).toBe('done');

      // Before any judgment: the lab's report is the CLI's, and the headline names the holes.
      const before = await flips([]);
      expect(await labReport(p)).toEqual(before);
      const row = at10(before);
      expect(row.broken_with_unjudged).toBeGreaterThan(0);
      const headline = p.getByTestId('headline');
      expect(await headline.textContent()).toMatch(
        new RegExp(
          `${row.broken_with_unjudged === row.broken ? 'All ' : `${row.broken_with_unjudged} of the `}${row.broken} broken ha(s|ve) unjudged passages in holey's top 10: negative-flip rate \\d+\\.\\d%–\\d+\\.\\d%`,
        ),
      );
      expect((await headline.boundingBox())!.y + (await headline.boundingBox())!.height).toBeLessThanOrEqual(800);

      // Next hole: the first broken query's first unjudged passage in the candidate's top 10, opened and focused.
      await p.getByTestId('next-hole').click();
      const detail = p.locator('.detail-pane');
      const focusedRow = () => p.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-doc') ?? null);
      await expect.poll(focusedRow, { timeout: 10_000 }).toMatch(/^new-\d+-0$/);
      const qid = (await focusedRow())!.split('-')[1]!;
      expect(await detail.locator('h3').first().textContent()).toContain(qid);
      // The hole is marked, its text open beside its grade buttons.
      await expect.poll(() => detail.locator(`tr.passage`).count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await detail.locator(`tr[data-doc="new-${qid}-0"] [data-testid="unjudged"]`).count()).toBeGreaterThan(0);
      const shots = SHOTS ?? join(work, 'screenshots');
      await mkdir(shots, { recursive: true });
      // One screen around the hole: the list, the query's two rankings, the marked passage and its grade buttons.
      await detail
        .locator(`tr[data-doc="new-${qid}-0"]`)
        .first()
        .evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await p.screenshot({ path: join(shots, 'judging.png') });
      await p.keyboard.press('0');
      await expect.poll(() => detail.locator(`tr[data-doc="new-${qid}-0"] .by-you`).count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await p.getByTestId('next-hole').click();
      await expect.poll(focusedRow, { timeout: 10_000 }).toBe(`new-${qid}-1`);
      await p.keyboard.press('0');
      await expect.poll(() => detail.locator(`tr[data-doc="new-${qid}-1"] .by-you`).count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await p.getByTestId('next-hole').click();
      await expect.poll(focusedRow, { timeout: 10_000 }).toBe(`new-${qid}-2`);
      await p.keyboard.press('2');
      await expect.poll(() => headline.textContent(), { timeout: 10_000 }).toMatch(/With 3 judgments you added\./);

      // The exported layer is TREC qrels of exactly those three; the report is the CLI's over base + added.
      const added = await saveDownload(p, () => p.getByTestId('export-judgments-qrels').click());
      expect(added).toBe(`${qid} 0 new-${qid}-0 0\n${qid} 0 new-${qid}-1 0\n${qid} 0 new-${qid}-2 2\n`);
      const addedPath = join(work, 'added.qrels');
      await writeFile(addedPath, added);
      const after = await flips([addedPath]);
      expect(after).not.toEqual(before);
      expect(at10(after).broken).toBe(row.broken - 1);
      expect(await labReport(p)).toEqual(after);
      const jsonl = await saveDownload(p, () => p.getByTestId('export-judgments-jsonl').click());
      expect(
        jsonl
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { grade: number }).grade),
      ).toEqual([0, 0, 2]);

      // Judged only: the toggle gives `flips --judged-only` over the same qrels.
      await p.getByTestId('judged-only').check();
      await expect.poll(() => p.getByTestId('headline-judgments').textContent(), { timeout: 10_000 }).toMatch(/Judged only/);
      expect(await labReport(p)).toEqual(await flips([addedPath], true));
      await p.getByTestId('holes-misses').check();
      // The view (and its link) forgets the mode before the reload: the hash is written just after a change.
      await expect.poll(() => p.evaluate(() => location.hash), { timeout: 10_000 }).not.toMatch(/[#&]J=1/);

      // A reload keeps the layer, and the numbers with it.
      await p.reload();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('Anserini,holey');
      await expect.poll(() => p.getByTestId('headline').textContent(), { timeout: 30_000 }).toMatch(/With 3 judgments you added\./);
      expect(await labReport(p)).toEqual(after);
      // Storage lists them with the collection, and can delete them.
      await p.getByTestId('storage-refresh').click();
      await expect
        .poll(() => p.getByTestId('stored-judgments').textContent(), { timeout: 10_000 })
        .toMatch(/3 judgments\s+added to 1 collection/);

      // Undo takes the last one back; clear takes them all (the collection's qrels were never touched).
      await p.getByTestId('judgments-undo').click();
      await expect.poll(() => p.getByTestId('headline').textContent(), { timeout: 10_000 }).toMatch(/With 2 judgments you added\./);
      await p.getByTestId('judgments-clear').click();
      await expect.poll(() => p.getByTestId('headline-judgments').count(), { timeout: 10_000 }).toBe(0);
      expect(await labReport(p)).toEqual(before);

      // Importing the exported file brings them back, as a second assessor's file would.
      await p.getByTestId('import-judgments').setInputFiles(addedPath);
      await expect.poll(() => p.getByTestId('import-judgments-note').textContent(), { timeout: 10_000 }).toMatch(/Imported 3 judgments/);
      await expect.poll(() => p.getByTestId('headline').textContent(), { timeout: 10_000 }).toMatch(/With 3 judgments you added\./);
      expect(await labReport(p)).toEqual(after);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('two tabs judge different passages: each shows both at once, and both are kept', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const a = await context.newPage();
    const b = await context.newPage();
    const focusedRow = (p: Page) => p.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-doc') ?? null);
    const says = (p: Page, n: number) =>
      expect
        .poll(() => p.getByTestId('headline').textContent(), { timeout: 15_000 })
        .toMatch(new RegExp(`With ${n} judgments? you added\\.`));
    // A third tab, open before the collection is stored: its list of stored collections follows without a reload.
    const c = await context.newPage();
    try {
      await c.goto(server.url);
      const storedInC = () => c.getByTestId('stored-collections').locator('tbody th[scope="row"]').count();
      const before = await storedInC();
      await a.goto(server.url);
      await a.getByTestId('pick-files').setInputFiles([files.qrels, files.bm25, files.other]);
      await expect.poll(() => analysisRuns(a), { timeout: 60_000 }).toBe('Anserini,holey');
      await expect.poll(storedInC, { timeout: 10_000 }).toBe(before + 1);
      await c.close();
      // The second tab opens the same collection from the browser's storage, by the first tab's address.
      await expect.poll(() => a.evaluate(() => location.hash), { timeout: 10_000 }).toMatch(/c=/);
      await b.goto(a.url());
      await expect.poll(() => analysisRuns(b), { timeout: 60_000 }).toBe('Anserini,holey');

      // A judges; B, not reloaded, shows it.
      await a.getByTestId('next-hole').click();
      await expect.poll(() => focusedRow(a), { timeout: 10_000 }).toMatch(/^new-\d+-\d$/);
      const first = (await focusedRow(a))!;
      await a.keyboard.press('0');
      await says(a, 1);
      await says(b, 1);

      // Both judge at the same moment, different passages: neither write loses the other.
      await a.getByTestId('next-hole').click();
      await b.getByTestId('next-hole').click();
      // A shared machine can be slow to bring the second tab's list up while the first writes: 30 s, not 10.
      await expect.poll(() => focusedRow(b), { timeout: 30_000 }).toMatch(/^new-\d+-\d$/);
      const second = (await focusedRow(b))!;
      expect(second).not.toBe(first);
      await expect.poll(() => focusedRow(a), { timeout: 10_000 }).toBe(second);
      await b.keyboard.press('n');
      await expect.poll(() => focusedRow(b), { timeout: 10_000 }).not.toBe(second);
      const third = (await focusedRow(b))!;
      await Promise.all([a.keyboard.press('0'), b.keyboard.press('2')]);
      await says(a, 3);
      await says(b, 3);

      // After a reload of both, all three are kept, in both.
      await Promise.all([a.reload(), b.reload()]);
      await says(a, 3);
      await says(b, 3);
      const lines = (text: string) => text.trim().split('\n').sort();
      const fromA = await saveDownload(a, () => a.getByTestId('export-judgments-qrels').click());
      const fromB = await saveDownload(b, () => b.getByTestId('export-judgments-qrels').click());
      const qid = (doc: string) => doc.split('-')[1]!;
      expect(lines(fromA)).toEqual([`${qid(first)} 0 ${first} 0`, `${qid(second)} 0 ${second} 0`, `${qid(third)} 0 ${third} 2`].sort());
      expect(lines(fromB)).toEqual(lines(fromA));
    } finally {
      await context.close();
    }
  }, 180_000);
});
