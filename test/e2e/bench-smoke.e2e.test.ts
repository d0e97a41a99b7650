/**
 * CI runs the encoding benchmark only as a smoke test on the software adapter: tiny model, one batch,
 * Node + browser WASM + WebGPU. It proves the script a GPU machine would run still works end to end;
 * the numbers it prints mean nothing here.
 */
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runEncodeBench } from '../../bench/encode.ts';
import { runFiqaSized } from '../../bench/encode-fiqa-sized.ts';
import { runReaderBench } from '../../bench/reader.ts';
import { runJudgeBench } from '../../bench/judge.ts';
import { wasmThreads } from '../../src/lab/wasm-threads.ts';
import { tempDir } from '../support/temp.ts';

const SMOKE_TIMEOUT_MS = 180_000;

describe('bench/encode.ts --smoke --webgpu', () => {
  it(
    'measures native, browser WASM and browser WebGPU throughput',
    async () => {
      const lines: string[] = [];
      const rows = await runEncodeBench({ smoke: true, webgpu: true, log: (l) => lines.push(l) });
      // WASM at 1 thread and at the lab page's count, side by side (one row each when the machine has one core).
      const threads = wasmThreads(cpus().length, 'isolated').threads;
      const wasm = (dtype: string) => [
        `browser wasm ${dtype}, 1 thread`,
        ...(threads > 1 ? [`browser wasm ${dtype}, ${threads} threads`] : []),
      ];
      expect(rows.map((r) => r.engine)).toEqual([
        'onnxruntime-node cpu fp32',
        'onnxruntime-node cpu q8',
        ...wasm('fp32'),
        ...wasm('q8'),
        'browser webgpu fp32',
      ]);
      for (const r of rows) expect(r.tokensPerSecond).toBeGreaterThan(0);
      expect(lines).toContainEqual(expect.stringMatching(/^browser WASM \/ native, fp32: [\d.]+× \(smoke run/));
      expect(lines).toContainEqual(expect.stringMatching(/^browser WASM \/ native, q8: [\d.]+× \(smoke run/));
      if (threads > 1)
        expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^browser WASM ${threads} threads / 1 thread, fp32: [\\d.]+×`)));
      expect(lines.at(-1)).toMatch(/^q8 \/ fp32 on browser wasm: [\d.]+× \(smoke run/);
    },
    SMOKE_TIMEOUT_MS,
  );
});

describe('bench/judge.ts --smoke', () => {
  it(
    'measures judged pairs/s on onnxruntime-node and browser WASM, with the same scores',
    async () => {
      const lines: string[] = [];
      const rows = await runJudgeBench({ smoke: true, log: (l) => lines.push(l) });
      expect(rows.map((r) => `${r.judge} ${r.engine.replace(/, \d+ threads?$/, '')}`)).toEqual([
        'fliplab/tiny-cross-encoder onnxruntime-node cpu',
        'fliplab/tiny-gpt2 onnxruntime-node cpu',
        'fliplab/tiny-cross-encoder browser wasm',
        'fliplab/tiny-gpt2 browser wasm',
      ]);
      for (const r of rows) expect(r.pairsPerSecond).toBeGreaterThan(0);
      for (const l of lines.filter((x) => x.includes('largest |browser − node|')))
        expect(Number(/score (\S+)$/.exec(l)![1])).toBeLessThanOrEqual(1e-4);
      expect(lines.at(-1)).toMatch(/^fliplab\/tiny-gpt2: browser WASM \/ node [\d.]+× \(smoke run/);
    },
    SMOKE_TIMEOUT_MS,
  );
});

describe('bench/reader.ts --smoke', () => {
  it(
    'measures reader tokens/s on onnxruntime-node and browser WASM, for answers and for written queries',
    async () => {
      for (const writer of [false, true]) {
        const lines: string[] = [];
        const rows = await runReaderBench({ smoke: true, writer, log: (l) => lines.push(l) });
        expect(rows.map((r) => `${r.engine.replace(/, \d+ threads?$/, '')} ${r.dtype}`)).toEqual([
          'onnxruntime-node cpu fp32',
          'onnxruntime-node cpu q8',
          'browser wasm fp32',
          'browser wasm q8',
        ]);
        for (const r of rows) expect(r.tokensPerSecond).toBeGreaterThan(0);
        for (const r of rows) expect(r.msPerPrompt).toBeGreaterThan(0);
        expect(lines.some((l) => l.includes(writer ? 'the query writer' : '3 passages'))).toBe(true);
        expect(lines.at(-1)).toMatch(/^fliplab\/tiny-gpt2 q8: browser WASM \/ native [\d.]+× \(smoke run/);
      }
    },
    SMOKE_TIMEOUT_MS,
  );
});

describe('bench/encode.ts --fiqa-sized --passages 100', () => {
  const work = tempDir('bench-fiqa-sized');
  it(
    'encodes, resumes after a reload, rebuilds from IndexedDB and searches, with the same vectors',
    async () => {
      const rows = await runFiqaSized(work, () => undefined, { json: true, passages: 100, ks: [100], uaMemory: false });
      expect(rows.map((r) => r.phase)).toEqual(['setup', 'encode', 'resume', 'rebuild', 'search', 'check', 'search-copied', 'run']);
      expect(rows.find((r) => r.phase === 'rebuild')).toMatchObject({ cached: 100, encoded: 0, dim: 1024 });
      expect(rows.find((r) => r.phase === 'resume')).toMatchObject({ total: 100, lostCommitted: 0 });
      expect(rows.find((r) => r.phase === 'check')).toMatchObject({ pass: true, checkedQueries: 3, top10Agree: true });
      expect(rows.find((r) => r.phase === 'search-copied')).toMatchObject({ passages: 100, queries: 648 });
    },
    SMOKE_TIMEOUT_MS,
  );
});
