/**
 * Encoders at their real size (`npm run bench:encode -- --real-shapes [--json]`): random-weight models in the
 * hub layout, generated into a temp dir (never committed), in the shapes users load:
 *
 *   splade-base   BERT-base with its MLM head (12 × 768, 30,522 pieces): SPLADE's logits
 *   bge-small     12 × 384, CLS pooling
 *   bge-large     24 × 1,024, fp32, ~1.34 GB
 *
 * Each runs in headless Chromium through the real worker and bridge (a corpus job into IndexedDB, the device's
 * own batch plan), on WASM and on WebGPU (SwiftShader on this machine, a real adapter where there is one), and
 * in onnxruntime-node on the same files for the vectors' reference. One JSON object a line per case and device:
 *
 *   case, device, dtype, passages, batches, oomRetries, planBoundBy, readbackBytesPerPassage, pooledOnDevice,
 *   externalWeightsMB, lazyWeights, tokensPerSecond, maxRelDiffVsNode, modelMB, idleRssMB, peakRssMB, ms
 *
 * - tokensPerSecond: the job's own encoding rate (the model load excluded, the first batch too once a second
 *   one is done), WASM with as many threads as cores (the page is cross-origin isolated).
 * - ms: the whole job, model load included.
 *
 * - readbackBytesPerPassage: what the pooling reads back from the session per passage. Pooled in the session
 *   (every case here): one row, 30,522 floats for SPLADE, the hidden width for a dense encoder; otherwise the
 *   whole output (tokens × width floats), as a model without in-session pooling hands it over.
 * - The browser runs a persistent profile with the model cache on, as the app does (`--no-cache`: off), so the
 *   model file is streamed into Cache Storage on disk and the runtime reads its weights from there
 *   (lazyWeights); each leg is a first visit: download, load and encode.
 * - maxRelDiffVsNode: over every vector, max |browser − node| / max |node| (relative to the vector's scale).
 * - idleRssMB / runtimeIdleRssMB / peakRssMB: the resident memory of the browser's processes (from /proc, this
 *   process's descendants only): with the page open; with its encode worker up (ONNX Runtime loaded, a tiny
 *   model encoded and unloaded); and at its highest while the case loads and encodes (sampled every 100 ms).
 *
 * SwiftShader runs WebGPU on the CPU, about ten times slower than WASM here: its passage counts are small.
 */
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { writeTinyBert, type TinyBertOptions } from '../scripts/models/tiny-bert.ts';
import { bertBaseOptions } from '../scripts/models/tiny-bert.ts';
import { buildWordPieceVocab } from '../scripts/models/wordpiece-vocab.ts';
import { loadEncoder } from '../src/encoders/encoder.ts';
import { readbackBytesPerInput, modelShape } from '../src/encoders/device-plan.ts';
import { browserRssMB } from '../test/support/browser-rss.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { testConfig, type TestKind } from '../test/e2e/pages/configs.ts';

interface ShapeCase {
  readonly name: 'splade-base' | 'bge-small' | 'bge-large';
  readonly kind: TestKind;
  readonly options: TinyBertOptions;
  /** Passages per device: WASM, WebGPU. */
  readonly passages: { readonly wasm: number; readonly webgpu: number };
}

const VOCAB = 30522;
/** A tiny model the worker loads first, so `runtimeIdleRssMB` has ONNX Runtime up but no big model. */
const WARM_UP = 'fliplab/warm-up-tiny';

const CASES: readonly ShapeCase[] = [
  {
    name: 'splade-base',
    kind: 'splade',
    options: { ...bertBaseOptions('mlm', 31), name: 'fliplab/splade-base-random' },
    passages: { wasm: 16, webgpu: 4 },
  },
  {
    name: 'bge-small',
    kind: 'cls',
    options: {
      head: 'none',
      hiddenSize: 384,
      layers: 12,
      heads: 12,
      intermediate: 1536,
      seed: 32,
      vocabulary: buildWordPieceVocab(VOCAB),
      name: 'fliplab/bge-small-random',
    },
    passages: { wasm: 32, webgpu: 4 },
  },
  {
    name: 'bge-large',
    kind: 'cls',
    options: {
      head: 'none',
      hiddenSize: 1024,
      layers: 24,
      heads: 16,
      intermediate: 4096,
      seed: 33,
      vocabulary: buildWordPieceVocab(VOCAB),
      name: 'fliplab/bge-large-random',
    },
    passages: { wasm: 8, webgpu: 1 },
  },
];

