/**
 * Answer-level flips in the lab (the paper's §3.5), end to end (lab-session.ts: the production build, the local
 * hub server with the generated reader in the hub's layout, Debian chromium): gold answers read from the queries'
 * metadata, the flip set answered by a reader, the table equal to `fliplab answers flips --json` on the exported
 * runs and answers (with the metadata's gold and with a gold file); the explorer's answers; a reload keeps answers
 * and gold; the same reader as a folder picked from disk; a malformed predictions file said by file and line.
 *
 * Every request of the test to the default hosts stays on the local server (checked after it).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR } from '../../scripts/models/make-fixtures.ts';
import { answerTokens } from '../../src/core/answers/normalize.ts';
import { LAYOUT_REPOS } from '../support/hub-layouts.ts';
import type { HubServer } from '../support/hub-server.ts';
import { writeQaCollection } from '../support/qa-collection.ts';
import { cli } from './harness.ts';
import { type Lab, useLabSession, openAddRetriever, row } from './lab-session.ts';

let lab: Lab;
let work: string;
let server: HubServer;
let browser: Browser;

useLabSession('answers', (l) => {
  lab = l;
  ({ work, server, browser } = l);
});

/** The answers panel at k = 2 with the generated decoder from the hub-layout server, fp32. */
async function chooseTinyReader(p: Page): Promise<void> {
  await p.getByTestId('answer-k').fill('2');
  await p.getByTestId('reader-preset').selectOption('custom');
  await p.getByTestId('reader-model').fill(LAYOUT_REPOS.reader);
  await p.getByTestId('reader-dtype').selectOption('fp32');
}

