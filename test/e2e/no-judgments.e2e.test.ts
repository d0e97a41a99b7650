/**
 * The lab without judgments, end to end (lab-session.ts: the production build, the local hub server, Debian
 * chromium): a custom corpus (CSV passages, TSV queries, no qrels) compared by overlap@k and rank-biased overlap;
 * depths beyond the corpus said in words; the agreement explorer (least agreement first, both rankings side by
 * side, shared passages marked); the agreement exports against `fliplab compare --json --per-query`.
 *
 * Every request of the test to the default hosts stays on the local server (checked after it).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cli } from './harness.ts';
import { axeViolations, type Lab, useLabSession, openAddRetriever, row, SCIFACT } from './lab-session.ts';

let lab: Lab;
let work: string;
let browser: Browser;

useLabSession('no-judgments', (l) => {
  lab = l;
  ({ work, browser } = l);
});

describe('the lab without judgments', () => {
  it('compares retrievers on a custom corpus (CSV, no qrels) by overlap@k and rank-biased overlap, explores and exports it', async () => {
    const { context: c, page } = await lab.openLab(browser);
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
      const json = await lab.saveDownload(page, () => page.getByTestId('export-agreement-json').click());
      await page.getByTestId('export-run-select').selectOption('bm25');
      const ref = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
      await page.getByTestId('export-run-select').selectOption(variant);
      const cand = await lab.saveDownload(page, () => page.getByTestId('export-run').click());
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
      const perQuery = await lab.saveDownload(page, () => page.getByTestId('export-agreement-csv').click());
      const csvLines = perQuery.text.trim().split(/\r\n/);
      expect(csvLines[0]).toBe('qid,candidate,overlap@1,rbo@1,overlap@5,rbo@5,overlap@10,rbo@10,overlap@20,rbo@20,overlap@50,rbo@50');
      expect(csvLines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['q1', 'q2', 'q3'].map((q) => `${q},${variant}`));
      const md = await lab.saveDownload(page, () => page.getByTestId('export-agreement-markdown').click());
      expect(md.text).toMatch(/## Agreement with the reference/);
      expect(md.text).toMatch(/depth 50 exceeds the depth of run/);
    } finally {
      await c.close();
    }
  }, 120_000);
});
