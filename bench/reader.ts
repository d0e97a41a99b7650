/**
 * Reader throughput (new tokens per second, prefill included: what a user waits for per answer) of the
 * generated GPT-2 decoder with the reader's real prompt (three passages, greedy, 24 new tokens):
 * onnxruntime-web WASM in headless Chromium (the real encode worker and bridge, answers going through the
 * IndexedDB cache as in the lab) against onnxruntime-node on the same model files, same machine, same run.
 * Two shapes: the tiny test fixture, and GPT-2 small (124M parameters, 768 × 12 layers, 50,257 tokens;
 * random weights generated into a temp dir, never committed), each fp32 and q8.
 *
 *   npm run bench:reader                 both shapes, fp32 and q8, WASM (threads = cores) vs native
 *   npm run bench:reader -- --webgpu     also WebGPU fp32 (for a machine with a real GPU; SwiftShader is slow)
 *   npm run bench:reader -- --smoke      tiny model, two questions: proves the script runs (CI)
 *   npm run bench:reader -- --writer     the query writer instead (Make queries): one passage of 150 words a
 *                                        prompt, at most 32 new tokens; also seconds per query
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MODELS_DIR, makeReaderFixtures, TINY_READER } from '../scripts/models/make-fixtures.ts';
import { writeFileContents } from '../scripts/models/tiny-bert.ts';
import { buildTinyGpt2, GPT2_BASE_SHAPE, tinyGpt2Files } from '../scripts/models/tiny-gpt2.ts';
import { READER_TEMPLATE, readerMessages, type ReaderTask } from '../src/core/answers/prompt.ts';
import { QUERY_WRITER, writerTasks } from '../src/core/judging/synthetic.ts';
import type { ReaderDtype } from '../src/encoders/reader-presets.ts';
import { loadReader } from '../src/encoders/reader.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { startHubServer } from '../test/support/hub-server.ts';

const BASE_MODEL = 'fliplab/gpt2-base-random';
const DTYPES = ['fp32', 'q8'] as const satisfies readonly ReaderDtype[];
const K = 3;

export interface ReaderBenchOptions {
  readonly smoke?: boolean;
  readonly webgpu?: boolean;
  /** Time the query writer (core/judging/synthetic.ts) instead of the reader. */
  readonly writer?: boolean;
  readonly log?: (line: string) => void;
}

export interface ReaderBenchRow {
  readonly model: string;
  readonly engine: string;
  readonly dtype: ReaderDtype;
  readonly tokensPerSecond: number;
  /** Wall time per prompt (prefill and generation), ms. */
  readonly msPerPrompt: number;
}

const WORDS = 'the moon pulls the ocean and the tide rises twice a day while rivers carry rain water to the sea'.split(' ');

/** Questions with three passages of ~60 words each: a prompt of a few hundred tokens, like a k = 3 reader call. */
function tasks(count: number, offset: number): ReaderTask[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    const passages = [0, 1, 2].map((j) => ({
      id: `d${n}-${j}`,
      title: `passage ${j + 1}`,
      text: Array.from({ length: 60 }, (_, w) => WORDS[(n * 5 + j * 7 + w) % WORDS.length]).join(' '),
    }));
    const question = `what does the ${WORDS[n % WORDS.length]} do (${n})?`;
    return {
      queryId: `q${n}`,
      question,
      passageIds: passages.map((p) => p.id),
      messages: readerMessages(READER_TEMPLATE, question, passages),
    };
  });
}

/** Prompts for the query writer: one passage of 150 words each, as *Make queries* gives it. */
function writerPrompts(count: number, offset: number): ReaderTask[] {
  const passages = Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    return { id: `p${n}`, title: `passage ${n}`, text: Array.from({ length: 150 }, (_, w) => WORDS[(n * 3 + w) % WORDS.length]).join(' ') };
  });
  return writerTasks(QUERY_WRITER, passages);
}