export interface RealShapeRow {
  readonly case: ShapeCase['name'];
  readonly device: string;
  readonly dtype: 'fp32';
  readonly passages: number;
  readonly batches: number;
  readonly oomRetries: number;
  readonly planBoundBy: string | null;
  readonly readbackBytesPerPassage: number;
  readonly pooledOnDevice: boolean;
  /** The weights handed to the runtime as external data (0: as one buffer). */
  readonly externalWeightsMB: number;
  /** Read from the file in Cache Storage as the runtime asked for them (never whole in the tab). */
  readonly lazyWeights: boolean;
  readonly tokensPerSecond: number;
  readonly maxRelDiffVsNode: number;
  readonly modelMB: number;
  readonly idleRssMB: number;
  readonly runtimeIdleRssMB: number;
  readonly peakRssMB: number;
  readonly ms: number;
}

/** Passages of ~`words` words from a small pool (≈ 1.3 tokens each with the generated vocabulary). */
function passages(count: number, words: number): string[] {
  const pool = ['tides', 'moon', 'ocean', 'lighthouse', 'ships', 'harbour', 'ferry', 'canal', 'locks', 'boats', 'dam', 'water', 'orbit'];
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: words }, (_, j) => pool[(i * 7 + j * 3 + i * j) % pool.length]).join(' '),
  );
}

function maxRelDiff(browser: readonly (readonly number[])[], node: readonly (readonly number[])[]): number {
  let worst = 0;
  browser.forEach((b, i) => {
    const n = node[i]!;
    const scale = Math.max(1e-12, ...n.map(Math.abs));
    for (let j = 0; j < n.length; j++) worst = Math.max(worst, Math.abs((b[j] ?? 0) - n[j]!) / scale);
  });
  return worst;
}

/** A sparse vector as a dense array over the vocabulary (to compare browser and Node the same way). */
const densify = (s: { indices: readonly number[]; values: readonly number[] }, width: number) => {
  const out = new Array<number>(width).fill(0);
  s.indices.forEach((v, i) => (out[v] = s.values[i]!));
  return out;
};

export interface RealShapesOptions {
  readonly json: boolean;
  /** Only these cases / devices (default: all). */
  readonly cases?: readonly string[];
  readonly devices?: readonly string[];
  /** Keep model files in Cache Storage, as the app does (default true). */
  readonly cache?: boolean;
}

