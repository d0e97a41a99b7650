/**
 * A whole track, as a TREC track's organisers or a reader of its overview paper would open it: TREC DL 2019's
 * qrels and 37 runs at its scale (43 judged queries × 1,000 passages each: Anserini's BM25 and 36 runs derived
 * from it by fixed rules), dropped on the lab with no corpus (the production build in Debian's chromium). The
 * track table lists every run against BM25; its tests, exported, are `fliplab significance --tukey --georisk` on the
 * same files, its Tukey HSD groups (the reference's too) the letters that command prints; its flips at k are
 * `fliplab flips`'; it sorts; on a phone nothing in it is cut off; a row's "Analyse" makes that run the candidate.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubServer } from '../support/hub-server.ts';
import { docsByQuery } from '../support/runs.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { formatSignificance } from '../../src/core/stats/format.ts';
import type { SignificanceReport } from '../../src/core/stats/significance.ts';
import { cli, portableReport, saveDownload, e2eSetup, type E2e } from './harness.ts';
import { unreadableTableText } from './table-text.ts';

const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const RUNS = 36;

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
let qrels: string;
let paths: string[];

/**
 * Run `i` of the track: within each query, the top (3 + i) passages rotated by (i mod 5) + 1 places, and for
 * every query whose id leaves remainder i mod 7 when divided by 7, its top i mod 4 + 1 replaced by passages
 * nobody judged. Deterministic: the same text gives the same run.
 */
