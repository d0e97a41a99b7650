/**
 * Never trust a device (or a dtype) that disagrees, in the lab as a user meets it (the production build, the local
 * hub, Debian chromium): before encoding on anything but WASM fp32 the encode worker checks the path against
 * WASM fp32 on a sample of the collection (src/encoders/agreement.ts). The models are generated, and so are their
 * faults — half precision's own, not a fake (scripts/models/precision-traps.ts):
 * - `fliplab/tiny-bert-offset` fp16 disagrees: refused before its job starts, the numbers on its row, and the
 *   reference path one click away;
 * - `fliplab/tiny-bert` fp16 agrees (SwiftShader lacks shader-f16, so fp16 runs on WASM: WASM fp16 against WASM
 *   fp32), and so does its fp32 on WebGPU (SwiftShader): both encode, and their recipes say what ran them;
 * - `fliplab/tiny-bert-overflow` fp16 turns a text holding "÷" into NaN: the sample (without it) agrees, and
 *   the job stops at its first batch, storing nothing of it.
 *
 * The collection is the user's own folder: 10 judged queries and 60 passages, the shortest of which holds "÷"
 * and sits where the sample does not look.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  makeModelFixtures,
  makeTrapFixtures,
  TINY_BERT,
  TINY_BERT_OFFSET,
  TINY_BERT_OVERFLOW,
} from '../../scripts/models/make-fixtures.ts';
import { GLITCH_TOKEN } from '../../scripts/models/precision-traps.ts';
import { AGREEMENT_SAMPLE, evenlySpaced } from '../../src/encoders/agreement.ts';
import { launchChromium } from './browser.ts';
import { e2eSetup, linkFixtureModels } from './harness.ts';
import { Lab, openAddRetriever, row } from './lab-session.ts';

const SETUP_TIMEOUT_MS = 240_000;
const TEST_TIMEOUT_MS = 180_000;
const MAX_TOKENS = 32;

const TOPICS = ['ocean tides and the moon', 'river water in the old city', 'cancer cells and proteins', 'the sun and its light'];
const QUERIES = Array.from({ length: 10 }, (_, i) => `what is known about ${TOPICS[i % 4]} (question ${i})`);
const PASSAGES = 60;
/** The first position the sample skips: the glitch passage goes there. */
const GLITCH_AT = Array.from({ length: PASSAGES }, (_, i) => i).find(
  (i) => !evenlySpaced(PASSAGES, AGREEMENT_SAMPLE.passages).includes(i),
)!;
const passageText = (i: number) =>
  i === GLITCH_AT ? `${GLITCH_TOKEN} x` : `passage ${i} about ${TOPICS[i % 4]} ${'with more words here '.repeat(1 + (i % 3))}`.trim();

let lab: Lab;
let folder: string;

beforeAll(async () => {
  await Promise.all([makeModelFixtures(), makeTrapFixtures()]);
  lab = new Lab(
    await e2eSetup({
      name: 'agreement',
      site: 'app',
      prepare: async (work) => {
        // The user's own BEIR folder.
        folder = join(work, 'own');
        await mkdir(join(folder, 'qrels'), { recursive: true });
        const corpus = Array.from({ length: PASSAGES }, (_, i) => JSON.stringify({ _id: `d${i}`, title: '', text: passageText(i) }));
        await writeFile(join(folder, 'corpus.jsonl'), `${corpus.join('\n')}\n`);
        await writeFile(join(folder, 'queries.jsonl'), `${QUERIES.map((text, i) => JSON.stringify({ _id: `q${i}`, text })).join('\n')}\n`);
        const qrels = QUERIES.map((_, i) => `q${i}\td${(i * 7) % PASSAGES === GLITCH_AT ? 1 : (i * 7) % PASSAGES}\t1`);
        await writeFile(join(folder, 'qrels/test.tsv'), `query-id\tcorpus-id\tscore\n${qrels.join('\n')}\n`);
        return { modelsRoot: await linkFixtureModels(join(work, 'models'), [TINY_BERT.id, TINY_BERT_OFFSET.id, TINY_BERT_OVERFLOW.id]) };
      },
    }),
  );
}, SETUP_TIMEOUT_MS);
beforeEach(() => {
  if (lab) lab.requested = [];
});
afterEach(() => {
  expect(lab?.foreignRequests()).toEqual([]);
});
afterAll(async () => {
  await lab?.close();
});

/** The user's folder opened, then an encoder added with the BGE recipe (CLS pooling): its row id. */
async function encode(p: Page, model: string, dtype: 'fp32' | 'fp16'): Promise<string> {
  await p.getByTestId('pick-folder').setInputFiles(folder);
  await expect.poll(() => p.getByTestId('collection-summary').textContent(), { timeout: 60_000 }).toMatch(/60 passages/);
  await openAddRetriever(p);
  await p.getByTestId('encoder-preset').selectOption('bge-small');
  await p.getByTestId('encoder-model').fill(model);
  await p.getByTestId('encoder-dtype').selectOption(dtype);
  await p.getByTestId('encoder-max-length').fill(String(MAX_TOKENS));
  await p.getByTestId('add-encoder').click();
  return `bge-small:${model}${dtype === 'fp32' ? '' : `-${dtype}`}-max${MAX_TOKENS}`;
}

const settled = (p: Page, id: string) =>
  expect.poll(() => row(p, id).getAttribute('data-status'), { timeout: TEST_TIMEOUT_MS }).toMatch(/^(ready|error|cancelled)$/);

