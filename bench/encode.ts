/**
 * Encoding throughput (tokens/s) of a BERT-base-shaped model (768 hidden, 12 layers, 12 heads, 30,522
 * pieces; random weights generated here into a temp dir, never committed): onnxruntime-web WASM in
 * headless Chromium (the real worker and bridge) against onnxruntime-node on the same model files, same
 * machine, same run. Goal: browser WASM ≥ 0.8× native.
 *
 *   npm run bench:encode                       BERT-base, fp32 and q8, WASM at 1 thread and at the lab page's
 *                                              count (src/lab/wasm-threads.ts: cores, at most 4; cross-origin
 *                                              isolated) side by side, vs native, as ratios per dtype, threads
 *                                              against 1 thread, and q8 / fp32 per engine
 *   npm run bench:encode -- --webgpu           also WebGPU, batch sweep 8/16/32: fp32, and fp16 (the model's
 *                                              onnx/model_fp16.onnx, generated too) when the adapter has
 *                                              shader-f16, else a line saying it was skipped and why; for a
 *                                              machine with a real GPU (SwiftShader has no shader-f16)
 *   npm run bench:encode -- --smoke [--webgpu] tiny model, one batch: proves the script runs (CI)
 *   npm run bench:encode -- --real-shapes [--json] [--case bge-large,...] [--device wasm|webgpu] [--no-cache]
 *                                              SPLADE-base, BGE-small and BGE-large shapes on WASM and WebGPU:
 *                                              batches, out-of-memory retries, readback, rate, agreement with
 *                                              Node and the browser's memory (bench/encode-real-shapes.ts)
 *   npm run bench:encode -- --abort [--trials N] how promptly an aborted call rejects and an idle worker ends, tiny
 *                                              model (bench/encode-abort.ts); also printed after the default run
 *   npm run bench:encode -- --fiqa-sized [--json] [--passages N] [--layers N] [--max-length N] [--k 100,1000]
 *                                  [--no-ua-memory]
 *                                              57,638 passages × 1,024 floats end to end in the browser: encode
 *                                              into IndexedDB, reload mid-run and resume, rebuild on a second
 *                                              visit, 648 queries and exact dense search, each timed with the
 *                                              browser's memory (bench/encode-fiqa-sized.ts)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../scripts/models/make-fixtures.ts';
import { bertBaseOptions, writeTinyBert } from '../scripts/models/tiny-bert.ts';
import { loadEncoder } from '../src/encoders/encoder.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { testConfig } from '../test/e2e/pages/configs.ts';
import type { EncoderDtype } from '../src/encoders/presets.ts';
import { wasmThreads } from '../src/lab/wasm-threads.ts';
import { runRealShapes } from './encode-real-shapes.ts';
import { runFiqaSized } from './encode-fiqa-sized.ts';
import { runAbortBench } from './encode-abort.ts';

const BASE_MODEL = 'fliplab/bert-base-random';
const DTYPES = ['fp32', 'q8'] as const satisfies readonly EncoderDtype[];

export interface EncodeBenchOptions {
  readonly smoke?: boolean;
  readonly webgpu?: boolean;
  readonly log?: (line: string) => void;
}

export interface EncodeBenchRow {
  readonly engine: string;
  readonly batch: number;
  readonly tokensPerSecond: number;
}

/** A browser WASM row's engine: `browser wasm fp32, 2 threads`. */
const wasmEngine = (dtype: EncoderDtype, threads: number) => `browser wasm ${dtype}, ${threads} ${threads === 1 ? 'thread' : 'threads'}`;

/** Passages of ~`words` words (≈ 1.3 tokens each with the generated vocabulary). */
function passages(count: number, words: number): string[] {
  const pool = [
    'tides',
    'moon',
    'ocean',
    'lighthouse',
    'ships',
    'harbour',
    'ferry',
    'canal',
    'locks',
    'boats',
    'dam',
    'water',
    'seasons',
    'sun',
    'orbit',
  ];
  return Array.from({ length: count }, (_, i) => Array.from({ length: words }, (_, j) => pool[(i * 7 + j * 3) % pool.length]).join(' '));
}