export async function runRealShapes(work: string, log: (line: string) => void, options: RealShapesOptions): Promise<RealShapeRow[]> {
  const { json } = options;
  const cache = options.cache ?? true;
  const rows: RealShapeRow[] = [];
  const modelsRoot = join(work, 'models');
  const dist = join(work, 'dist');
  await buildTestPages(dist);
  await writeTinyBert(join(modelsRoot, WARM_UP), { head: 'none', seed: 5, name: WARM_UP }, { fp16: false, q8: false });
  const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
  try {
    for (const c of CASES.filter((x) => !options.cases?.length || options.cases.includes(x.name))) {
      const model = c.options.name!;
      const t0 = performance.now();
      const written = await writeTinyBert(join(modelsRoot, model), c.options, { fp16: false, q8: false });
      const modelMB = statSync(join(written.dir, 'onnx/model.onnx')).size / 2 ** 20;
      if (!json) log(`${c.name}: generated ${model} (${modelMB.toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const shape = modelShape(
        JSON.parse(readFileSync(join(written.dir, 'config.json'), 'utf8')) as Record<string, unknown>,
        c.kind === 'splade',
      )!;
      const config = testConfig(c.kind, model);
      const texts = passages(Math.max(c.passages.wasm, c.passages.webgpu), 100);
      const native = await loadEncoder(config, {
        device: 'cpu',
        dtype: 'fp32',
        source: { localModelPath: `${modelsRoot}/`, allowRemote: false },
      });
      const reference = await native.encode(texts, 'passage');
      await native.dispose();
      const nodeVectors =
        c.kind === 'splade'
          ? reference.sparse!.map((s) => densify({ indices: [...s.indices], values: [...s.values] }, VOCAB))
          : reference.dense!.map((v) => [...v]);
      const meanTokens = reference.tokens.reduce((a, b) => a + b, 0) / reference.tokens.length;

      for (const device of (['wasm', 'webgpu'] as const).filter((d) => !options.devices?.length || options.devices.includes(d))) {
        const n = c.passages[device];
        // A fresh browser per leg: its resident memory is this model's alone.
        // A persistent profile, as a user's: Cache Storage (where the model file is kept) on disk, not in memory.
        const profile = await mkdtemp(join(work, 'profile-'));
        const browser = await chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'],
        });
        try {
          const page = await browser.newPage();
          await page.goto(`${server.url}encode.html?cache=${cache ? 1 : 0}&threads=${cpus().length}`);
          await page.waitForFunction(() => 'fliplabTest' in window);
          const idle = browserRssMB();
          // The tab with its encode worker up: ONNX Runtime loaded, a tiny model encoded and unloaded again.
          await page.evaluate(([d, m]) => window.fliplabTest.encodeWith(d, m, 'cls', ['warm up'], 'passage'), [device, WARM_UP] as const);
          const runtimeIdle = browserRssMB();
          let peak = runtimeIdle;
          let sampling = true;
          const sampler = (async () => {
            while (sampling) {
              peak = Math.max(peak, browserRssMB());
              await new Promise((r) => setTimeout(r, 100));
            }
          })();
          // A leg that takes the browser down (the GPU process out of memory, say) is a result, not the end of the run.
          const got = await page
            .evaluate(([d, m, k, t, db]) => window.fliplabTest.measureCorpus(d, m, k, t, db), [
              device,
              model,
              c.kind,
              texts.slice(0, n),
              `bench-${c.name}-${device}`,
            ] as const)
            .catch((e: unknown) => ({
              error: { name: 'BrowserClosed', message: e instanceof Error ? e.message.split('\n')[0]! : String(e) },
            }));
          sampling = false;
          await sampler;
          if ('error' in got) {
            const failed = {
              case: c.name,
              device,
              passages: n,
              modelMB: Math.round(modelMB),
              idleRssMB: Math.round(idle),
              runtimeIdleRssMB: Math.round(runtimeIdle),
              peakRssMB: Math.round(peak),
              error: `${got.error.name}: ${got.error.message}`,
            };
            log(json ? JSON.stringify(failed) : `${c.name.padEnd(12)} ${device.padEnd(7)} ${JSON.stringify(failed)}`);
            continue;
          }
          const browserVectors = c.kind === 'splade' ? got.sparse.map((s) => densify(s!, VOCAB)) : got.dense.map((v) => v!);
          const pooledOnDevice = got.pooledOnDevice;
          const row: RealShapeRow = {
            case: c.name,
            device: got.device,
            dtype: 'fp32',
            passages: n,
            batches: Number(got.progress.batches ?? 0),
            oomRetries: Number(got.progress.oomRetries ?? 0),
            planBoundBy: (got.progress.planBoundBy as string | null) ?? null,
            readbackBytesPerPassage: readbackBytesPerInput(shape, Math.round(meanTokens), pooledOnDevice),
            pooledOnDevice,
            externalWeightsMB: Math.round((got.externalWeights?.bytes ?? 0) / 2 ** 20),
            lazyWeights: got.externalWeights?.lazy === true,
            // the job's own rate (encoding only: no model load, first batch left out once there is a second)
            tokensPerSecond: Number(got.progress.perSecond ?? 0) * (Number(got.progress.tokens ?? 0) / n),
            maxRelDiffVsNode: maxRelDiff(browserVectors, nodeVectors.slice(0, n)),
            modelMB: Math.round(modelMB),
            idleRssMB: Math.round(idle),
            runtimeIdleRssMB: Math.round(runtimeIdle),
            peakRssMB: Math.round(peak),
            ms: Math.round(got.ms),
          };
          rows.push(row);
          log(json ? JSON.stringify(row) : `${c.name.padEnd(12)} ${row.device.padEnd(7)} ${JSON.stringify(row)}`);
        } finally {
          await browser.close();
          await rm(profile, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
  }
  return rows;
}
