/**
 * The lab as an instrument, end to end (lab-session.ts: the production build, the local hub server, Debian
 * chromium): #demo opens a complete analysis with no download and no sideways scrolling, on a desktop and a
 * phone, its headline the one `npm run demo` prints; every button of the retrievers panel gives a run, a bad
 * value is said in words; the first visit offers the demo, keyboard and screen-reader structure hold
 * (axe-core); #demo opens offline; offline, unreachable and not found are told apart, with a Retry; #demo on a
 * browser that has SciFact uses SciFact, and the README's screenshots are taken from it (docs/screenshots/ with
 * FLIPLAB_SCREENSHOTS=1).
 *
 * Every test stands alone, as a fresh visitor. Every request of every test to the default hosts stays on the
 * local server (checked after each test); a visitor who chose other hosts is checked against them.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cli, demoHeadline } from '../support/cli.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { builtApp } from './harness.ts';
import { axeViolations, demoReady, type Lab, useLabSession, loadSciFact, MODEL, openAddRetriever, row } from './lab-session.ts';

let lab: Lab;
let server: HubServer;
let browser: Browser;

useLabSession('instrument', (l) => {
  lab = l;
  ({ server, browser } = l);
});

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

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

/** `fliplab demo`'s output (the lab's #demo in a terminal), asked for once. */
let demoOut: ReturnType<typeof cli> | undefined;
const cliDemo = () => (demoOut ??= cli('demo'));
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

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
      const { c, p, seen } = await lab.freshVisitor(vp);
      try {
        await p.goto(`${server.url}#demo`);
        await demoReady(p);
        const headline = await p.getByTestId('headline').textContent();
        expect(headline).toMatch(
          /Replacing bm25 by bm25-rm3 at k = 3 fixes \d+ and breaks \d+ of 32 queries \(net [+-]?\d+\); nDCG@10 0\.\d{3} → 0\.\d{3}\./,
        );
        // `npm run demo` says the same sentences.
        const sentences = (await p.locator('[data-testid="headline"] p').allTextContents()).map(oneLine);
        expect(demoHeadline((await cliDemo()).stdout)).toEqual(sentences);
        expect(await p.getByTestId('collection-summary').textContent()).toMatch(/fliplab classroom collection.*88 passages.*32 judged/s);
        // It sweeps only depths every run reaches: no depth warning on the first screen.
        await expect.poll(() => p.evaluate(() => location.hash), { timeout: 5_000 }).toMatch(/[#&]d=1,3(,\d+)*(&|$)/);
        const depths = /[#&]d=([\d,]+)/.exec(await p.evaluate(() => location.hash))![1]!;
        // The warnings were worked out for the three runs at these depths (the section says what they cover): none.
        await expect
          .poll(() => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-depth-notes-for'), { timeout: 30_000 })
          .toBe(`bm25,bm25-rm3,ql@${depths}`);
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
    const { c, p } = await lab.freshVisitor({ width: 1280, height: 800 });
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
      const pack = await lab.saveDownload(p, () =>
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
    const { c, p } = await lab.freshVisitor({ width: 1280, height: 800 });
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
    const { c, p, seen } = await lab.freshVisitor({ width: 1280, height: 800 });
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
        const { c, p, origins } = await lab.freshVisitor({ width: 1280, height: 800 }, { dataHost: t.dataHost });
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
      const { c, p } = await lab.freshVisitor({ width: 1280, height: 800 }, { modelHost: dead });
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
    const { context: c, page: first } = await lab.openLab(browser);
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
      await lab.shotTop(page, 'section[aria-labelledby="analysis-heading"]', 'analysis.png', 1500);
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
      await lab.shotTop(page, 'section[aria-labelledby="explorer-heading"]', 'explorer.png', 1500);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#analysis-heading').evaluate((h) => h.scrollIntoView({ block: 'start' }));
      const dir = lab.shotsDir();
      await mkdir(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'phone.png') });
      expect(await sideways(page)).toBe(0);
    } finally {
      await c.close();
    }
  }, 180_000);
});