describe('answer-level flips (the paper’s §3.5)', () => {
  it('reads gold from the queries’ metadata, answers the flip set with a reader, and shows the table the CLI computes from the exported answers', async () => {
    const qa = writeQaCollection(join(work, 'qa'));
    const { context: c, page: p } = await lab.openLab(browser);
    try {
      await p.getByTestId('pick-folder').setInputFiles(qa.dir);
      await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/150 passages.*30 queries/s);
      await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      await openAddRetriever(p);
      await p.getByTestId('add-rm3').click();
      await expect.poll(() => row(p, 'bm25-rm3').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      const panel = p.getByTestId('answers-panel');
      await expect
        .poll(() => p.getByTestId('gold-status').textContent(), { timeout: 30_000 })
        .toMatch(/Gold answers: 30 queries \(from queries metadata\)/);
      await chooseTinyReader(p);
      await expect.poll(() => p.getByTestId('answer-flip-table').textContent(), { timeout: 30_000 }).toMatch(/bm25-rm3\s*[1-9]\d* flips/);
      await p.getByTestId('reader-run').click();
      // Done when the job is gone and every run has the answers its flip and control queries need.
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 120_000 }).toBe(1);
      expect(await panel.getByTestId('answers-error').count()).toBe(0);
      const counts = await p
        .locator('[data-testid="answer-runs"] tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [
            r.querySelector('td')!.textContent!.trim(),
            r.querySelector('[data-testid="answer-count"]')!.textContent!.trim(),
          ]),
        );
      for (const [needed, have] of counts) expect(have!.split(' ')[0]).toBe(needed);

      // The exports, then the CLI on them.
      const ref = await lab.saveDownload(p, () => p.locator('tr[data-run="bm25"] [data-testid="export-answers"]').click());
      const cand = await lab.saveDownload(p, () => p.locator('tr[data-run="bm25-rm3"] [data-testid="export-answers"]').click());
      const table = JSON.parse((await lab.saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<
        string,
        unknown
      >;
      const runs: string[] = [];
      for (const name of ['bm25', 'bm25-rm3']) {
        await p.getByTestId('export-run-select').selectOption(name);
        runs.push((await lab.saveDownload(p, () => p.getByTestId('export-run').click())).path);
      }
      /** `fliplab answers flips --json` on the lab's exported runs and answers, with the given gold. */
      const flipsFromCli = async (gold: string) => {
        const r = await cli(
          ['answers', 'flips', join(qa.dir, 'qrels', 'test.tsv'), '--reference', runs[0]!, '--candidate', runs[1]!]
            .concat(['--name', 'bm25', '--name', 'bm25-rm3', '--gold', gold])
            .concat(['--reference-answers', ref.path, '--candidate-answers', cand.path, '--at', '2', '--json']),
        );
        expect(r.code).toBe(0);
        return JSON.parse(r.stdout) as Record<string, unknown>;
      };
      const fromCli = await flipsFromCli(join(qa.dir, 'queries.jsonl'));
      // The Export panel offers the same table, and every run's answers in one file (each line names its run).
      expect(JSON.parse((await lab.saveDownload(p, () => p.getByTestId('export-answers-table').click())).text)).toEqual(table);
      const all = (await lab.saveDownload(p, () => p.getByTestId('export-all-answers').click())).text.trim().split('\n');
      expect(all).toHaveLength(ref.text.trim().split('\n').length + cand.text.trim().split('\n').length);
      // Warnings are each tool's own (the CLI also reports parsing notes); every number and set is the same.
      expect({ ...table, warnings: [] }).toEqual({ ...fromCli, warnings: [] });
      expect((table.candidates as { flips: number }[])[0]!.flips).toBeGreaterThan(0);

      // Gold from a file, made so that some reference answers are right and the candidate's are not: the
      // regressions are then non-zero, and the lab and the CLI must still agree on every count.
      const predictionsOf = (text: string) =>
        new Map(
          text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { query_id: string; prediction: string })
            .map((r) => [r.query_id, answerTokens(r.prediction)]),
        );
      const refAnswers = predictionsOf(ref.text);
      const candAnswers = predictionsOf(cand.text);
      const goldRows = [...refAnswers].map(([q, tokens]) => {
        const own = tokens.find((t) => !(candAnswers.get(q) ?? []).includes(t));
        return { query_id: q, answers: [own ?? 'zzz-never'] };
      });
      const goldFile = join(work, 'qa-gold.jsonl');
      await writeFile(goldFile, goldRows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      await p.getByTestId('gold-file').setInputFiles(goldFile);
      await expect.poll(() => p.getByTestId('gold-status').textContent(), { timeout: 10_000 }).toMatch(/from qa-gold\.jsonl/);
      const regressed = JSON.parse((await lab.saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<
        string,
        unknown
      > & { candidates: { regressions_among_flips: { count: number } }[] };
      const fromGoldFile = await flipsFromCli(goldFile);
      expect({ ...regressed, warnings: [] }).toEqual({ ...fromGoldFile, warnings: [] });
      expect(regressed.candidates[0]!.regressions_among_flips.count).toBeGreaterThan(0);

      // The explorer shows both answers under both rankings, scored.
      const flipQuery = (table.candidates as { flip_queries: string[] }[])[0]!.flip_queries[0]!;
      await p.evaluate((q) => (location.hash = `${location.hash}&q=${encodeURIComponent(q)}`), flipQuery);
      await expect
        .poll(() => p.locator('section[aria-labelledby="explorer-heading"] [data-testid="answer"]').count(), { timeout: 30_000 })
        .toBe(2);
      expect(await p.locator('[data-testid="answer"]').first().textContent()).toMatch(
        /Answer from this run.s top 2: .*(✓ correct|✗ incorrect)/s,
      );

      // A reload keeps the answers (asking again finds every one in the cache) and the gold file (kept for the collection).
      await p.reload();
      await expect.poll(() => row(p, 'bm25-rm3').getAttribute('data-status'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => p.getByTestId('gold-status').textContent(), { timeout: 30_000 }).toMatch(/from qa-gold\.jsonl, kept/);
      await chooseTinyReader(p);
      await expect.poll(() => p.getByTestId('reader-run').isEnabled(), { timeout: 30_000 }).toBe(true);
      await p.getByTestId('reader-run').click();
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 60_000 }).toBe(1);
      const again = JSON.parse((await lab.saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<
        string,
        unknown
      >;
      expect(again).toEqual(regressed);

      // The same model as a folder picked from disk: nothing fetched for it, the same answers (a new cache
      // key, the folder's fingerprint, so they are generated again, not read back).
      const before = server.requests.length;
      await p.getByTestId('reader-preset').selectOption('folder');
      await p.getByTestId('reader-dtype').selectOption('fp32');
      await p.getByTestId('reader-folder').setInputFiles(join(DEFAULT_MODELS_DIR, LAYOUT_REPOS.reader));
      await expect
        .poll(() => p.getByTestId('reader-folder-status').textContent(), { timeout: 30_000 })
        .toMatch(/local\/tiny-gpt2 \(fp32\)/);
      await p.getByTestId('reader-run').click();
      await expect
        .poll(() => p.locator('tr[data-run="bm25-rm3"] [data-testid="answer-count"]').textContent(), { timeout: 60_000 })
        .toMatch(/\(local\/tiny-gpt2 \(fp32/);
      await expect.poll(() => p.getByTestId('reader-run').count(), { timeout: 60_000 }).toBe(1);
      expect(await panel.getByTestId('answers-error').count()).toBe(0);
      const fromFolder = await lab.saveDownload(p, () => p.locator('tr[data-run="bm25"] [data-testid="export-answers"]').click());
      const byQuery = (text: string) =>
        Object.fromEntries(
          text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { query_id: string; prediction: string })
            .map((r) => [r.query_id, r.prediction]),
        );
      // These answers are the folder reader's own (its name in every line), and they equal the hub reader's.
      for (const line of fromFolder.text.trim().split('\n'))
        expect((JSON.parse(line) as { source: string }).source).toMatch(/^local\/tiny-gpt2 \(fp32/);
      expect(byQuery(fromFolder.text)).toEqual(byQuery(ref.text));
      expect(server.requests.slice(before).filter((r) => r.includes('tiny-gpt2'))).toEqual([]);

      // Bad input: a malformed predictions file names file and line, and loses nothing.
      const bad = join(work, 'bad-predictions.jsonl');
      await writeFile(bad, '{"query_id": "q1", "prediction": "red"}\nnot json\n');
      await p.locator('tr[data-run="bm25"] [data-testid="predictions-file"]').setInputFiles(bad);
      await expect
        .poll(() => panel.getByTestId('answers-error').textContent(), { timeout: 10_000 })
        .toMatch(/bad-predictions\.jsonl.*line 2/);
      const still = JSON.parse((await lab.saveDownload(p, () => p.getByTestId('export-answer-table').click())).text) as Record<
        string,
        unknown
      >;
      expect(still).toEqual(regressed);
    } finally {
      await c.close();
    }
  }, 240_000);
});
