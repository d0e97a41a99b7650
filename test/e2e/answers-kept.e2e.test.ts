/**
 * Gold files and imported predictions survive a reload, in Debian's chromium with the real IndexedDB: the app
 * (production build) opens a small QA collection of the user's own files, BM25 and RM3 analysed, a gold file
 * and both runs' predictions are loaded, and after a reload the answers panel shows the same table, and the
 * Storage panel counts them. Removed in the panel, they are gone after another reload. No reader runs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeQaCollection } from '../support/qa-collection.ts';
import type { HubServer } from '../support/hub-server.ts';
import { e2eSetup, type E2e } from './harness.ts';

const TEST_TIMEOUT_MS = 180_000;

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'answers-kept',
    site: 'app',
    webgpu: false,
  });
  ({ server, browser, work } = e2e);
});

afterAll(async () => {
  await e2e?.close();
});

const ready = (p: Page, id: string) => p.locator(`[data-testid="retriever-${id}"]`).getAttribute('data-status');
/** An element's text with a space after every element (cells apart), whitespace collapsed; rendered or not (content-visibility). */
const text = (p: Page, testId: string) =>
  p.getByTestId(testId).evaluate((e) => {
    const copy = e.cloneNode(true) as Element;
    for (const x of copy.querySelectorAll('*')) x.append(' ');
    return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
  });
const runRow = (p: Page, run: string) => p.locator(`[data-testid="answer-runs"] tr[data-run="${run}"]`);

/** After a (re)load: the collection and both runs back, and the answers panel done with what it restores. */
async function waitForLab(p: Page): Promise<void> {
  await expect.poll(() => ready(p, 'bm25'), { timeout: 60_000 }).toBe('ready');
  await expect.poll(() => ready(p, 'bm25-rm3'), { timeout: 60_000 }).toBe('ready');
  await expect.poll(() => p.getByTestId('answer-flip-table').count(), { timeout: 30_000 }).toBe(1);
}

/** The Storage panel, refreshed, comes to say `expected` about gold files and predictions (the last refresh's text shows meanwhile). */
async function expectStorage(p: Page, expected: RegExp): Promise<void> {
  await p.getByTestId('storage-refresh').click();
  await expect
    .poll(
      () =>
        p
          .getByTestId('stored-answer-inputs')
          .count()
          .then((n) => (n === 0 ? '' : text(p, 'stored-answer-inputs'))),
      { timeout: 10_000 },
    )
    .toMatch(expected);
}