/** The row's recipe, label → value (the same lines every export carries). */
async function recipe(p: Page, id: string): Promise<Record<string, string>> {
  const details = p.getByTestId(`recipe-${id}`);
  await details.locator('summary').click();
  const labels = await details.locator('dt').allTextContents();
  const values = await details.locator('dd').allTextContents();
  return Object.fromEntries(labels.map((l, i) => [l.trim(), values[i]!.trim()]));
}

describe('the agreement check in the lab', () => {
  it(
    'refuses fp16 weights that disagree with WASM fp32 before the job starts, shows the numbers, and offers the reference path',
    async () => {
      const { context, page: p } = await lab.openLab(lab.browser);
      const id = await encode(p, TINY_BERT_OFFSET.id, 'fp16');
      await settled(p, id);
      expect(await row(p, id).getAttribute('data-status')).toBe('error');
      const said = (await row(p, id).textContent())!;
      console.info(`[e2e] ${TINY_BERT_OFFSET.id} fp16: ${said.replace(/\s+/g, ' ').trim()}`);
      expect(said).toMatch(
        /wasm fp16 disagrees with the reference \(WASM fp32\) on a sample of the collection: min cosine 0\.\d{3} < 0\.99/,
      );
      expect(said).toMatch(/min cosine 0\.\d{3}, median 0\.\d{3}, top-10 overlap [01]\.\d\d \(8 queries × 32 passages\)/);
      // Refused before its job: nothing encoded, no run to analyse.
      expect(Number(await row(p, id).getAttribute('data-encoded-docs'))).toBe(0);
      // Both files were read: the reference's fp32 weights, then the path's fp16 ones.
      const weights = lab.requested.filter((u) => u.includes(TINY_BERT_OFFSET.id)).map((u) => u.replace(/^.*\//, ''));
      expect(weights).toEqual(expect.arrayContaining(['model.onnx', 'model_fp16.onnx']));
      // One click to the reference path: the fp32 weights on WASM, a run of its own; the refusal stays on its row.
      const use = p.getByTestId(`use-path-${id}`);
      expect(await use.textContent()).toMatch(/Use the reference path \(WASM, fp32 weights\)/);
      await use.click();
      const reference = `bge-small:${TINY_BERT_OFFSET.id}-max${MAX_TOKENS}`;
      await settled(p, reference);
      expect(await row(p, reference).getAttribute('data-status')).toBe('ready');
      expect(await row(p, reference).getAttribute('data-device')).toBe('wasm');
      expect(await row(p, id).getAttribute('data-status')).toBe('error');
      await context.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'lets a path that agrees encode, and its recipe records the check, the device, dtype, threads and versions',
    async () => {
      const { context, page: p } = await lab.openLab(lab.browser);
      const id = await encode(p, TINY_BERT.id, 'fp16');
      await settled(p, id);
      expect(await row(p, id).getAttribute('data-status'), (await row(p, id).textContent()) ?? '').toBe('ready');
      const r = await recipe(p, id);
      console.info(`[e2e] ${TINY_BERT.id} fp16 recipe: ${JSON.stringify(r)}`);
      expect(r).toMatchObject({
        dtype: 'fp16',
        device: 'wasm',
        'wasm threads': expect.stringMatching(/^\d+$/),
        'ONNX Runtime': expect.stringMatching(/^onnxruntime-web \d+\.\d+\.\d+/),
        'transformers.js': expect.stringMatching(/^transformers\.js 4\.\d+\.\d+$/),
        'agreement with WASM fp32': expect.stringMatching(
          /^passed: min cosine (0\.99\d{3}|1\.00000), median (0\.99\d{3}|1\.00000), top-10 overlap \d\.\d\d \(8 queries × 32 passages\)$/,
        ),
      });
      await context.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'checks fp32 on WebGPU (SwiftShader) against WASM, lets it encode, and names the adapter in the recipe',
    async () => {
      const gpu = await launchChromium({ webgpu: true });
      try {
        const { context, page: p } = await lab.openLab(gpu, { device: 'webgpu' });
        const id = await encode(p, TINY_BERT.id, 'fp32');
        await settled(p, id);
        expect(await row(p, id).getAttribute('data-status'), (await row(p, id).textContent()) ?? '').toBe('ready');
        expect(await row(p, id).getAttribute('data-device')).toBe('webgpu');
        const r = await recipe(p, id);
        console.info(`[e2e] ${TINY_BERT.id} fp32 on webgpu recipe: ${JSON.stringify(r)}`);
        expect(r.device).toMatch(/^webgpu \(google swiftshader/);
        expect(r['agreement with WASM fp32']).toMatch(/^passed: min cosine (0\.999\d\d|1\.00000), median/);
        await context.close();
      } finally {
        await gpu.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops a job whose fp16 arithmetic overflows into NaN at its first batch, storing nothing of it',
    async () => {
      const { context, page: p } = await lab.openLab(lab.browser);
      const id = await encode(p, TINY_BERT_OVERFLOW.id, 'fp16');
      await settled(p, id);
      expect(await row(p, id).getAttribute('data-status')).toBe('error');
      const said = (await row(p, id).textContent())!;
      console.info(`[e2e] ${TINY_BERT_OVERFLOW.id} fp16: ${said.replace(/\s+/g, ' ').trim()}`);
      // The sample has no "÷": the check passed, the queries were encoded, and the passages' first batch stopped it.
      expect(said).toMatch(/batch 1 on wasm fp16 gave 1 of \d+ vectors with NaN or ∞ \(the first: passage \d+\), so the job stopped there/);
      expect(Number((await row(p, id).getAttribute('data-encoded-docs')) || 0)).toBe(0);
      expect(await p.getByTestId(`use-path-${id}`).textContent()).toMatch(/Use the reference path/);
      await context.close();
    },
    TEST_TIMEOUT_MS,
  );
});