function trackRun(bm25: Map<string, string[]>, i: number): string {
  const lines: string[] = [];
  for (const [q, docs] of bm25) {
    const order = [...docs];
    const top = Math.min(order.length, 3 + i);
    const shift = (i % 5) + 1;
    const head = order.slice(0, top);
    order.splice(0, top, ...head.slice(shift % top), ...head.slice(0, shift % top));
    if (Number(q) % 7 === i % 7) for (let j = 0; j <= i % 4 && j < order.length; j++) order[j] = `new-${i}-${q}-${j}`;
    order.forEach((d, r) => lines.push(`${q} Q0 ${d} ${r + 1} ${(100 - r / 100).toFixed(4)} run${i}`));
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  e2e = await e2eSetup({
    name: 'track',
    site: 'app',
    prepare: async (dir) => {
      work = dir;
      qrels = join(work, 'qrels.dl19-passage.txt');
      writeFileSync(qrels, readFileSync(join(DL19, 'qrels.dl19-passage.txt')));
      const bm25Text = readFileSync(join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt'), 'utf8');
      const bm25 = docsByQuery(bm25Text);
      paths = [join(work, 'a-bm25.run')];
      writeFileSync(paths[0]!, bm25Text);
      for (let i = 1; i <= RUNS; i++) {
        const path = join(work, `run-${String(i).padStart(2, '0')}.run`);
        writeFileSync(path, trackRun(bm25, i));
        paths.push(path);
      }
    },
  });
  ({ server, browser } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');

interface Tests {
  reference: string;
  family: { members: { candidate: string; measure: string }[] };
  rows: { candidate: string; mean_diff: number }[];
}

describe('a whole track', () => {
  it('37 runs open with no corpus; the track table is fliplab significance --tukey and flips on the same files', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    const p = await context.newPage();
    try {
      await p.goto(server.url);
      await p.getByTestId('pick-files').setInputFiles([qrels, ...paths]);
      // Runs are named by their tags: BM25's is "Anserini", run i's "run<i>".
      await expect.poll(() => analysisRuns(p), { timeout: 90_000 }).toMatch(/^Anserini,/);
      const table = p.getByTestId('track-table');
      const runRows = table.locator('tbody tr[data-run]');
      await expect.poll(() => runRows.count(), { timeout: 90_000 }).toBe(RUNS);

      // The tests, exported, are the CLI's on the same files, the runs in the lab's order (Tukey's trials follow it).
      const exported = JSON.parse((await saveDownload(p, work, () => p.getByTestId('export-track-json').click())).text) as Tests;
      expect(exported.reference).toBe('Anserini');
      const order = exported.family.members.map((m) => m.candidate);
      const pathOf = (name: string) => join(work, `run-${name.slice(3).padStart(2, '0')}.run`);
      expect(order.map(pathOf).sort()).toEqual(paths.slice(1));
      const out = await cli([
        'significance',
        qrels,
        '--reference',
        paths[0]!,
        ...order.flatMap((name) => ['--candidate', pathOf(name)]),
        ...['Anserini', ...order].flatMap((name) => ['--name', name]),
        '-m',
        'ndcg_cut.10',
        '--bootstrap',
        '1000',
        '--tukey',
        '--georisk',
        '--json',
      ]);
      expect(out.code, out.stderr).toBe(0);
      expect(portableReport(exported)).toEqual(portableReport(JSON.parse(out.stdout) as Tests));
      // GeoRisk (α = 1) over the whole track, the reference's included, as the CLI computes it
      const geo = (JSON.parse(out.stdout) as SignificanceReport).georisk!['ndcg_cut_10']!.alpha['1']!;
      expect(await p.getByTestId('track-reference-geo').textContent()).toBe(geo[0]!.georisk.toFixed(4));
      const geoShown = await runRows.evaluateAll((rows) =>
        Object.fromEntries(rows.map((r) => [r.getAttribute('data-run'), r.querySelectorAll('td')[9]?.textContent ?? ''])),
      );
      expect(geoShown).toEqual(Object.fromEntries(geo.slice(1).map((g) => [g.name, g.georisk.toFixed(4)])));

      // The Tukey HSD groups as the CLI prints them ("  a: Anserini, run3, …"): the reference's row shows its own
      // letters, and every run's row its letters.
      const text = formatSignificance(JSON.parse(out.stdout) as SignificanceReport);
      const letters: Record<string, string> = {};
      for (const [, letter, names] of text.slice(text.indexOf('groups the test cannot tell apart')).matchAll(/^ {2}([a-z]): (.+)$/gm))
        for (const name of names!.split(', ')) letters[name] = (letters[name] ?? '') + letter!;
      expect(letters['Anserini']).toMatch(/^[a-z]+$/);
      expect(await p.getByTestId('track-reference').locator('tr[data-reference="Anserini"]').count()).toBe(1);
      expect(await p.getByTestId('track-reference-group').textContent()).toBe(letters['Anserini']);
      const shown = await runRows.evaluateAll((rows) =>
        Object.fromEntries(rows.map((r) => [r.getAttribute('data-run'), r.querySelectorAll('td')[10]?.textContent ?? ''])),
      );
      expect(shown).toEqual(Object.fromEntries(order.map((name) => [name, letters[name] ?? ''])));

      // Each row's broken and fixed at k = 10 are fliplab flips' for that run.
      const picked = order[5]!;
      const flips = await cli(['flips', qrels, '--reference', paths[0]!, '--candidate', pathOf(picked), '--depths', '10', '--json']);
      const at10 = (JSON.parse(flips.stdout) as { depths: { candidates: { broken: number; fixed: number }[] }[] }).depths[0]!
        .candidates[0]!;
      const cells = await table.locator(`tr[data-run="${picked}"] td`).allTextContents();
      expect(cells[5]).toBe(String(at10.broken));
      expect(cells[6]).toBe(String(at10.fixed));

      // Sorting by broken puts the fewest first; by Δ, the largest first.
      await p.getByTestId('track-sort-broken').click();
      const broken = await runRows.evaluateAll((rows) => rows.map((r) => Number(r.querySelectorAll('td')[5]?.textContent)));
      expect(broken).toEqual([...broken].sort((a, b) => a - b));
      await p.getByTestId('track-sort-diff').click();
      const first = await runRows.first().getAttribute('data-run');
      const best = [...exported.rows].sort((a, b) => b.mean_diff - a.mean_diff || a.candidate.localeCompare(b.candidate))[0]!.candidate;
      expect(first).toBe(best);

      // On a phone the table scrolls sideways with each run's name in view, its caption wrapped, nothing cut.
      await p.setViewportSize({ width: 390, height: 844 });
      await p.getByTestId('track').scrollIntoViewIfNeeded();
      expect(await unreadableTableText(p, '[data-testid="track"]')).toEqual([]);
      await p.setViewportSize({ width: 1440, height: 900 });

      // "Analyse" makes a run the candidate of the full analysis.
      await p.getByTestId(`track-pick-${picked}`).click();
      await expect.poll(() => analysisRuns(p), { timeout: 30_000 }).toBe(`Anserini,${picked}`);
    } finally {
      await context.close();
    }
  }, 300_000);
});