describe('gold answers and imported predictions kept in this browser', () => {
  it(
    'come back after a reload with the same answer table, are counted in Storage, and are gone after removing them and reloading',
    async () => {
      const qa = writeQaCollection(join(work, 'qa'));
      // A gold file unlike the queries' own (every other query's answer replaced), and predictions that are right
      // from BM25 and mostly wrong from RM3: the table then has regressions to restore.
      const gold = qa.queryIds.map((q, i) => ({ query_id: q, answers: [i % 2 === 0 ? qa.answers.get(q)! : `zz ${q}`] }));
      const bm25 = qa.queryIds.map((q, i) => ({ query_id: q, prediction: `it is ${gold[i]!.answers[0]}` }));
      const rm3 = qa.queryIds.map((q, i) => ({ query_id: q, prediction: i % 4 === 0 ? bm25[i]!.prediction : 'unknown' }));
      const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
      const files = { gold: join(work, 'qa-gold.jsonl'), bm25: join(work, 'bm25-answers.jsonl'), rm3: join(work, 'rm3-answers.jsonl') };
      await writeFile(files.gold, jsonl(gold));
      await writeFile(files.bm25, jsonl(bm25));
      await writeFile(files.rm3, jsonl(rm3));

      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const host = server.url.replace(/\/$/, '');
      await context.addInitScript((h) => {
        if (!localStorage.getItem('fliplab.settings'))
          localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' }));
      }, host);
      const p = await context.newPage();
      try {
        await p.goto(server.url);
        await p.getByTestId('pick-folder').setInputFiles(qa.dir);
        await expect.poll(() => ready(p, 'bm25'), { timeout: 60_000 }).toBe('ready');
        await p.getByTestId('add-rm3').click();
        await waitForLab(p);
        await expect.poll(() => text(p, 'gold-status'), { timeout: 30_000 }).toMatch(/30 queries \(from queries metadata\)/);
        await expectStorage(p, /^No gold files or imported predictions kept\.$/);

        // k = 2: the QA collection's flips are at small depths (each query has five passages).
        await p.getByTestId('answer-k').fill('2');
        await p.getByTestId('gold-file').setInputFiles(files.gold);
        await expect
          .poll(() => text(p, 'gold-status'), { timeout: 10_000 })
          .toMatch(/30 queries \(from qa-gold\.jsonl, kept in this browser/);
        await runRow(p, 'bm25').getByTestId('predictions-file').setInputFiles(files.bm25);
        await runRow(p, 'bm25-rm3').getByTestId('predictions-file').setInputFiles(files.rm3);
        await expect
          .poll(() => runRow(p, 'bm25-rm3').getByTestId('answer-count').textContent(), { timeout: 10_000 })
          .toMatch(/rm3-answers\.jsonl/);
        await expect
          .poll(() => runRow(p, 'bm25').getByTestId('answer-count').textContent(), { timeout: 10_000 })
          .toMatch(/bm25-answers\.jsonl/);
        expect(await p.getByTestId('answers-error').count()).toBe(0);
        const table = await text(p, 'answer-flip-table');
        const runs = await text(p, 'answer-runs');
        // A table worth restoring: flips at k = 2, some of them answer regressions.
        expect(table).toMatch(/bm25-rm3 [1-9]\d* flips/);
        const regressions = await p.locator('[data-testid="answer-flip-table"] tr[data-candidate="bm25-rm3"] td').nth(1).textContent();
        expect(regressions).toMatch(/^[1-9]\d* of [1-9]/);
        await expectStorage(p, /^1 gold file and 2 imported predictions files kept, for 1 collection;/);
        const stored = await p.locator('[data-testid="stored-answer-inputs-table"] tbody tr').textContent();
        expect(stored).toMatch(
          /qa-gold\.jsonl \(30 queries\).*bm25: bm25-answers\.jsonl \(30 answers at k = 2\).*bm25-rm3: rm3-answers\.jsonl/,
        );

        await p.reload();
        await waitForLab(p);
        await expect
          .poll(() => text(p, 'gold-status'), { timeout: 30_000 })
          .toMatch(/30 queries \(from qa-gold\.jsonl, kept in this browser/);
        await expect.poll(() => text(p, 'answer-flip-table'), { timeout: 30_000 }).toBe(table);
        expect(await text(p, 'answer-runs')).toBe(runs);
        expect(await p.getByTestId('answer-k').inputValue()).toBe('2');

        // Removed in the answers panel: the collection's own gold applies again, no predictions are left.
        await runRow(p, 'bm25').getByTestId('predictions-remove').click();
        await runRow(p, 'bm25-rm3').getByTestId('predictions-remove').click();
        await p.getByTestId('gold-remove').click();
        await expect.poll(() => text(p, 'gold-status'), { timeout: 10_000 }).toMatch(/30 queries \(from queries metadata\)$/);
        await expect.poll(() => p.getByTestId('predictions-remove').count(), { timeout: 10_000 }).toBe(0);
        await expectStorage(p, /^No gold files or imported predictions kept\.$/);

        await p.reload();
        await waitForLab(p);
        await expect.poll(() => text(p, 'gold-status'), { timeout: 30_000 }).toMatch(/30 queries \(from queries metadata\)$/);
        expect(await p.getByTestId('gold-remove').count()).toBe(0);
        expect(await p.getByTestId('predictions-remove').count()).toBe(0);
        const counts = await p.locator('[data-testid="answer-runs"] [data-testid="answer-count"]').allTextContents();
        expect(counts.map((c) => c.trim())).toEqual(['0', '0']);
        expect(await text(p, 'answer-flip-table')).not.toBe(table);
      } finally {
        await context.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
