/**
 * A FiQA-sized corpus end to end in the browser (`npm run bench:encode -- --fiqa-sized [--json] [--passages N]`):
 * 57,638 passages and 648 queries (bench/lib/zipf-corpus.ts FIQA_SIZED) through the real worker, bridge and
 * IndexedDB of headless Chromium, into 1,024-wide vectors (57,638 × 1,024 floats: 236 MB). What it measures is
 * the storage path at that size (commit, resume, rebuild, search), not model FLOPs: the encoder is a BertModel
 * with hidden size 1,024 and no transformer layer by default (embeddings → LayerNorm → mean pooling), random
 * weights generated into a temp dir, the small generated vocabulary. One transformer layer at width 1,024 runs
 * ~11 passages/s of 128 tokens on this 2-vCPU VM's WASM (~85 min for the corpus; ~25 passages/s at 64 tokens,
 * still ~40 min); `--layers 1` runs it anyway.
 *
 * Passages keep ~1/3 of each generated passage's words (their lengths vary as the corpus's do) and the config
 * truncates at `--max-length` (default 128) tokens. Phases, each timed (wall ms, page clock) with the browser's
 * resident memory (every process this bench started, from /proc) and the page's JS memory:
 *
 *   encode    a corpus job on WASM (as many threads as cores, cross-origin isolated) into IndexedDB, the device's
 *             own batch plan; stopped by a reload once half the passages are committed: passages/s, tokens/s.
 *             Every job keeps its vectors in the encode worker as the matrix dense search reads (`keepDense`);
 *             the page keeps only the checked sample, as the app keeps none
 *   resume    the same job on the reloaded page: what it found committed (IndexedDB's own count too), how long
 *             the lookup took, what it encoded; committed vectors lost by the reload (0 expected: only the
 *             batch in flight is re-encoded)
 *   rebuild   a new page (second visit), the same job: every vector from IndexedDB, no model loaded
 *   search    on that page: model load, 648 queries encoded (role 'query'), exact dense top-k in the worker
 *             (MatMul + TopK on ONNX Runtime, `--k 100,1000`) over the matrix the rebuild left there; the page's
 *             peak over its idle state through rebuild and search against the goal, 2 × the matrix
 *   check     100 vectors spread over the corpus, after resume and after rebuild, against the same passages
 *             encoded fresh (max |difference| ≤ 1e-5); the first queries' top 10 against a plain scan in the page
 *   search-copied  the peer, on a fresh page: the vectors read back whole into the page, packed row-major and
 *             sent with every search, indexed in the worker for that call only (the path before the worker
 *             kept a matrix): its peak over idle and its times, and the kept path's ratios to them
 *   run       the whole run: wall ms, the browser's peak resident memory (sampled every 200 ms), storage used
 *
 * The browser runs a persistent profile in the temp dir (IndexedDB on disk, as a user's is; an incognito
 * context would keep it in the browser's memory). Memory: rssMB after the phase, peakRssMB its highest during
 * the phase (anonMB and peakAnonMB: the same without file pages mapped from disk, test/support/browser-rss.ts);
 * jsHeapMB is the page's `performance.memory` heap (Chromium-only, coarse), uaMemoryMB and
 * uaWorkerMB what `performance.measureUserAgentSpecificMemory()` attributes to the page and its workers (null
 * when unavailable).
 */
import { readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { writeTinyBert } from '../scripts/models/tiny-bert.ts';
import { browserMemoryMB, browserRssMB } from '../test/support/browser-rss.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import type { PageMemory } from '../test/e2e/pages/kept-corpus.ts';
import { FIQA_SIZED, zipfCollection } from './lib/zipf-corpus.ts';

const MODEL = 'fliplab/fiqa-1024-random';
const KIND = 'mean' as const;
const DB = 'fliplab-bench-fiqa-sized';
const SAMPLE = 100;
const RSS_EVERY_MS = 200;
/** Generated passages are ~3.1 tokens a word with the generated vocabulary: ~400 tokens at FiQA's ~130 words. */
const TOKENS_PER_PASSAGE = 400;
/** How long before the reload the encode phase starts its user-agent memory measurement. */
const UA_LEAD_MS = 65_000;

export interface FiqaSizedOptions {
  readonly json: boolean;
  /** Default 57,638 (FIQA_SIZED). */
  readonly passages?: number;
  /** Transformer layers of the 1,024-wide encoder. Default 0. */
  readonly layers?: number;
  /** Tokens per passage at most (the config's maxLength). Default 128. */
  readonly maxLength?: number;
  /** Depths of the dense search. Default [100, 1000]. */
  readonly ks?: readonly number[];
  /**
   * Ask `performance.measureUserAgentSpecificMemory()` (default true). With ONNX Runtime's wasm threads
   * running it takes its ~60 s timeout: the encode phase starts it a minute before the reload, and skips it
   * when the job is too short for that.
   */
  readonly uaMemory?: boolean;
}

export type FiqaSizedRow = Record<string, unknown> & { readonly phase: string };

/**
 * Samples the browser's memory until stopped: resident (rss) and its own part (anon: without file pages mapped
 * from disk, test/support/browser-rss.ts), the peak since the last `phasePeak()`, and overall.
 */
function rssSampler() {
  let peak = 0;
  let phase = 0;
  let phaseAnon = 0;
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const mb = browserMemoryMB();
      peak = Math.max(peak, mb.rss);
      phase = Math.max(phase, mb.rss);
      phaseAnon = Math.max(phaseAnon, mb.anon);
      await new Promise((r) => setTimeout(r, RSS_EVERY_MS));
    }
  })();
  return {
    phasePeak: async () => {
      const now = browserMemoryMB();
      const p = Math.max(phase, now.rss);
      const a = Math.max(phaseAnon, now.anon);
      phase = now.rss;
      phaseAnon = now.anon;
      peak = Math.max(peak, now.rss);
      return { rssMB: Math.round(now.rss), peakRssMB: Math.round(p), anonMB: Math.round(now.anon), peakAnonMB: Math.round(a) };
    },
    peak: () => Math.round(peak),
    stop: async () => {
      sampling = false;
      await loop;
    },
  };
}

const round = (x: number | null | undefined, digits = 0): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Number(x.toFixed(digits));

function memoryFields(m: PageMemory) {
  return {
    jsHeapMB: round(m.pageHeapMB),
    uaMemoryMB: round(m.uaTotalMB),
    uaWorkerMB: m.uaByScopeMB === null ? null : round(m.uaByScopeMB.DedicatedWorkerGlobalScope ?? 0),
    uaMs: round(m.uaMs),
    ...(m.error === null ? {} : { uaMemoryError: m.error }),
  };
}

async function ready(page: Page): Promise<void> {
  await page.waitForFunction(() => 'fliplabTest' in window);
}

