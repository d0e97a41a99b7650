/**
 * The fusion frontier in the lab (production build, Debian's chromium, SciFact from a local hub mirror):
 * BM25 against BM25 + RM3 draws every mix of the sweep at k = 10, the frontier and the paper's hybrids; a
 * click on a point adds that mix as a candidate, and its flips at every depth are what `fliplab fuse` then
 * `fliplab flips` compute from the lab's own exported runs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBeirMirror } from '../support/beir-mirror.ts';
import type { HubServer } from '../support/hub-server.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { cli, saveDownload as saveTo, e2eSetup, type E2e } from './harness.ts';
import { SWEEP_RRF_C } from '../../src/core/flips/fusion.ts';

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'frontier',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      const mirror = join(work, 'mirror');
      await writeBeirMirror(mirror, { sourceDir: join(SHARED_DATA, 'scifact'), name: 'scifact', layout: 'jsonl.gz' });
      return { datasetsRoot: mirror };
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');
const save = async (p: Page, click: () => Promise<void>) => (await saveTo(p, work, click)).text;

describe('the fusion frontier', () => {
  it('draws the sweep for BM25 vs BM25 + RM3; a clicked point becomes a candidate whose flips equal the CLI’s', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const host = server.url.replace(/\/$/, '');
    await context.addInitScript((h) => localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h })), host);
    const p = await context.newPage();
    try {
      await p.goto(server.url);
      await p.getByTestId('catalog-scifact').click();
      await expect
        .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(/5,183 passages.*300 judged/s);
      await p.getByTestId('add-rm3').click();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('bm25,bm25-rm3');

      // Every mix of the sweep, the two ends and the union; the frontier drawn and listed.
      const frontier = p.getByTestId('frontier');
      await expect.poll(() => frontier.locator('g.point').count(), { timeout: 30_000 }).toBe(2 + SWEEP_RRF_C.length + 21 + 7 + 1);
      expect(await frontier.locator('polyline.front').count()).toBe(1);
      expect(await frontier.locator('g.point.paper').count()).toBe(3); // alternation 1:1, RRF c = 60, the union
      const listed = await p.getByTestId('frontier-table').locator('tbody tr').count();
      expect(listed).toBeGreaterThan(0);
      expect(await frontier.locator('g.point.on[role="button"]').count()).toBe(listed);
      const rrf60 = frontier.locator('g.point[data-label="rrf c=60"]');
      expect(await rrf60.getAttribute('aria-label')).toMatch(/^rrf c=60: \d+ broken, \d+ fixed, net [+-]?\d+.*add as a candidate$/);

      // Mixes on one spot are one mark: a click there lists them. No point sits on an axis's tick labels.
      const stacked = Number(await rrf60.getAttribute('data-stack'));
      const spots = await frontier.locator('g.point[role="button"]').evaluateAll((gs) =>
        gs.map((g) => {
          const c = g.querySelector('circle')!;
          return { spot: `${c.getAttribute('cx')},${c.getAttribute('cy')}`, stack: Number(g.getAttribute('data-stack')) };
        }),
      );
      for (const { spot, stack } of spots) expect(stack).toBe(spots.filter((s) => s.spot === spot).length);
      const ticks = await frontier.locator('text.tick').evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect()));
      const dots = await frontier.locator('g.point circle').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect()));
      const overlaps = (a: DOMRect, b: DOMRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      expect(dots.filter((d) => ticks.some((t) => overlaps(d, t)))).toEqual([]);

      // The risk view: every mix placed by its TRisk across (as its name says it; "n/a", nothing changed, sits at 0)
      // and mean gain up; no frontier line.
      await p.getByTestId('frontier-risk').check();
      expect(await frontier.getAttribute('data-view')).toBe('risk');
      expect(await frontier.locator('polyline.front').count()).toBe(0);
      const placed = await frontier.locator('g.point[role="button"]').evaluateAll((gs) =>
        gs.map((g) => ({
          trisk: ((t) => (t === 'n/a' ? 0 : Number(t ?? 'NaN')))(/TRisk (n\/a|-?[\d.]+)/.exec(g.getAttribute('aria-label') ?? '')?.[1]),
          cx: Number(g.querySelector('circle')!.getAttribute('cx')),
        })),
      );
      expect(placed.every((q) => Number.isFinite(q.trisk))).toBe(true);
      const byRisk = [...placed].sort((a, b) => a.trisk - b.trisk);
      for (let i = 1; i < byRisk.length; i++) expect(byRisk[i]!.cx).toBeGreaterThanOrEqual(byRisk[i - 1]!.cx - 0.5);
      expect(new Set(placed.map((q) => q.trisk)).size).toBeGreaterThan(1);
      await frontier.getByLabel('Broken vs net gain').check();
      expect(await frontier.locator('polyline.front').count()).toBe(1);

      // Where mixes share a spot (some do here), a click lists each of them; Close folds the list.
      const shared = frontier.locator('g.point[role="button"]:not([data-stack="1"])').first();
      const sharing = Number(await shared.getAttribute('data-stack'));
      expect(sharing).toBeGreaterThan(1);
      await shared.dispatchEvent('click');
      const offered = p.getByTestId('frontier-offered');
      expect(await offered.getByRole('button', { name: /^Add / }).count()).toBe(sharing);
      await offered.getByRole('button', { name: 'Close' }).click();
      expect(await offered.count()).toBe(0);
      expect(await analysisRuns(p)).toBe('bm25,bm25-rm3');

      // A click adds the mix as a candidate, or, where other mixes share its spot, offers each of them.
      await rrf60.dispatchEvent('click');
      if (stacked > 1) {
        expect(await offered.getByRole('button', { name: /^Add / }).count()).toBe(stacked);
        await offered.getByRole('button', { name: 'Add rrf c=60' }).click();
      }
      const fusedId = 'bm25-rm3+bm25~rrf60';
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`bm25,bm25-rm3,${fusedId}`);
      // The plot says what the click did (the new candidate's rows are elsewhere on the page), and a second
      // click says it is there already.
      expect(await p.getByTestId('frontier-added').textContent()).toBe(
        `Added ${fusedId} as a candidate: its rows are in the tables above and in the explorer.`,
      );
      await rrf60.focus();
      await p.keyboard.press('Enter'); // the keyboard adds the focused mix itself, stacked or not
      await expect.poll(() => p.getByTestId('frontier-added').textContent(), { timeout: 5_000 }).toMatch(/is a candidate already/);
      expect(await analysisRuns(p)).toBe(`bm25,bm25-rm3,${fusedId}`);

      // Its flips, from the lab's report, against `fliplab fuse` + `flips` on the lab's own runs.
      const report = JSON.parse(await save(p, () => p.getByTestId('export-report-json').click())) as {
        depths: { k: number; candidates: { name: string; broken: number; fixed: number; preserved: number; unchanged: number }[] }[];
      };
      const runs: Record<string, string> = {};
      for (const name of ['bm25', 'bm25-rm3']) {
        await p.getByTestId('export-run-select').selectOption(name);
        runs[name] = join(work, `${name}.trec`);
        await writeFile(runs[name]!, await save(p, () => p.getByTestId('export-run').click()));
      }
      const fused = join(work, 'fused.run');
      const fuse = await cli([
        'fuse',
        '--reference',
        runs['bm25']!,
        '--candidate',
        runs['bm25-rm3']!,
        '--method',
        'rrf',
        '--rrf-k',
        '60',
        '--out',
        fused,
      ]);
      expect(fuse.code).toBe(0);
      const qrels = join(SHARED_DATA, 'scifact', 'qrels', 'test.tsv');
      const flips = await cli([
        'flips',
        qrels,
        '--reference',
        runs['bm25']!,
        '--candidate',
        fused,
        '--name',
        'bm25',
        '--name',
        fusedId,
        '--depths',
        report.depths.map((d) => d.k).join(','),
        '--json',
      ]);
      expect(flips.code).toBe(0);
      const cliReport = JSON.parse(flips.stdout) as typeof report;
      const pick = (r: typeof report) =>
        r.depths.map((d) => {
          const c = d.candidates.find((x) => x.name === fusedId)!;
          return [d.k, c.preserved, c.broken, c.fixed, c.unchanged];
        });
      expect(pick(report)).toEqual(pick(cliReport));
      // And the frontier's own point agrees with the analysis at its k.
      const at10 = report.depths.find((d) => d.k === 10)!.candidates.find((c) => c.name === fusedId)!;
      expect(await rrf60.getAttribute('aria-label')).toContain(`${at10.broken} broken, ${at10.fixed} fixed`);
    } finally {
      await context.close();
    }
  }, 180_000);
});
