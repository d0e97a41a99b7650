/**
 * Hostile input, timed. The tests prove what the time stands for by counting (a bomb is refused before its
 * bytes are inflated: test/unit/lab-data/parquet.test.ts, bombs.test.ts; the page answers while one is refused:
 * test/e2e/nothing-lost.e2e.test.ts); how long that takes, and what it costs the page, is measured here, each
 * next to an honest file of the same shape in the same run.
 *
 * In process (Node; the lab's loader as its worker calls it), median of `--reps` interleaved rounds:
 * - parquet page bomb: a corpus parquet whose text page header declares 128 MiB for ~50 KB of snappy, refused;
 *   peer: the same file with its honest header (1.1 MB of text), read;
 * - zip bombs: 1 GiB of zeros as one corpus.jsonl (~1 MB zipped), and 2 GiB declared only in a ZIP64 extra
 *   field, refused by `expandArchives`; peer: an honest collection zip of about the same compressed size
 *   (Zipf passages, bench/lib/zipf-corpus.ts), expanded.
 *
 * In the browser (the production build in Debian's chromium, a fresh context per trial; `--no-browser` skips
 * it): the demo open, then the 1 GiB bomb picked as a collection: from the pick to the refusal on screen, the
 * longest gap between ticks of a 10 ms timer on the page meanwhile, and the browser's resident memory (all its
 * processes) after a collected heap and a 1 s settle, against before the pick. Peer: the honest zip picked the
 * same way, to its collection summary on screen.
 *
 *   node --import tsx bench/hostile-input.ts [--reps N] [--trials N] [--no-browser]
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { expandArchives } from '../src/lab/data/files.ts';
import { loadCollection } from '../src/worker/load.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { parquetPageBomb, zipBomb } from '../test/support/bombs.ts';
import { browserRssMB } from '../test/support/browser-rss.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { median } from './lib/rng.ts';
import { zipfCollection } from './lib/zipf-corpus.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const enc = new TextEncoder();

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const v = Number(process.argv[at + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} expects a positive integer, got ${JSON.stringify(process.argv[at + 1])}`);
  return v;
}

/** An honest BEIR collection zip of ~1 MB: 6,000 Zipf passages of ~80 words, 50 queries, one judgment each. */
function honestZip(): { zip: Uint8Array; passages: number; text: number } {
  const { corpus, queries } = zipfCollection({
    docs: 6_000,
    meanDocWords: 80,
    queries: 50,
    minQueryWords: 3,
    maxQueryWords: 8,
    vocabulary: 50_000,
    exponent: 1.07,
    seed: 20_261_204,
  });
  const corpusJsonl = corpus.ids.map((id, i) => JSON.stringify({ _id: id, title: '', text: corpus.texts[i] })).join('\n');
  const queriesJsonl = queries.ids.map((id, i) => JSON.stringify({ _id: id, text: queries.texts[i] })).join('\n');
  const qrels = ['query-id\tcorpus-id\tscore', ...queries.ids.map((q, i) => `${q}\td${(i * 97) % corpus.ids.length}\t1`)].join('\n');
  const files = { 'corpus.jsonl': enc.encode(corpusJsonl), 'queries.jsonl': enc.encode(queriesJsonl), 'qrels/test.tsv': enc.encode(qrels) };
  const zip = zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [v, { level: 6 }]])));
  return { zip, passages: corpus.ids.length, text: Object.values(files).reduce((n, f) => n + f.length, 0) };
}

/** Milliseconds `job` takes; a bomb leg must be refused (`refused: true`), an honest one must read. */
async function time(job: () => unknown, refused: boolean): Promise<number> {
  const t = performance.now();
  let threw: unknown = null;
  try {
    await job();
  } catch (e) {
    threw = e;
  }
  const ms = performance.now() - t;
  if (refused && threw === null) throw new Error('a bomb was read, not refused');
  if (!refused && threw !== null) throw threw;
  return ms;
}

interface Leg {
  readonly label: string;
  readonly refused: boolean;
  readonly job: () => unknown;
  /** The honest leg this one is printed against. */
  readonly peer?: string;
}

