/**
 * How promptly the encode bridge lets go. test/e2e/encode.e2e.test.ts proves the order of events (an aborted
 * call rejects in the task that aborted, before the worker can answer again; an idle worker ends by itself and
 * not before half its idle period); the times are measured here, on the test page's real bridge and worker
 * (WASM, one thread) with the tiny BERT fixture, `trials` rounds, median:
 * - abort before the call: from the abort to the call's AbortError;
 * - abort 300 ms into a call on a fresh worker (still compiling ORT's wasm and loading the model): from the abort
 *   to the AbortError; peer: the same call on a fresh worker left to finish, from its start;
 * - idle shutdown, `idleMs` 300: from the call's return to the worker gone (the page looks every 5 ms); peer: the
 *   idle period itself.
 *
 *   npm run bench:encode -- --abort [--trials N]      (also printed after the throughput table of bench:encode)
 */
import { join } from 'node:path';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../scripts/models/make-fixtures.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { median } from './lib/rng.ts';

const MODEL = 'fliplab/tiny-bert';
const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];
const ABORT_AFTER_MS = 300;
const IDLE_MS = 300;

export interface AbortBenchRow {
  readonly leg: string;
  readonly ms: readonly number[];
}

export async function runAbortBench(work: string, log: (line: string) => void, opts: { trials?: number } = {}): Promise<AbortBenchRow[]> {
  const trials = opts.trials ?? 5;
  await makeModelFixtures();
  const dist = join(work, 'pages');
  await buildTestPages(dist);
  const server = await startHubServer({ modelsRoot: DEFAULT_MODELS_DIR, staticRoot: dist });
  const browser = await launchChromium({ webgpu: false });
  const rows = { before: [] as number[], running: [] as number[], finished: [] as number[], idle: [] as number[] };
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}encode.html?cache=0&idleMs=${IDLE_MS}`);
    await page.waitForFunction(() => 'fliplabTest' in window);
    const fresh = () => page.evaluate(() => window.fliplabTest.terminateWorker('wasm'));
    const abortAfter = (ms: number) =>
      page.evaluate(([m, t, after]) => window.fliplabTest.encodeThenAbort('wasm', m, 'mean', t, 'passage', after), [
        MODEL,
        TEXTS,
        ms,
      ] as const);
    for (let i = 0; i <= trials; i++) {
      await fresh();
      const before = await abortAfter(0);
      await fresh();
      const running = await abortAfter(ABORT_AFTER_MS);
      await fresh();
      const finished = await page.evaluate(([m, t]) => window.fliplabTest.tryEncodeWith('wasm', m, 'mean', t, 'passage'), [
        MODEL,
        TEXTS,
      ] as const);
      await fresh();
      const idle = await page.evaluate(([m, t]) => window.fliplabTest.encodeThenIdle('wasm', m, 'mean', t, 'passage', 30_000), [
        MODEL,
        TEXTS,
      ] as const);
      const aborted = (r: object) => 'error' in r && (r as { error: { name: string } }).error.name === 'AbortError';
      if (!aborted(before) || !aborted(running)) throw new Error(`not aborted: ${JSON.stringify([before, running]).slice(0, 300)}`);
      if ('error' in finished) throw new Error(`the call failed: ${finished.error.message}`);
      if (idle.events.at(-1) !== 'ended') throw new Error(`idle: ${idle.events.join(', ')}`);
      if (i === 0) continue; // warm-up: the OS file cache, the server, the browser's compile cache
      rows.before.push(before.elapsedMs);
      rows.running.push(running.elapsedMs);
      rows.finished.push(finished.elapsedMs);
      rows.idle.push(idle.endedAfterMs);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const line = (label: string, xs: readonly number[], peer?: string) =>
    log(
      `  ${label.padEnd(58)} ${median([...xs])
        .toFixed(1)
        .padStart(8)} ms  (${xs.map((x) => x.toFixed(1)).join(', ')})${peer ?? ''}`,
    );
  log(`encode bridge, abort and idle: ${MODEL}, WASM, ${trials} trials, median (each trial)`);
  line('abort before the call → AbortError', rows.before);
  line(`abort ${ABORT_AFTER_MS} ms into a call on a fresh worker → AbortError`, rows.running);
  line(
    'the same call left to finish, from its start (peer)',
    rows.finished,
    `   the abort answers in ${((100 * median(rows.running)) / median(rows.finished)).toFixed(2)}% of it`,
  );
  line(
    `call returned → idle worker gone, idleMs ${IDLE_MS} (peer: ${IDLE_MS} ms)`,
    rows.idle,
    `   ${(median(rows.idle) / IDLE_MS).toFixed(2)}× idleMs`,
  );
  return [
    { leg: 'abort before the call', ms: rows.before },
    { leg: 'abort a running call', ms: rows.running },
    { leg: 'the call left to finish', ms: rows.finished },
    { leg: 'idle worker gone', ms: rows.idle },
  ];
}
