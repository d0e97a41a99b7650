/**
 * The reader in Debian's chromium: the generated decoder (fliplab/tiny-gpt2) served in the hub layout,
 * answering through the real bridge and encode worker on WASM and on WebGPU (SwiftShader here), must give
 * the answers onnxruntime-node gives in Node (greedy decoding: the same tokens). Answers are cached in
 * IndexedDB: a second call loads no model, and a reload mid-generation resumes where it stopped. A base
 * model (no chat template) is refused with a message that says so.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeReaderFixtures, TINY_READER, TINY_READER_BASE } from '../../scripts/models/make-fixtures.ts';
import { READER_TEMPLATE, readerMessages, type ReaderTask } from '../../src/core/answers/prompt.ts';
import { loadReader } from '../../src/encoders/reader.ts';
import type { HubServer } from '../support/hub-server.ts';
import { e2eSetup, linkFixtureModels, type E2e } from './harness.ts';

const SETUP_TIMEOUT_MS = 120_000;
const TEST_TIMEOUT_MS = 120_000;
const K = 3;

const PASSAGES = [
  { id: 'a', title: 'Tides', text: 'The moon pulls the ocean water; the tide is high twice a day.' },
  { id: 'b', title: 'Rivers', text: 'A river carries water from the rain to the sea through many countries.' },
  { id: 'c', title: '', text: 'The sun gives light and energy to every plant and animal on earth.' },
  { id: 'd', title: 'Cells', text: 'Every human cell has genes; a gene makes a protein with a role in the body.' },
];

/** Tasks as the lab builds them (core/answers/prompt.ts), each with a different question and top k. */
function tasks(n: number): ReaderTask[] {
  return Array.from({ length: n }, (_, i) => {
    const passages = [0, 1, 2].map((j) => PASSAGES[(i + j) % PASSAGES.length]!);
    const question = `what does the ${['moon', 'river', 'sun', 'gene'][i % 4]} do, question ${i + 1}?`;
    return {
      queryId: `q${i + 1}`,
      question,
      passageIds: passages.map((p) => p.id),
      messages: readerMessages(READER_TEMPLATE, question, passages),
    };
  });
}

interface Answered {
  readonly cached: number;
  readonly generated: number;
  readonly device: string | null;
  readonly reason: string | null;
  readonly predictions: (string | null)[];
  readonly tokensPerSecond: number | null;
  readonly downloaded: readonly string[];
  readonly externalWeights: { readonly tensors: number; readonly bytes: number; readonly lazy: boolean } | null;
}
type Failed = { readonly error: { readonly name: string; readonly message: string } };

let work: string;
let e2e: E2e;
let server: HubServer;
let browser: Browser;
let page: Page;

