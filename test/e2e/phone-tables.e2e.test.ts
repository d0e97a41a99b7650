/**
 * The analysis read on a phone (390×844, the production build in Debian's chromium, #demo: no download): no
 * caption or cell of any table on the page has its text cut off. A caption wraps to the width it is shown in; a
 * cell either fits where it is, or sits in a box that scrolls sideways and, scrolled into view, has its row's
 * name (the first column, and the row header beside a k column) in view beside it. The explorer's tables are
 * checked with a broken query and a passage open. The words are right too: "1 query", never "1 queries"; the
 * reading guide of the paired tests says what W/T/L counts; the track table shows the reference's Tukey group.
 * Then a folder of one's own is opened, so the stored collections' tables are checked too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT, e2eSetup, type E2e } from './harness.ts';
import { demoReady } from './lab-session.ts';
import { unreadableTableText } from './table-text.ts';

let e2e: E2e;

beforeAll(async () => {
  e2e = await e2eSetup({ name: 'phone-tables', site: 'app' });
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

/** Text as read: whitespace collapsed. */
const words = (s: string | null): string => (s ?? '').replace(/\s+/g, ' ').trim();

describe('the analysis on a phone', () => {
  it('cuts no table text, counts in the singular, reads W/T/L and the Tukey groups', async () => {
    const c = await e2e.browser.newContext({ viewport: { width: 390, height: 844 } });
    const host = e2e.server.url.replace(/\/$/, '');
    await c.addInitScript(
      (h) => localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' })),
      host,
    );
    const p = await c.newPage();
    try {
      await p.goto(`${e2e.server.url}#demo`);
      await demoReady(p);
      // Every part that draws a table is in: the paired tests, the frontier's mixes, the track.
      await expect.poll(() => p.getByTestId('significance-table').count(), { timeout: 30_000 }).toBe(1);
      await expect.poll(() => p.getByTestId('frontier-table').count(), { timeout: 30_000 }).toBe(1);
      await expect.poll(() => p.getByTestId('track-reference-group').count(), { timeout: 60_000 }).toBe(1);
      // The explorer's tables: a broken query's judged passages, a passage's BM25 terms.
      await p.getByTestId('next-broken').click();
      const detail = p.locator('.detail-pane');
      await expect.poll(() => detail.locator('h3').first().textContent(), { timeout: 30_000 }).toMatch(/^Query q\d+/);
      await detail
        .locator('.list')
        .first()
        .getByRole('button', { name: /^Show passage / })
        .first()
        .click();
      await expect.poll(() => detail.getByTestId('bm25-why').count(), { timeout: 10_000 }).toBe(1);
      // The reading guide of the paired tests, opened.
      const how = p.locator('details.how');
      await how.locator('summary').click();
      await p.waitForTimeout(300);

      const tables = await p.locator('main table').count();
      expect(tables).toBeGreaterThanOrEqual(12);
      expect(await unreadableTableText(p)).toEqual([]);

      // Counts: the demo's bm25-rm3 breaks one query at k = 3, and the per-query chart says so in the singular.
      await expect
        .poll(() => p.getByTestId('difference-plot').locator('figcaption').textContent(), { timeout: 30_000 })
        .toMatch(/Red: the 1 query\s+bm25-rm3 broke at k = 3;/);
      // (textContent: the page leaves off-screen parts unrendered, content-visibility: auto, so innerText would skip them.)
      const body = ((await p.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');
      expect(body.match(/(?<![\d,.])1 (queries|passages|runs|judgments|candidates|tests|measures|flips)\b/g) ?? []).toEqual([]);

      // W/T/L in the reading guide; the caption no longer repeats the heading.
      expect(words(await how.getByTestId('guide-wtl').textContent())).toMatch(
        /^W\/T\/L: wins, ties and losses against bm25, query by query/,
      );
      expect(words(await p.getByTestId('significance-table').locator('caption').textContent())).not.toMatch(/Is the difference real/);

      // The track table: the reference's own Tukey group, letters as the CLI's.
      expect(words(await p.locator('[data-testid="track-reference"] th').textContent())).toBe('bm25 (reference)');
      expect(await p.getByTestId('track-reference-group').textContent()).toMatch(/^[a-z]+$/);

      // A collection of one's own files is stored: the stored collections' tables (collection choices, storage).
      await p.getByTestId('pick-folder').setInputFiles(join(ROOT, 'examples', 'tiny-beir'));
      await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 30_000 }).toMatch(/^tiny-beir:\s+12 passages/);
      if ((await p.getByTestId('stored-collections').count()) === 0) await p.getByTestId('change-collection').click();
      await p.getByTestId('storage-refresh').click();
      await expect.poll(() => p.locator('table.stored').count(), { timeout: 10_000 }).toBe(2);
      expect(await unreadableTableText(p)).toEqual([]);
    } finally {
      await c.close();
    }
  }, 120_000);
});
