/**
 * The address in an open tab, and what this browser keeps (the production build in Debian's chromium):
 * - a hash set in an open tab (another collection, other candidates, an id that does not exist) shows that view
 *   without a reload, as a fresh load of the same address would; back and forward move between the views;
 * - the bare address lists every stored collection, with its size and last use, and opens and deletes it.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ID } from '../../src/app/demo.ts';
import { DEFAULT_VIEW } from '../../src/app/types.ts';
import { encodeView } from '../../src/app/url-state.ts';
import { BM25_RUN_NAME } from '../../src/core/retrieve/bm25.ts';
import { qlRunName } from '../../src/core/retrieve/ql.ts';
import { rm3RunName } from '../../src/core/retrieve/rm3.ts';
import type { HubServer } from '../support/hub-server.ts';
import { e2eSetup, ROOT, type E2e } from './harness.ts';

let e2e: E2e;
let server: HubServer;
let browser: Browser;
const TINY = join(ROOT, 'examples/tiny-beir');
const RM3 = rm3RunName();
const QL = qlRunName(1000);

beforeAll(async () => {
  e2e = await e2eSetup({ name: 'links', site: 'app', webgpu: false });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');
const summary = (p: Page) => p.getByTestId('collection-summary').textContent();
const hashOf = (collection: string, candidates: string[]): string => encodeView({ ...DEFAULT_VIEW, collection, candidates });

/** Open examples/tiny-beir as the user's files; resolves with the address the lab then shows. */
async function openTiny(p: Page): Promise<string> {
  await p.goto(server.url);
  await p.getByTestId('pick-folder').setInputFiles(TINY);
  await expect.poll(() => summary(p), { timeout: 60_000 }).toMatch(/tiny-beir.*12 passages/s);
  await expect.poll(() => p.evaluate(() => location.hash), { timeout: 10_000 }).toMatch(/^#c=files%3Atiny-beir-/);
  return p.evaluate(() => location.hash);
}

describe('the address of an open tab', () => {
  it('another collection, other candidates and an unknown id apply without a reload; back returns to each view', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await context.newPage();
    try {
      await openTiny(p);
      // Set in the page: a reload would lose it.
      await p.evaluate(() => ((window as unknown as { kept: boolean }).kept = true));
      const setHash = (hash: string) => p.evaluate((h) => (location.hash = h), hash);
      // The page's own history, as its back and forward buttons move it.
      const back = () => p.evaluate(() => history.back());
      const forward = () => p.evaluate(() => history.forward());

      await setHash(hashOf(DEMO_ID, [RM3, QL]));
      await expect.poll(() => summary(p), { timeout: 30_000 }).toMatch(/fliplab classroom collection/);
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`${BM25_RUN_NAME},${RM3},${QL}`);

      await setHash(hashOf(DEMO_ID, [QL]));
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`${BM25_RUN_NAME},${QL}`);

      // An id no retriever has: its row says so, as on a fresh load of the same address.
      const unknown = hashOf(DEMO_ID, [QL, 'no-such-run']);
      await setHash(unknown);
      const row = p.getByTestId('retriever-no-such-run');
      await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/not a retriever of this collection/);
      expect(await analysisRuns(p)).toBe(`${BM25_RUN_NAME},${QL}`);
      const refused = await row.textContent();

      // Back, step by step, to the first view.
      await back();
      await expect.poll(() => p.evaluate(() => location.hash), { timeout: 10_000 }).not.toContain('no-such-run');
      expect(await analysisRuns(p)).toBe(`${BM25_RUN_NAME},${QL}`);
      await back();
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`${BM25_RUN_NAME},${RM3},${QL}`);
      await back();
      await expect.poll(() => summary(p), { timeout: 30_000 }).toMatch(/tiny-beir.*12 passages/s);
      // and forward again
      await forward();
      await expect.poll(() => summary(p), { timeout: 30_000 }).toMatch(/fliplab classroom collection/);
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`${BM25_RUN_NAME},${RM3},${QL}`);
      expect(await p.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);

      // A fresh load of the address with the unknown id gives the same row.
      const fresh = await context.newPage();
      await fresh.goto(`${server.url}${unknown}`);
      await expect.poll(() => fresh.getByTestId('retriever-no-such-run').textContent(), { timeout: 30_000 }).toBe(refused);
    } finally {
      await context.close();
    }
  }, 120_000);
});

describe('stored collections', () => {
  it('the bare address lists each with its size and last use; it opens and deletes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await context.newPage();
    try {
      await openTiny(p);
      const again = await context.newPage();
      await again.goto(server.url);
      const listed = again.getByTestId('storage-collections');
      await expect.poll(() => listed.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);
      const row = listed.locator('tbody tr').first();
      expect(await row.locator('th').textContent()).toBe('tiny-beir');
      expect(await row.textContent()).toMatch(/your files/);
      expect(await row.textContent()).toMatch(/\d+(\.\d+)? (B|KB|kB|KiB)/);
      const used = (await row.getByTestId('last-used').textContent()) ?? '';
      expect(used).toMatch(/\d/);
      expect(used).not.toMatch(/^stored/);
      // the same list among the collection choices
      expect(await again.getByTestId('stored-collections').locator('tbody tr').count()).toBe(1);

      await row.getByRole('button', { name: 'Open tiny-beir' }).click();
      await expect.poll(() => summary(again), { timeout: 60_000 }).toMatch(/tiny-beir.*12 passages/s);

      await listed.getByRole('button', { name: 'Delete tiny-beir from this browser' }).click();
      await expect.poll(() => again.getByTestId('storage-no-collections').count(), { timeout: 10_000 }).toBe(1);
      expect(await again.getByTestId('stored-collections').count()).toBe(0);
      // and the other tab's list follows
      await p.getByTestId('change-collection').click();
      await expect.poll(() => p.getByTestId('stored-collections').count(), { timeout: 10_000 }).toBe(0);
    } finally {
      await context.close();
    }
  }, 120_000);
});
