/**
 * A folder of text files with no queries becomes a test collection in the lab (production build, Debian's chromium,
 * models from a local hub): the reader preset `onnx-community/Qwen2.5-0.5B-Instruct` holds the generated decoder, the
 * judge preset `Xenova/ms-marco-MiniLM-L-6-v2` the generated cross-encoder.
 *   - the lab refuses the folder for having no queries and offers *Make queries*; the sample is stratified by folder;
 *   - the reader writes one query a passage, the ones onnxruntime-node writes from the same prompts;
 *   - one query edited, one deleted, one typed, all back after a reload; *Use these queries* opens the documents with
 *     them, labelled;
 *   - the judge fills the holes, and the headline says "synthetic queries, model judgments" and what rests on them;
 *   - the BEIR folder the lab exports opens in the CLI: `fliplab bm25` on it ranks as the lab did, and the command its
 *     README gives (`fliplab flips … --model-qrels model.qrels`) reproduces the lab's numbers.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_DIR,
  makeJudgeFixtures,
  makeReaderFixtures,
  TINY_CROSS_ENCODER,
  TINY_READER,
} from '../../scripts/models/make-fixtures.ts';
import { cleanQuery, QUERY_WRITER, writerMessages } from '../../src/core/judging/synthetic.ts';
import { JUDGE_PRESETS } from '../../src/encoders/judge-presets.ts';
import { READER_PRESETS } from '../../src/encoders/reader-presets.ts';
import { loadReader } from '../../src/encoders/reader.ts';
import type { HubServer } from '../support/hub-server.ts';
import { cli, e2eSetup, linkFixtureModels, ROOT, saveDownload, type E2e } from './harness.ts';
import { hubVisitor, judgeWith, storedVerdicts } from './model-judging.ts';

const READER = READER_PRESETS['qwen2.5-0.5b'];
const CE_REPO = JUDGE_PRESETS['ms-marco-minilm'].model;

let work: string;
let docs: string;
let e2e: E2e;
let server: HubServer;
/** The documents by id, as the lab reads them (id: the path without extension; title: the file name). */
const texts = new Map<string, string>();

beforeAll(async () => {
  await Promise.all([makeJudgeFixtures(), makeReaderFixtures()]);
  e2e = await e2eSetup({
    name: 'make-queries',
    site: 'app',
    webgpu: false,
    prepare: async (dir) => {
      work = dir;
      // 40 passages of the classroom collection, in two folders.
      docs = join(work, 'mydocs');
      const lines = (await readFile(join(ROOT, 'examples/demo-beir/corpus.jsonl'), 'utf8')).trim().split('\n').slice(0, 40);
      for (const [i, line] of lines.entries()) {
        const d = JSON.parse(line) as { _id: string; text: string };
        const id = `${i < 20 ? 'sea' : 'sky'}/${d._id}`;
        await mkdir(join(docs, dirname(id)), { recursive: true });
        await writeFile(join(docs, `${id}.txt`), `${d.text}\n`);
        texts.set(id, d.text);
      }
      const models = await linkFixtureModels(join(work, 'models'), [
        [CE_REPO, TINY_CROSS_ENCODER.id],
        [READER.model, TINY_READER.id],
      ]);
      return { modelsRoot: models };
    },
  });
  ({ server } = e2e);
}, 240_000);

afterAll(async () => {
  await e2e?.close();
});

const headline = (p: Page) => p.getByTestId('headline').textContent();
const analysisRuns = (p: Page) => p.locator('section[aria-labelledby="analysis-heading"]').getAttribute('data-runs');