export async function runEncodeBench(opts: EncodeBenchOptions = {}): Promise<EncodeBenchRow[]> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const rows: EncodeBenchRow[] = [];
  const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-encode-'));
  try {
    let modelsRoot = DEFAULT_MODELS_DIR;
    let model = 'fliplab/tiny-bert';
    if (opts.smoke) await makeModelFixtures();
    else {
      modelsRoot = join(work, 'models');
      const t = performance.now();
      // The fp16 variant only for the WebGPU sweep: it adds ~220 MB and seconds of generation. q8 always
      // (onnx/model_quantized.onnx: int8 weight MatMuls, as the hub's quantized files).
      await writeTinyBert(
        join(modelsRoot, BASE_MODEL),
        { ...bertBaseOptions('none', 7), name: BASE_MODEL },
        { fp16: opts.webgpu === true, q8: true },
      );
      model = BASE_MODEL;
      log(`generated ${model} (BERT-base shape, random weights) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const texts = opts.smoke ? passages(4, 12) : passages(64, 100);
    const batches = opts.smoke ? [4] : opts.webgpu ? [8, 16, 32] : [16];
    const config = testConfig('mean', model);
    log(`texts: ${texts.length} passages; node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`);

    // Native: onnxruntime-node on the same files, fp32 and q8.
    for (const dtype of DTYPES) {
      const native = await loadEncoder(config, {
        device: 'cpu',
        dtype,
        source: { localModelPath: `${modelsRoot}/`, allowRemote: false },
      });
      for (const batch of batches) {
        await native.encode(texts.slice(0, batch), 'passage'); // warm-up
        let tokens = 0;
        const t = performance.now();
        for (let i = 0; i < texts.length; i += batch)
          tokens += (await native.encode(texts.slice(i, i + batch), 'passage')).tokens.reduce((a, b) => a + b, 0);
        rows.push({ engine: `onnxruntime-node cpu ${dtype}`, batch, tokensPerSecond: tokens / ((performance.now() - t) / 1000) });
      }
      await native.dispose();
    }

    // Browser: the real worker + bridge, models from a local hub-layout server, cross-origin isolated for threads.
    // WASM at 1 thread and at the lab page's count, each on a page of its own (a bridge keeps its worker's
    // threads), batch by batch in turn, so a change in the machine's load falls on both alike; WebGPU on the last.
    const pageThreads = wasmThreads(cpus().length, 'isolated').threads;
    const threadCounts = pageThreads > 1 ? [1, pageThreads] : [1];
    const dist = join(work, 'dist');
    await buildTestPages(dist);
    const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
    const browser = await launchChromium({ webgpu: true });
    try {
      const pages: { threads: number; page: Page }[] = [];
      for (const threads of threadCounts) {
        const page = await browser.newPage();
        await page.goto(`${server.url}encode.html?cache=0&threads=${threads}`);
        await page.waitForFunction(() => 'fliplabTest' in window);
        pages.push({ threads, page });
      }
      /** One batch through a page's worker: its tokens, the time it took, the device it ran on. */
      const encodeOn = (page: Page, device: 'wasm' | 'webgpu', dtype: EncoderDtype, batch: readonly string[]) =>
        page.evaluate(
          async ([dev, m, t, dt]) => {
            // No named helpers in here: tsx's keepNames would wrap them in a __name() the page lacks.
            const started = performance.now();
            const out = await window.fliplabTest.tryEncodeWithDtype(dev, m, 'mean', t, 'passage', dt);
            if ('error' in out) throw new Error(`${dev} ${dt}: ${out.error.name}: ${out.error.message}`);
            const tokens = out.tokens.reduce((x, y) => x + y, 0);
            return { tokens, ms: performance.now() - started, used: out.device, isolated: crossOriginIsolated };
          },
          [device, model, batch, dtype] as const,
        );
      /** `device` and `dtype` on `on`'s pages, batch by batch in turn: a row per page. */
      const measure = async (on: typeof pages, device: 'wasm' | 'webgpu', dtype: EncoderDtype) => {
        for (const batch of batches) {
          for (const { page } of on) await encodeOn(page, device, dtype, texts.slice(0, batch)); // compiles wasm / shaders
          const totals = on.map(() => ({ tokens: 0, ms: 0, used: device as string }));
          for (let i = 0; i < texts.length; i += batch) {
            for (const [j, { page, threads }] of on.entries()) {
              const r = await encodeOn(page, device, dtype, texts.slice(i, i + batch));
              // More than one thread needs isolation: a page without it would run one, whatever was asked.
              if (r.used === 'wasm' && threads > 1 && !r.isolated) throw new Error(`the bench page is not cross-origin isolated`);
              totals[j]!.tokens += r.tokens;
              totals[j]!.ms += r.ms;
              totals[j]!.used = r.used;
            }
          }
          for (const [j, { threads }] of on.entries()) {
            const { tokens, ms, used } = totals[j]!;
            const engine = used === 'wasm' ? wasmEngine(dtype, threads) : `browser ${used} ${dtype}`;
            rows.push({ engine, batch, tokensPerSecond: tokens / (ms / 1000) });
          }
        }
      };
      for (const dtype of DTYPES) await measure(pages, 'wasm', dtype);
      if (opts.webgpu) {
        const last = pages.slice(-1);
        await measure(last, 'webgpu', 'fp32');
        // fp16 weights need shader-f16; without it the worker would run them on WASM, which is no WebGPU number.
        const gpu = await last[0]!.page.evaluate(() => window.fliplabTest.webgpuFeatures());
        if (gpu.shaderF16) await measure(last, 'webgpu', 'fp16');
        else
          log(`webgpu fp16: skipped: ${gpu.adapter ? `the adapter (${gpu.description || 'unnamed'}) lacks shader-f16` : gpu.description}`);
      }
    } finally {
      await browser.close();
      await server.close();
    }

    log('engine                                   batch   tokens/s');
    for (const r of rows) log(`${r.engine.padEnd(40)} ${String(r.batch).padStart(5)} ${r.tokensPerSecond.toFixed(0).padStart(10)}`);
    // The browser's number is the lab page's: WASM at its thread count.
    const rate = (engine: string) => Math.max(...rows.filter((r) => r.engine === engine).map((r) => r.tokensPerSecond));
    const native = (dtype: EncoderDtype) => rate(`onnxruntime-node cpu ${dtype}`);
    const wasm = (dtype: EncoderDtype, threads = pageThreads) => rate(wasmEngine(dtype, threads));
    const note = opts.smoke ? ' (smoke run: tiny model, not a measurement)' : '';
    for (const dtype of DTYPES) {
      const ratio = wasm(dtype) / native(dtype);
      const verdict = opts.smoke ? '' : ratio >= 0.8 ? ' PASS (goal ≥ 0.8×)' : ' FAIL (goal ≥ 0.8×)';
      log(`browser WASM / native, ${dtype}: ${ratio.toFixed(2)}×${verdict}${note}`);
    }
    for (const dtype of DTYPES) {
      if (pageThreads === 1) log(`browser WASM threads, ${dtype}: one core here, so the page's count is 1 thread: nothing to compare`);
      else log(`browser WASM ${pageThreads} threads / 1 thread, ${dtype}: ${(wasm(dtype) / wasm(dtype, 1)).toFixed(2)}×${note}`);
    }
    log(`q8 / fp32 on onnxruntime-node: ${(native('q8') / native('fp32')).toFixed(2)}×${note}`);
    log(`q8 / fp32 on browser wasm: ${(wasm('q8') / wasm('fp32')).toFixed(2)}×${note}`);
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const flagValue = (flag: string): string | undefined => {
    const i = process.argv.indexOf(flag);
    return i < 0 ? undefined : process.argv[i + 1];
  };
  const flagNumber = (flag: string): number | undefined => {
    const v = flagValue(flag);
    if (v === undefined) return undefined;
    const x = Number(v);
    if (!Number.isInteger(x) || x < 0) throw new Error(`${flag} takes a whole number, got ${v}`);
    return x;
  };
  if (process.argv.includes('--fiqa-sized')) {
    const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-fiqa-sized-'));
    try {
      const passages = flagNumber('--passages');
      const layers = flagNumber('--layers');
      const maxLength = flagNumber('--max-length');
      const ks = flagValue('--k')?.split(',').map(Number);
      if (ks?.some((k) => !Number.isInteger(k) || k < 1)) throw new Error(`--k takes depths like 100,1000, got ${flagValue('--k')}`);
      await runFiqaSized(work, (l) => console.log(l), {
        json: process.argv.includes('--json'),
        ...(passages === undefined ? {} : { passages }),
        ...(layers === undefined ? {} : { layers }),
        ...(maxLength === undefined ? {} : { maxLength }),
        ...(ks === undefined ? {} : { ks }),
        uaMemory: !process.argv.includes('--no-ua-memory'),
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } else if (process.argv.includes('--real-shapes')) {
    const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-real-shapes-'));
    try {
      const list = (flag: string) => {
        const i = process.argv.indexOf(flag);
        return i < 0 ? [] : process.argv[i + 1]!.split(',');
      };
      await runRealShapes(work, (l) => console.log(l), {
        json: process.argv.includes('--json'),
        cases: list('--case'),
        devices: list('--device'),
        cache: !process.argv.includes('--no-cache'),
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } else {
    const abort = process.argv.includes('--abort');
    if (!abort) await runEncodeBench({ smoke: process.argv.includes('--smoke'), webgpu: process.argv.includes('--webgpu') });
    if (abort || !process.argv.includes('--smoke')) {
      const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-abort-'));
      try {
        const trials = flagNumber('--trials');
        await runAbortBench(work, (l) => console.log(l), trials === undefined ? {} : { trials });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
  }
}