export async function runFiqaSized(work: string, log: (line: string) => void, options: FiqaSizedOptions): Promise<FiqaSizedRow[]> {
  const { json } = options;
  const n = options.passages ?? FIQA_SIZED.docs;
  const layers = options.layers ?? 0;
  const maxLength = options.maxLength ?? 128;
  const ks = options.ks ?? [100, 1000];
  const ua = options.uaMemory ?? true;
  const rows: FiqaSizedRow[] = [];
  const emit = (row: FiqaSizedRow) => {
    rows.push(row);
    if (json) log(JSON.stringify(row));
    else {
      const { phase, ...rest } = row;
      log(
        `${phase.padEnd(8)} ${Object.entries(rest)
          .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
          .join(' ')}`,
      );
    }
  };
  const runStarted = performance.now();

  // The corpus: passages cut to ~maxLength tokens (a third of their words at 128), queries as generated.
  const t0 = performance.now();
  const z = zipfCollection({ ...FIQA_SIZED, docs: n });
  const keep = maxLength / TOKENS_PER_PASSAGE;
  const texts = z.corpus.texts.map((t) => {
    const words = t.split(' ');
    return words.slice(0, Math.max(1, Math.round(words.length * keep))).join(' ');
  });
  const queries = z.queries.texts;
  const corpusMs = performance.now() - t0;

  const modelsRoot = join(work, 'models');
  const t1 = performance.now();
  const written = await writeTinyBert(
    join(modelsRoot, MODEL),
    { head: 'none', hiddenSize: 1024, layers, heads: 4, intermediate: 64, seed: 57, name: MODEL },
    { fp16: false, q8: false },
  );
  const modelMB = statSync(join(written.dir, 'onnx/model.onnx')).size / 2 ** 20;
  const vocab = (JSON.parse(readFileSync(join(written.dir, 'config.json'), 'utf8')) as { vocab_size: number }).vocab_size;
  const modelMs = performance.now() - t1;
  const dist = join(work, 'dist');
  await buildTestPages(dist);
  const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
  const threads = cpus().length;
  emit({
    phase: 'setup',
    passages: n,
    queries: queries.length,
    dim: 1024,
    layers,
    heads: 4,
    intermediate: 64,
    vocab,
    maxLength,
    meanWords: round(texts.reduce((s, t) => s + t.split(' ').length, 0) / n, 1),
    modelMB: round(modelMB, 1),
    corpusMs: Math.round(corpusMs),
    modelMs: Math.round(modelMs),
    threads,
    load: round(loadavg()[0]!, 2),
    note:
      layers === 0
        ? 'no transformer layer: embeddings + LayerNorm + mean pooling at width 1024 (the storage path, not model FLOPs)'
        : `${layers} transformer layer(s) at width 1024`,
  });

  const context: BrowserContext = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: CHROMIUM,
    // measureUserAgentSpecificMemory otherwise waits for the next garbage collection (up to ~20 s).
    args: [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'],
  });
  const rss = rssSampler();
  const pageUrl = `${server.url}encode.html?cache=1&threads=${threads}`;
  const args = [MODEL, KIND, maxLength] as const;
  const sample = Array.from({ length: Math.min(SAMPLE, n) }, (_, i) => Math.floor((i * n) / Math.min(SAMPLE, n)));
  /** The sample's vectors as a page holds them, against the same passages encoded fresh there. */
  const compareSample = (on: Page) =>
    on.evaluate(([a, idx, t]) => window.fliplabTest.compareKept('wasm', a[0], a[1], a[2], idx, t), [
      args,
      sample,
      sample.map((i) => texts[i]!),
    ] as const);
  try {
    // 1. encode, until half the passages are committed; then the page reloads mid-run.
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(pageUrl);
    await ready(page);
    const idleRssMB = Math.round(browserRssMB());
    await page.evaluate(([a, t, db, at]) => window.fliplabTest.startKeptCorpus('wasm', a[0], a[1], a[2], t, db, at), [
      args,
      texts,
      DB,
      sample,
    ] as const);
    const half = Math.ceil(n / 2);
    let encodeMemory: PageMemory | null = null;
    let memoryStarted = false;
    for (;;) {
      const [seen, state, memory] = await page.evaluate(
        () => [window.fliplabTest.keptProgress(), window.fliplabTest.keptState(), window.fliplabTest.memoryState()] as const,
      );
      if (state.error !== null) throw new Error(`encode: ${state.error}`);
      if (memoryStarted && memory?.done) encodeMemory = memory.memory;
      const encoded = seen === null ? 0 : seen.done - seen.cached;
      if (!memoryStarted && seen?.perSecond) {
        // Started so that it ends about when half is committed, if the job runs long enough after that.
        const toHalfMs = ((half - encoded) * 1000) / seen.perSecond;
        const toEndMs = ((seen.total - seen.done) * 1000) / seen.perSecond;
        if (!ua || toEndMs < UA_LEAD_MS + 30_000) {
          memoryStarted = true;
          encodeMemory = await page.evaluate((u) => window.fliplabTest.pageMemory(u), false);
          if (ua)
            encodeMemory = { ...encodeMemory, error: 'measureUserAgentSpecificMemory: skipped (the job is too short to measure mid-run)' };
        } else if (toHalfMs <= UA_LEAD_MS) {
          memoryStarted = true;
          await page.evaluate(() => window.fliplabTest.startPageMemory());
        }
      }
      if (state.finished || (encoded >= half && (encodeMemory !== null || !memoryStarted))) break;
      await new Promise((r) => setTimeout(r, n < 2000 ? 10 : 100));
    }
    encodeMemory ??= await page.evaluate((u) => window.fliplabTest.pageMemory(u), false);
    const before = (await page.evaluate(() => window.fliplabTest.keptProgress()))!;
    const encodingMs = before.ms - (before.encodingStartedMs ?? 0);
    const encoded1 = before.done - before.cached;
    emit({
      phase: 'encode',
      passages: n,
      dim: 1024,
      committed: before.done,
      ms: Math.round(before.ms),
      lookupMs: round(before.lookupMs),
      modelLoadMs: round((before.encodingStartedMs ?? 0) - (before.lookupMs ?? 0)),
      // The job's own rate (the model load and the first batch left out), and the wall rate from the start.
      passagesPerSecond: round(before.perSecond, 1),
      tokensPerSecond: round(before.perSecond === null ? null : (before.perSecond * before.tokens) / Math.max(1, encoded1)),
      wallPassagesPerSecond: round((encoded1 * 1000) / Math.max(1, encodingMs), 1),
      tokensPerPassage: round(before.tokens / Math.max(1, encoded1), 1),
      batches: before.batches,
      ...(await rss.phasePeak()),
      ...memoryFields(encodeMemory),
    });

    // 2. reload mid-run, then the same job: what it finds committed, and the rest.
    await page.reload();
    await ready(page);
    const stored = await page.evaluate((db) => window.fliplabTest.storedVectors(db), DB);
    await page.evaluate(([a, t, db, at]) => window.fliplabTest.startKeptCorpus('wasm', a[0], a[1], a[2], t, db, at), [
      args,
      texts,
      DB,
      sample,
    ] as const);
    const resumed = await page.evaluate(() => window.fliplabTest.keptResult());
    if (resumed === null || 'error' in resumed) throw new Error(`resume: ${resumed === null ? 'no job' : resumed.error}`);
    const resumeMemory = await page.evaluate((u) => window.fliplabTest.pageMemory(u), ua);
    const resumeRss = await rss.phasePeak();
    const resumeCheck = await compareSample(page);
    emit({
      phase: 'resume',
      passages: n,
      dim: resumed.dim,
      interrupted: before.done < n,
      committedBeforeReload: before.done,
      storedAtResume: stored.vectors,
      cachedAtResume: resumed.cached,
      encoded: resumed.encoded,
      // Committed vectors the reload lost (0: only the batch in flight was encoded again).
      lostCommitted: Math.max(0, before.done - resumed.cached),
      total: resumed.vectors,
      ms: Math.round(resumed.ms),
      lookupMs: round(resumed.lookupMs),
      modelLoadMs: resumed.encodingStartedMs === null ? null : round(resumed.encodingStartedMs - (resumed.lookupMs ?? 0)),
      passagesPerSecond: round(resumed.perSecond, 1),
      tokensPerSecond: round(resumed.perSecond === null ? null : (resumed.perSecond * resumed.tokens) / Math.max(1, resumed.encoded)),
      batches: resumed.batches,
      ...resumeRss,
      ...memoryFields(resumeMemory),
    });
    await page.close();

    // 3. second visit: a new page, the same job, everything from IndexedDB, into the worker's matrix.
    const matrixMB = (n * 1024 * 4) / 2 ** 20;
    const next = await context.newPage();
    await next.goto(pageUrl);
    await ready(next);
    await rss.phasePeak();
    const keptIdle = browserMemoryMB();
    const keptIdleMB = keptIdle.rss;
    await next.evaluate(([a, t, db, at]) => window.fliplabTest.startKeptCorpus('wasm', a[0], a[1], a[2], t, db, at), [
      args,
      texts,
      DB,
      sample,
    ] as const);
    const rebuilt = await next.evaluate(() => window.fliplabTest.keptResult());
    if (rebuilt === null || 'error' in rebuilt) throw new Error(`rebuild: ${rebuilt === null ? 'no job' : rebuilt.error}`);
    const rebuildMemory = await next.evaluate((u) => window.fliplabTest.pageMemory(u), ua);
    const storedAfter = await next.evaluate((db) => window.fliplabTest.storedVectors(db), DB);
    const rebuildRss = await rss.phasePeak();
    emit({
      phase: 'rebuild',
      passages: n,
      dim: rebuilt.dim,
      cached: rebuilt.cached,
      encoded: rebuilt.encoded,
      device: rebuilt.device,
      ms: Math.round(rebuilt.ms),
      lookupMs: round(rebuilt.lookupMs),
      passagesPerSecond: round((rebuilt.vectors * 1000) / rebuilt.ms),
      storedVectors: storedAfter.vectors,
      storedMB: round(storedAfter.encodings.reduce((s, e) => s + e.bytes, 0) / 2 ** 20, 1),
      ...rebuildRss,
      overIdleMB: Math.round(rebuildRss.rssMB - keptIdleMB),
      idleAnonByType: keptIdle.anonByType,
      anonByType: browserMemoryMB().anonByType,
      ...memoryFields(rebuildMemory),
    });

    // The sample after the rebuild against a fresh encoding.
    const rebuildCheck = await compareSample(next);

    // 4. dense search in the worker over the matrix the rebuild left there: only the queries cross.
    await rss.phasePeak();
    const searched = await next.evaluate(([a, q, k]) => window.fliplabTest.searchKept('wasm', a[0], a[1], a[2], q, k), [
      args,
      queries,
      ks,
    ] as const);
    const searchMemory = await next.evaluate((u) => window.fliplabTest.pageMemory(u), ua);
    const searchRss = await rss.phasePeak();
    // The goal: the page's peak from its idle state through the rebuild and the searches within 2 × the matrix.
    const keptPeakOverIdle = Math.max(rebuildRss.peakRssMB, searchRss.peakRssMB) - keptIdleMB;
    const keptAnonOverIdle = Math.max(rebuildRss.peakAnonMB, searchRss.peakAnonMB) - keptIdle.anon;
    emit({
      phase: 'search',
      passages: searched.rows,
      dim: searched.dim,
      queries: searched.queries,
      modelLoadMs: Math.round(searched.loadMs),
      queryMs: Math.round(searched.queryMs),
      queriesPerSecond: round((searched.queries * 1000) / searched.queryMs, 1),
      queryTokens: searched.queryTokens,
      ...Object.fromEntries(searched.searches.map((s) => [`searchMsTop${s.k}`, Math.round(s.ms)])),
      device: searched.searches[0]?.device ?? null,
      ...searchRss,
      idleRssMB: Math.round(keptIdleMB),
      matrixMB: round(matrixMB),
      peakOverIdleMB: Math.round(keptPeakOverIdle),
      anonPeakOverIdleMB: Math.round(keptAnonOverIdle),
      goalMB: round(2 * matrixMB),
      withinGoalRss: keptPeakOverIdle <= 2 * matrixMB,
      withinGoalAnon: keptAnonOverIdle <= 2 * matrixMB,
      anonByType: browserMemoryMB().anonByType,
      ...memoryFields(searchMemory),
    });
    const scan = await next.evaluate(([a, t, db]) => window.fliplabTest.checkKeptTop10('wasm', a[0], a[1], a[2], t, db), [
      args,
      texts,
      DB,
    ] as const);

    // The vectors after resume and after rebuild against a fresh encoding of the same passages.
    emit({
      phase: 'check',
      sample: sample.length,
      resumeMaxAbsDiff: resumeCheck.maxAbsDiff,
      rebuildMaxAbsDiff: rebuildCheck.maxAbsDiff,
      checkedQueries: scan.checkedQueries,
      top10Agree: scan.top10Agree,
      pass: resumeCheck.maxAbsDiff <= 1e-5 && rebuildCheck.maxAbsDiff <= 1e-5 && rebuilt.encoded === 0 && scan.top10Agree,
    });
    await next.evaluate(() => window.fliplabTest.dropKept());
    await next.close();

    // 5. the peer, on a fresh page: the whole matrix read into the page and sent with every search.
    const peer = await context.newPage();
    await peer.goto(pageUrl);
    await ready(peer);
    await rss.phasePeak();
    const copyIdle = browserMemoryMB();
    const copyIdleMB = copyIdle.rss;
    const copied = await peer.evaluate(([a, t, db, q, k]) => window.fliplabTest.searchCopied('wasm', a[0], a[1], a[2], t, db, q, k), [
      args,
      texts,
      DB,
      queries,
      ks,
    ] as const);
    const copyRss = await rss.phasePeak();
    const copyPeakOverIdle = copyRss.peakRssMB - copyIdleMB;
    const copyAnonOverIdle = copyRss.peakAnonMB - copyIdle.anon;
    emit({
      phase: 'search-copied',
      passages: copied.rows,
      queries: copied.queries,
      readMs: Math.round(copied.readMs),
      ...Object.fromEntries(copied.searches.map((s) => [`searchMsTop${s.k}`, Math.round(s.ms)])),
      ...copyRss,
      idleRssMB: Math.round(copyIdleMB),
      peakOverIdleMB: Math.round(copyPeakOverIdle),
      anonPeakOverIdleMB: Math.round(copyAnonOverIdle),
      keptOverCopiedPeak: round(keptPeakOverIdle / Math.max(1, copyPeakOverIdle), 2),
      keptOverCopiedAnonPeak: round(keptAnonOverIdle / Math.max(1, copyAnonOverIdle), 2),
      ...Object.fromEntries(
        copied.searches.map((s, i) => [`keptOverCopiedTop${s.k}`, round(searched.searches[i]!.ms / Math.max(1, s.ms), 2)]),
      ),
    });
    const storage = await peer.evaluate(() => window.fliplabTest.storageEstimate());
    emit({
      phase: 'run',
      passages: n,
      dim: 1024,
      ms: Math.round(performance.now() - runStarted),
      idleRssMB,
      peakRssMB: rss.peak(),
      storageUsageMB: round((storage.usage ?? 0) / 2 ** 20),
      storageQuotaMB: round((storage.quota ?? 0) / 2 ** 20),
      load: round(loadavg()[0]!, 2),
    });
  } finally {
    await rss.stop();
    await context.close();
    await server.close();
  }
  return rows;
}