async function inProcess(work: string, reps: number, honest: { zip: Uint8Array }): Promise<void> {
  const parquet = parquetPageBomb();
  const queries = { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n') };
  await zipBomb(join(work, 'bomb.zip'), 'corpus.jsonl', 1024);
  await zipBomb(join(work, 'bomb64.zip'), 'corpus.jsonl', 2048, 'zip64-extra');
  const bomb = new Uint8Array(await readFile(join(work, 'bomb.zip')));
  const bomb64 = new Uint8Array(await readFile(join(work, 'bomb64.zip')));
  const mb = (b: Uint8Array) => `${(b.length / 1e6).toFixed(2)} MB`;
  const legs: Leg[] = [
    {
      label: `parquet, honest header (${mb(parquet.honest)}), read`,
      refused: false,
      job: () => loadCollection([{ path: 'corpus.parquet', bytes: parquet.honest }, queries]),
    },
    {
      label: 'parquet, page declaring 128 MiB, refused',
      refused: true,
      job: () => loadCollection([{ path: 'corpus.parquet', bytes: parquet.bomb }, queries]),
      peer: 'parquet',
    },
    {
      label: `honest collection zip (${mb(honest.zip)}), expanded`,
      refused: false,
      job: () => expandArchives([{ path: 'c.zip', bytes: honest.zip }]),
    },
    {
      label: `zip bomb, 1 GiB (${mb(bomb)}), refused`,
      refused: true,
      job: () => expandArchives([{ path: 'bomb.zip', bytes: bomb }]),
      peer: 'honest',
    },
    {
      label: `ZIP64 bomb, 2 GiB (${mb(bomb64)}), refused`,
      refused: true,
      job: () => expandArchives([{ path: 'bomb64.zip', bytes: bomb64 }]),
      peer: 'honest',
    },
  ];
  for (const leg of legs) await time(leg.job, leg.refused); // warm-up
  const ms = legs.map(() => [] as number[]);
  for (let r = 0; r < reps; r++) for (const [i, leg] of legs.entries()) ms[i]!.push(await time(leg.job, leg.refused));
  console.log(`\nIn process (Node, the lab's loader), ${reps} interleaved rounds, median:`);
  const medians = ms.map(median);
  for (const [i, leg] of legs.entries()) {
    const peerAt = leg.peer === undefined ? -1 : legs.findIndex((l) => !l.refused && l.label.startsWith(leg.peer!));
    const vs = peerAt < 0 ? '' : `   ${(medians[i]! / medians[peerAt]!).toFixed(3)}× the honest file`;
    console.log(`  ${leg.label.padEnd(48)} ${medians[i]!.toFixed(2).padStart(9)} ms${vs}`);
  }
}

/** Start counting the page's longest pause: a timer due every 10 ms, and the largest gap between its ticks. */
async function watchPauses(p: Page): Promise<() => Promise<number>> {
  await p.evaluate(`(() => {
    window.__maxGap = 0;
    window.__last = performance.now();
    setInterval(() => {
      const now = performance.now();
      window.__maxGap = Math.max(window.__maxGap, now - window.__last);
      window.__last = now;
    }, 10);
  })()`);
  return () => p.evaluate('window.__maxGap') as Promise<number>;
}

interface PickResult {
  readonly ms: number;
  readonly pauseMs: number;
  readonly rssDeltaMB: number;
}

async function inBrowser(work: string, trials: number, honest: { zip: Uint8Array; passages: number }): Promise<void> {
  const dist = join(work, 'dist');
  const t = performance.now();
  await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
  console.log(`\nbuilt the app in ${((performance.now() - t) / 1000).toFixed(1)} s (untimed)`);
  await writeFile(join(work, 'honest.zip'), honest.zip);
  const server = await startHubServer({ staticRoot: dist });
  const browser = await launchChromium({ webgpu: false });
  const host = server.url.replace(/\/$/, '');
  const passages = `${honest.passages.toLocaleString('en')} passages`;

  const pick = async (file: 'bomb.zip' | 'honest.zip'): Promise<PickResult> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((h) => localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h })), host);
    const p = await context.newPage();
    try {
      await p.goto(`${server.url}#demo`);
      await p.getByTestId('headline').waitFor({ state: 'visible', timeout: 60_000 });
      const cdp = await context.newCDPSession(p);
      await cdp.send('HeapProfiler.collectGarbage');
      const before = browserRssMB();
      const longestPause = await watchPauses(p);
      const t0 = Date.now();
      await p.getByTestId('pick-files').setInputFiles(join(work, file));
      await p.waitForFunction(
        ([bomb, summary]) => {
          const shown = document.querySelector(`[data-testid="${bomb ? 'collection-error' : 'collection-summary'}"]`)?.textContent ?? '';
          return bomb ? shown.includes('refused as a decompression bomb') : shown.includes(summary);
        },
        [file === 'bomb.zip', passages] as const,
        { timeout: 120_000, polling: 'raf' },
      );
      const ms = Date.now() - t0;
      const pauseMs = await longestPause();
      await cdp.send('HeapProfiler.collectGarbage');
      await new Promise((r) => setTimeout(r, 1_000));
      return { ms, pauseMs, rssDeltaMB: browserRssMB() - before };
    } finally {
      await context.close();
    }
  };

  try {
    await pick('bomb.zip'); // warm the OS file cache and the server
    const results = { bomb: [] as PickResult[], honest: [] as PickResult[] };
    for (let i = 0; i < trials; i++) {
      results.honest.push(await pick('honest.zip'));
      results.bomb.push(await pick('bomb.zip'));
    }
    const row = (label: string, xs: PickResult[]) => {
      const all = (f: (x: PickResult) => number) => xs.map((x) => f(x).toFixed(0)).join(', ');
      console.log(
        `  ${label.padEnd(40)} ${median(xs.map((x) => x.ms))
          .toFixed(0)
          .padStart(6)} ms (${all((x) => x.ms)})` +
          `   longest pause ${median(xs.map((x) => x.pauseMs))
            .toFixed(0)
            .padStart(4)} ms (${all((x) => x.pauseMs)})` +
          `   RSS after GC ${median(xs.map((x) => x.rssDeltaMB))
            .toFixed(0)
            .padStart(4)} MB over before (${all((x) => x.rssDeltaMB)})`,
      );
    };
    console.log(`In the browser (production build, demo open, then a file picked), ${trials} trials, median (each trial):`);
    row(`honest zip → "${passages}" on screen`, results.honest);
    row('1 GiB zip bomb → refusal on screen', results.bomb);
    const ratio = median(results.bomb.map((x) => x.ms)) / median(results.honest.map((x) => x.ms));
    console.log(`  refusing the bomb takes ${ratio.toFixed(2)}× the time of opening the honest zip`);
  } finally {
    await browser.close();
    await server.close();
  }
}

const reps = arg('--reps', 5);
const trials = arg('--trials', 3);
const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-hostile-'));
try {
  const honest = honestZip();
  console.log(
    `bench:hostile — node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; honest zip: ` +
      `${honest.passages.toLocaleString('en')} passages, ${(honest.text / 1e6).toFixed(1)} MB of text in ${(honest.zip.length / 1e6).toFixed(2)} MB`,
  );
  await inProcess(work, reps, honest);
  if (!process.argv.includes('--no-browser')) await inBrowser(work, trials, honest);
} finally {
  await rm(work, { recursive: true, force: true });
}