/** What the reader writes in Node (onnxruntime-node), from the prompt the lab gives it for this passage. */
async function nodeQueries(ids: readonly string[]): Promise<string[]> {
  const reader = await loadReader(
    { id: READER.id, label: READER.label, model: TINY_READER.id, revision: 'main', dtype: READER.dtype },
    { device: 'cpu', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
  );
  try {
    const out: string[] = [];
    for (const id of ids) {
      const messages = writerMessages(QUERY_WRITER, { id, title: id.slice(id.lastIndexOf('/') + 1), text: texts.get(id)! });
      out.push(cleanQuery((await reader.answer(messages, QUERY_WRITER)).text));
    }
    return out;
  } finally {
    await reader.dispose();
  }
}

describe('make queries for a folder of documents', () => {
  it('writes, edits, judges, analyses and exports a collection the CLI reproduces', async () => {
    const context = await hubVisitor(e2e);
    const p = await context.newPage();
    const save = async (click: () => Promise<void>) => saveDownload(p, work, click);
    try {
      await p.goto(server.url);
      await p.getByTestId('pick-folder').setInputFiles(docs);
      await expect.poll(() => p.getByTestId('collection-error').textContent(), { timeout: 30_000 }).toMatch(/no queries found/);
      const maker = p.getByTestId('make-queries');
      await expect.poll(() => maker.isVisible(), { timeout: 10_000 }).toBe(true);

      // Typed queries alone would give no judgments: the panel says so before they are used.
      await p.getByTestId('make-typed').fill('a query of my own');
      await p.getByTestId('make-add').click();
      await expect.poll(() => p.getByTestId('make-no-sources').count(), { timeout: 10_000 }).toBe(1);
      await p.getByTestId('make-delete').click();
      expect(await p.getByTestId('make-row').count()).toBe(0);

      // 12 of 40 passages, written by the reader.
      await p.getByTestId('make-count').fill('12');
      await p.getByTestId('make-write').click();
      await expect.poll(() => p.getByTestId('make-write').count(), { timeout: 120_000 }).toBe(1);
      expect(await p.getByTestId('make-error').count()).toBe(0);
      expect(await p.getByTestId('make-sample').textContent()).toMatch(/^12 passages drawn from 40, stratified by folder \(2\) and length/);
      const rows = p.getByTestId('make-row');
      expect(await rows.count()).toBe(12);
      const sources = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-source') ?? ''));
      // Proportional shares of two folders of 20: 6 each.
      expect(sources.filter((s) => s.startsWith('sea/'))).toHaveLength(6);
      const written = await p.getByTestId('make-query').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
      expect(written).toEqual(await nodeQueries(sources));
      expect(written.filter((q) => q !== '').length).toBeGreaterThan(6);

      // Edit the first written query, delete the second, type one.
      const firstWritten = written.findIndex((q) => q !== '');
      await p.getByTestId('make-query').nth(firstWritten).fill('how do lighthouses warn ships');
      expect(await rows.nth(firstWritten).getAttribute('data-origin')).toBe('edited');
      const secondWritten = written.findIndex((q, i) => q !== '' && i > firstWritten);
      await p.getByTestId('make-delete').nth(secondWritten).click();
      await p.getByTestId('make-typed').fill('why do ships need light at night');
      await p.getByTestId('make-add').click();
      const listed = async () =>
        p
          .getByTestId('make-row')
          .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-origin')}:${(e.querySelector('input') as HTMLInputElement).value}`));
      // An imported file of queries; one that holds none is refused with its name.
      await writeFile(join(work, 'more.tsv'), 'x1\twhat guides ships along the coast\n');
      await p.getByTestId('make-import').setInputFiles(join(work, 'more.tsv'));
      await expect.poll(listed, { timeout: 10_000 }).toContain('imported:what guides ships along the coast');
      await writeFile(join(work, 'not-queries.run'), 'q1 Q0 d1 1 1.0 mine\n');
      await p.getByTestId('make-import').setInputFiles(join(work, 'not-queries.run'));
      await expect
        .poll(() => p.getByTestId('make-error').textContent(), { timeout: 10_000 })
        .toMatch(/^not-queries\.run: expected queries/);
      // Two passages more: a new draw keeps every row as it was (the edit, the deletion, typed and imported queries).
      const deletedSource = sources[secondWritten]!;
      await p.getByTestId('make-count').fill('14');
      await p.getByTestId('make-write').click();
      await expect.poll(() => p.getByTestId('make-write').count(), { timeout: 120_000 }).toBe(1);
      const redrawn = await listed();
      expect(redrawn).toContain('edited:how do lighthouses warn ships');
      expect(redrawn).toContain('typed:why do ships need light at night');
      expect(redrawn).toContain('imported:what guides ships along the coast');
      expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-source')))).not.toContain(deletedSource);
      expect(redrawn.length).toBeGreaterThan(13);
      const used = redrawn.filter((r) => !r.endsWith(':')).length;
      // A reload loses nothing: the same folder picked again brings the list back as it was.
      const before = await listed();
      await p.reload();
      await p.getByTestId('pick-folder').setInputFiles(docs);
      await expect.poll(listed, { timeout: 30_000 }).toEqual(before);
      expect(before).toContain('edited:how do lighthouses warn ships');
      expect(before).toContain('typed:why do ships need light at night');
      await expect.poll(() => p.getByTestId('make-use').textContent()).toBe(`Use these ${used} queries`);
      await p.getByTestId('make-use').click();

      await expect
        .poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(new RegExp(`mydocs.*40 passages.*${used} queries`, 's'));
      expect(await maker.count()).toBe(0);
      await p.getByTestId('add-rm3').click();
      await expect.poll(() => analysisRuns(p), { timeout: 60_000 }).toBe('bm25,bm25-rm3');
      expect(await p.getByTestId('headline-synthetic').textContent()).toMatch(
        new RegExp(
          `^Synthetic queries, judged by their source passages alone .*${used} queries made for the documents: ${used - 2} ` +
            `written by ${READER.model.replace(/[.]/g, '\\.')} from sampled passages \\(1 edited by hand\\), 1 typed, 1 imported;`,
        ),
      );

      // The judge fills the holes; its threshold at the 70th percentile of its scores here, so some holes are relevant.
      await judgeWith(p, 'ms-marco-minilm', 2000, 4, '100');
      const scores = (await storedVerdicts(p)).map((v) => v.score);
      expect(scores.length).toBeGreaterThan(4);
      const sorted = [...scores].sort((a, b) => a - b);
      await judgeWith(p, 'ms-marco-minilm', 2000, 4, String(sorted[Math.floor(0.7 * sorted.length)]));
      expect(await p.getByTestId('judge-layer-summary').textContent()).toMatch(/0 were judged now/);
      await expect.poll(() => p.getByTestId('holes-model').isChecked(), { timeout: 30_000 }).toBe(true);
      await expect
        .poll(() => p.getByTestId('headline-synthetic').textContent(), { timeout: 30_000 })
        .toMatch(/^Synthetic queries, model judgments\./);
      await expect.poll(() => headline(p), { timeout: 30_000 }).toMatch(/rests? on model labels/);
      // The audit: the judge on each query's own source passage, relevant by construction.
      expect(await p.getByTestId('judge-audit-sentence').textContent()).toMatch(
        /^Of \d+ quer(y|ies) with the passage it was written from, the model judges \d+% relevant\.$/,
      );

      // Settings → Storage counts the verdicts and the written queries (and deletes the verdicts: at the end).
      await p.getByTestId('storage-refresh').click();
      await expect
        .poll(() => p.getByTestId('stored-verdicts').textContent(), { timeout: 10_000 })
        .toMatch(new RegExp(`^\\s*${scores.length} verdicts of model judges cached`));
      expect(Number(/(\d+) answers? cached/.exec((await p.getByTestId('stored-answers').textContent()) ?? '')?.[1])).toBe(14);

      // The exports say so.
      const report = JSON.parse((await save(() => p.getByTestId('export-report-json').click())).text) as {
        depths: {
          k: number;
          candidates: { name: string; broken: number; fixed: number; broken_on_model_labels: number; fixed_on_model_labels: number }[];
        }[];
        synthetic_queries: { queries: { edited: number; typed: number; imported: number; deleted: number } };
        recipes: Record<string, Record<string, string>>;
      };
      expect(report.synthetic_queries.queries).toMatchObject({ edited: 1, typed: 1, imported: 1, deleted: 1 });
      // Each run's recipe says what it ranked and whose labels judge it.
      expect(report.recipes['bm25-rm3']!['queries']).toMatch(/^synthetic: \d+ queries made for the documents/);
      expect(report.recipes['bm25-rm3']!['judgments']).toBe('source passages, holes filled by MS MARCO MiniLM-L-6 cross-encoder');
      expect((await save(() => p.getByTestId('export-markdown').click())).text).toContain('Synthetic queries, model judgments.');

      // The BEIR folder, in the CLI.
      const zip = await save(() => p.getByTestId('export-beir').click());
      const folder = join(work, 'exported');
      for (const [path, bytes] of Object.entries(unzipSync(await readFile(zip.path)))) {
        await mkdir(dirname(join(folder, path)), { recursive: true });
        await writeFile(join(folder, path), bytes);
      }
      const beir = join(folder, 'mydocs');
      const queries = (await readFile(join(beir, 'queries.jsonl'), 'utf8')).trim().split('\n');
      expect(queries).toHaveLength(used);
      expect(JSON.parse(queries.find((l) => l.includes('lighthouses warn'))!)).toMatchObject({ metadata: { origin: 'edited' } });
      // Each written query names its writer (a list may mix readers or prompts).
      const writers = queries.map((l) => (JSON.parse(l) as { metadata: { origin: string; writer?: string } }).metadata);
      for (const m of writers.filter((w) => w.origin === 'reader')) expect(m.writer).toBe(`${READER.model} (q8), fliplab-write-query@v1`);
      // The typed query has no source passage: the judge alone judged the passages the retrievers ranked for it.
      const typed = (JSON.parse(queries.find((l) => l.includes('ships need light'))!) as { _id: string })._id;
      const modelLines = (await readFile(join(beir, 'model.qrels'), 'utf8')).trim().split('\n');
      expect(modelLines.filter((l) => l.startsWith(`${typed} `)).length).toBeGreaterThan(0);
      const bm25 = await cli(['bm25', beir, '--out', join(work, 'bm25.run')]);
      expect(bm25.code, bm25.stderr).toBe(0);
      const labRun = (await readFile(join(beir, 'runs', 'bm25.run'), 'utf8')).trim().split('\n');
      const cliRun = (await readFile(join(work, 'bm25.run'), 'utf8')).trim().split('\n');
      // The CLI ranks the judged queries (every written one); the lab ranks the typed one too.
      expect(cliRun.length).toBeGreaterThan(0);
      expect(labRun.filter((l) => cliRun.includes(l))).toEqual(cliRun);

      const readme = await readFile(join(beir, 'README.md'), 'utf8');
      // Run from the folder, as the README says (its paths are the folder's).
      const command = /^npx fliplab (flips .*)$/m.exec(readme)![1]!.split(' ');
      const flips = await cli([...command.map((a) => (/^(qrels|runs)\/|^model\.qrels$/.test(a) ? join(beir, a) : a)), '--json']);
      expect(flips.code, flips.stderr).toBe(0);
      const pick = (r: typeof report) =>
        r.depths.map((d) => {
          const c = d.candidates[0]!;
          return [d.k, c.broken, c.fixed, c.broken_on_model_labels, c.fixed_on_model_labels];
        });
      expect(pick(report)).toEqual(pick(JSON.parse(flips.stdout) as typeof report));
      // The folder opens in the lab again: made queries, the runs, and the model layer named, not read as judgments.
      const again = await context.newPage();
      await again.goto(server.url);
      await again.getByTestId('pick-folder').setInputFiles(beir);
      await expect
        .poll(() => again.getByTestId('collection-summary').textContent(), { timeout: 60_000 })
        .toMatch(new RegExp(`40 passages.*${used} queries`, 's'));
      expect(await again.getByTestId('collection-error').count()).toBe(0);
      const said = (await again.locator('details.diagnostics li').allTextContents()).join('\n');
      expect(said).toMatch(/model\.qrels: ignored: a model's labels: import model\.qrels under Fill the holes with a model/);
      expect(said).not.toMatch(/split|not recognised/);
      expect(await again.getByTestId('collection-synthetic').textContent()).toMatch(
        new RegExp(`^${used} queries made for the documents: ${used - 2} written by`),
      );
      await again.close();

      await p.getByRole('button', { name: 'Delete all verdicts' }).click();
      await expect.poll(() => p.getByTestId('stored-verdicts').textContent(), { timeout: 10_000 }).toMatch(/^\s*0 verdicts/);
      console.log(
        `[e2e] made queries: ${JSON.stringify(written)}; headline: ${await headline(p)}; by depth: ${JSON.stringify(pick(report))}`,
      );
    } finally {
      await context.close();
    }
  }, 300_000);
});