export async function runReaderBench(opts: ReaderBenchOptions = {}): Promise<ReaderBenchRow[]> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const template = opts.writer ? QUERY_WRITER : READER_TEMPLATE;
  const prompts = opts.writer ? writerPrompts : tasks;
  const k = opts.writer ? 1 : K;
  const rows: ReaderBenchRow[] = [];
  const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-reader-'));
  try {
    await makeReaderFixtures();
    // One models root for both shapes: the tiny fixture is linked in, the base shape generated.
    const modelsRoot = join(work, 'models');
    await mkdir(join(modelsRoot, 'fliplab'), { recursive: true });
    const { symlink } = await import('node:fs/promises');
    await symlink(join(DEFAULT_MODELS_DIR, TINY_READER.id), join(modelsRoot, TINY_READER.id), 'dir');
    const models: string[] = [TINY_READER.id];
    if (!opts.smoke) {
      const t = performance.now();
      const model = buildTinyGpt2({ ...GPT2_BASE_SHAPE, seed: 3, name: BASE_MODEL });
      const dir = join(modelsRoot, BASE_MODEL);
      await mkdir(join(dir, 'onnx'), { recursive: true });
      for (const [path, contents] of Object.entries(tinyGpt2Files(model, { q8: true }))) await writeFileContents(join(dir, path), contents);
      log(`generated ${BASE_MODEL} (GPT-2 small shape, random weights, fp32 + q8) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      models.push(BASE_MODEL);
    }
    const count = (model: string) => (opts.smoke ? 2 : model === TINY_READER.id ? 16 : 4);
    const shape = opts.writer
      ? 'the query writer: 1 passage × 150 words, ≤ 32 new tokens'
      : 'prompts of 3 passages × 60 words, 24 new tokens';
    log(`node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; ${shape}`);

    for (const model of models) {
      for (const dtype of DTYPES) {
        const reader = await loadReader(
          { id: model, label: model, model, revision: 'main', dtype },
          { device: 'cpu', source: { localModelPath: `${modelsRoot}/`, allowRemote: false } },
        );
        try {
          await reader.answer(prompts(1, 1000)[0]!.messages, template); // warm-up
          let tokens = 0;
          const t = performance.now();
          for (const task of prompts(count(model), 0)) tokens += (await reader.answer(task.messages, template)).newTokens;
          const ms = performance.now() - t;
          rows.push({
            model,
            engine: 'onnxruntime-node cpu',
            dtype,
            tokensPerSecond: tokens / (ms / 1000),
            msPerPrompt: ms / count(model),
          });
        } finally {
          await reader.dispose();
        }
      }
    }

    const dist = join(work, 'dist');
    await buildTestPages(dist);
    const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
    const browser = await launchChromium({ webgpu: true });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}encode.html?cache=0&threads=${cpus().length}`);
      await page.waitForFunction(() => 'fliplabTest' in window);
      for (const model of models) {
        const legs: { device: 'wasm' | 'webgpu'; dtype: ReaderDtype }[] = DTYPES.map((dtype) => ({ device: 'wasm', dtype }));
        if (opts.webgpu) legs.push({ device: 'webgpu', dtype: 'fp32' });
        for (const { device, dtype } of legs) {
          const r = await page.evaluate(
            async ([dev, m, dt, warm, measured, k, tpl]) => {
              // No named helpers in here: tsx's keepNames would wrap them in a __name() the page lacks.
              const api = window.fliplabTest;
              const reader = { id: m, label: m, model: m, revision: 'main', dtype: dt };
              const w = await api.tryAnswerTasksWith(dev, reader, warm, `bench-warm-${m}-${dev}-${dt}`, k, tpl); // loads, compiles
              if ('error' in w) throw new Error(`${dev} ${dt}: ${w.error.name}: ${w.error.message}`);
              const t0 = performance.now();
              const out = await api.tryAnswerTasksWith(dev, reader, measured, `bench-${m}-${dev}-${dt}`, k, tpl);
              const ms = performance.now() - t0;
              if ('error' in out) throw new Error(`${dev} ${dt}: ${out.error.name}: ${out.error.message}`);
              return {
                tokensPerSecond: out.tokensPerSecond ?? 0,
                msPerPrompt: ms / measured.length,
                used: out.device ?? 'cache',
                isolated: crossOriginIsolated,
              };
            },
            [device, model, dtype, prompts(1, 1000), prompts(count(model), 0), k, template] as const,
          );
          const threads = r.used === 'wasm' ? (r.isolated ? `, ${cpus().length} threads` : ', 1 thread') : '';
          rows.push({
            model,
            engine: `browser ${r.used}${threads}`,
            dtype,
            tokensPerSecond: r.tokensPerSecond,
            msPerPrompt: r.msPerPrompt,
          });
        }
      }
    } finally {
      await browser.close();
      await server.close();
    }

    log('model                        engine                          dtype  new tokens/s  s per prompt');
    for (const r of rows) {
      log(
        `${r.model.padEnd(28)} ${r.engine.padEnd(31)} ${r.dtype.padEnd(6)} ${r.tokensPerSecond.toFixed(1).padStart(12)} ` +
          `${(r.msPerPrompt / 1000).toFixed(2).padStart(13)}`,
      );
    }
    const note = opts.smoke ? ' (smoke run: tiny model, not a measurement)' : '';
    for (const model of models) {
      for (const dtype of DTYPES) {
        const of = (prefix: string) =>
          rows.find((r) => r.model === model && r.dtype === dtype && r.engine.startsWith(prefix))?.tokensPerSecond ?? 0;
        log(`${model} ${dtype}: browser WASM / native ${(of('browser wasm') / of('onnxruntime-node')).toFixed(2)}×${note}`);
      }
    }
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await runReaderBench({
    smoke: process.argv.includes('--smoke'),
    webgpu: process.argv.includes('--webgpu'),
    writer: process.argv.includes('--writer'),
  });
}