async function nodeAnswers(list: readonly ReaderTask[]): Promise<string[]> {
  const reader = await loadReader(
    { id: TINY_READER.id, label: TINY_READER.id, model: TINY_READER.id, revision: 'main', dtype: 'fp32' },
    { device: 'cpu', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
  );
  try {
    const out: string[] = [];
    for (const t of list) out.push((await reader.answer(t.messages, READER_TEMPLATE)).text);
    return out;
  } finally {
    await reader.dispose();
  }
}

const answer = (device: 'wasm' | 'webgpu', model: string, list: readonly ReaderTask[], db: string, on: Page = page) =>
  on.evaluate(([d, m, t, name, k]) => window.fliplabTest.tryAnswerTasks(d, m, t, name, k), [
    device,
    model,
    list,
    db,
    K,
  ] as const) as Promise<Answered | Failed>;

function ok(r: Answered | Failed): Answered {
  if ('error' in r) throw new Error(`browser: ${r.error.name}: ${r.error.message}`);
  return r;
}

beforeAll(async () => {
  await makeReaderFixtures();
  e2e = await e2eSetup({
    name: 'reader',
    site: 'pages',
    webgpu: true,
    prepare: async (dir) => {
      work = dir;
      return { modelsRoot: await linkFixtureModels(join(work, 'models'), [TINY_READER.id, TINY_READER_BASE.id]) };
    },
  });
  ({ server, browser } = e2e);
  page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}encode.html?cache=0`);
  await page.waitForFunction(() => 'fliplabTest' in window);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await e2e?.close();
});

describe('the reader in the browser', () => {
  const list = tasks(4);
  let expected: string[];

  it(
    'answers on WASM exactly as onnxruntime-node does, then from the cache without loading a model',
    async () => {
      expected = await nodeAnswers(list);
      expect(new Set(expected).size).toBeGreaterThan(1); // different passages, different answers: a real comparison
      const first = ok(await answer('wasm', TINY_READER.id, list, 'answers-wasm'));
      expect(first).toMatchObject({ cached: 0, generated: 4, device: 'wasm' });
      // the decoder's weights went to the runtime as external data (cache=0 here: pointing into the fetched bytes)
      expect(first.externalWeights).toMatchObject({ lazy: false });
      expect(first.externalWeights!.tensors).toBeGreaterThan(0);
      expect(first.predictions).toEqual(expected);
      expect(first.tokensPerSecond).toBeGreaterThan(0);
      // Byte progress reached the page for the weights (what the panel shows while a reader downloads).
      expect(first.downloaded).toContain('onnx/model.onnx');
      const again = ok(await answer('wasm', TINY_READER.id, list, 'answers-wasm'));
      expect(again).toMatchObject({ cached: 4, generated: 0, device: null, downloaded: [] });
      expect(again.predictions).toEqual(expected);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'with the model cache on (as the app runs), the runtime reads the weights from the stored file, same answers',
    async () => {
      const cached = await (await browser.newContext()).newPage();
      try {
        await cached.goto(`${server.url}encode.html?cache=1`);
        await cached.waitForFunction(() => 'fliplabTest' in window);
        const r = ok(await answer('wasm', TINY_READER.id, list, 'answers-wasm-cached', cached));
        expect(r.externalWeights).toMatchObject({ lazy: true });
        expect(r.externalWeights!.tensors).toBeGreaterThan(0);
        expect(r.downloaded).toContain('onnx/model.onnx');
        expect(r.predictions).toEqual(expected);
      } finally {
        await cached.context().close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers on WebGPU with the same tokens (one question: SwiftShader is slow)',
    async () => {
      const r = ok(await answer('webgpu', TINY_READER.id, list.slice(0, 1), 'answers-webgpu'));
      expect(r.reason).toBeNull();
      expect(r.device).toBe('webgpu');
      expect(r.predictions).toEqual(expected.slice(0, 1));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses a base model (no chat template) and says what to choose instead',
    async () => {
      const r = await answer('wasm', TINY_READER_BASE.id, list.slice(0, 1), 'answers-base');
      expect('error' in r).toBe(true);
      expect((r as Failed).error.message).toMatch(
        /tiny-gpt2-base has no chat template.*base model, not an instruct model.*Choose an instruct model/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'resumes after a reload mid-generation: stored answers are cache hits, the rest are generated, same answers',
    async () => {
      const many = tasks(40);
      const all = await nodeAnswers(many);
      await page.evaluate(([t, k]) => window.fliplabTest.startAnswers('wasm', 'fliplab/tiny-gpt2', t, 'answers-reload', k), [
        many,
        K,
      ] as const);
      await expect
        .poll(() => page.evaluate(() => window.fliplabTest.answersSoFar()), { timeout: 60_000, interval: 20 })
        .toBeGreaterThanOrEqual(3);
      await page.reload();
      await page.waitForFunction(() => 'fliplabTest' in window);
      const r = ok(await answer('wasm', TINY_READER.id, many, 'answers-reload'));
      expect(r.cached).toBeGreaterThanOrEqual(3);
      expect(r.cached).toBeLessThan(40);
      expect(r.cached + r.generated).toBe(40);
      expect(r.predictions).toEqual(all);
    },
    TEST_TIMEOUT_MS,
  );
});
