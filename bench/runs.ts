/**
 * Bring-your-own-results bench: an MS MARCO dev-sized pair of TREC runs — 6,980 queries × 1,000 documents
 * (7M lines, ~250 MB each), deterministic — and ~9k qrels lines, as a user's Anserini/Pyserini runs would be.
 *
 *   npm run bench:runs                      (TREC_EVAL=/path/to/trec_eval adds the C tool's time)
 *   node --import tsx bench/runs.ts --small (a 100-query pair: the smoke leg); --keep-files leaves the files;
 *   --no-lab skips the browser leg
 *
 * CLI leg (whole processes, start-up included, runs interleaved): `fliplab flips qrels a.run b.run --depths
 * 1,10,100` and `fliplab significance qrels --reference a.run --candidate b.run -m ndcg_cut.10` (default
 * 10,000 sign flips and resamples) next to `fliplab eval -m ndcg_cut.10 qrels a.run` on one of the runs (the
 * peer), with each one's peak RSS from /usr/bin/time. Goals: flips ≤ 3× eval, flips peak memory ≤ 500 MB,
 * significance ≤ 3× eval.
 *
 * Lab leg (the production build in headless Chromium, a fresh profile): the qrels and both runs picked, no
 * corpus → the headline on screen, timed from the pick, next to the CLI flips time of this run (goal ≤ 5×);
 * then the JS heap of the page and of the lab worker (DevTools protocol, Runtime.getHeapUsage; goal < 1 GB
 * together), and a change of k timed to the next frame; then what the stored collection takes in IndexedDB (its runs
 * as the lab keeps them, lab/data/compact.ts) beside the files, and a reload from it to the headline.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, mulberry32 } from './lib/rng.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/fliplab.mjs');
const SMALL = process.argv.includes('--small');
const QUERIES = SMALL ? 100 : 6980;
const DOCS = 1000;
const RUNS = SMALL ? 2 : 3;
const TIME = '/usr/bin/time';
/** Passages in the collection the runs rank (MS MARCO has 8.8M). */
const PASSAGES = 8_800_000;

/** A buffered file writer: lines go out in 1 MiB writes, so 7M lines never sit in memory as one string. */
class Writer {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  line(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size > 1 << 20) this.flush();
  }
  private flush(): void {
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * The pair: run a ranks 1,000 random passages per query by descending score; run b keeps a's top 1,000 but
 * moves each document by a random amount and swaps a tenth of them for other passages (a changed retriever).
 * Qrels: 1–2 positive passages per query (~1.3 on average, as MS MARCO dev), placed at a random rank of run a
 * (often in the top 10) or nowhere.
 */
function generate(dir: string): { a: string; b: string; qrels: string; lines: number; bytes: number; qrelsLines: number } {
  const rand = mulberry32(20261202);
  const paths = { a: join(dir, 'a.run'), b: join(dir, 'b.run'), qrels: join(dir, 'qrels.dev.tsv') };
  const wa = new Writer(paths.a);
  const wb = new Writer(paths.b);
  const wq = new Writer(paths.qrels);
  let qrelsLines = 0;
  for (let q = 0; q < QUERIES; q++) {
    const qid = String(1_000_000 + q * 37);
    const used = new Set<number>();
    const docs: number[] = [];
    while (docs.length < DOCS) {
      const d = Math.floor(rand() * PASSAGES);
      if (!used.has(d)) {
        used.add(d);
        docs.push(d);
      }
    }
    docs.forEach((d, i) => wa.line(`${qid} Q0 ${d} ${i + 1} ${(30 - i * 0.025).toFixed(4)} bm25\n`));
    const moved = docs.map((d, i) => ({ d: rand() < 0.1 ? Math.floor(rand() * PASSAGES) : d, key: i + (rand() - 0.5) * 60 }));
    const seen = new Set<number>();
    const b = moved.sort((x, y) => x.key - y.key).filter((x) => !seen.has(x.d) && seen.add(x.d));
    b.forEach((x, i) => wb.line(`${qid} Q0 ${x.d} ${i + 1} ${(90 - i * 0.05).toFixed(4)} dense\n`));
    const positives = rand() < 0.3 ? 2 : 1;
    for (let p = 0; p < positives; p++) {
      const r = rand();
      const pos = r < 0.5 ? Math.floor(rand() * 10) : r < 0.8 ? Math.floor(rand() * DOCS) : -1;
      const doc = pos >= 0 ? docs[pos]! : PASSAGES + q * 2 + p;
      wq.line(`${qid} 0 ${doc} 1\n`);
      qrelsLines++;
    }
  }
  wa.close();
  wb.close();
  wq.close();
  return { ...paths, lines: QUERIES * DOCS, bytes: statSync(paths.a).size, qrelsLines };
}

interface Timed {
  readonly all: number[];
  readonly ms: number;
  readonly rssKiB: number | undefined;
}

/** Each command RUNS times after a warm-up, interleaved so that load on this shared machine hits all alike. */
function timeInterleaved(commands: readonly { cmd: string; args: string[] }[]): Timed[] {
  const haveTime = existsSync(TIME);
  const once = ({ cmd, args }: { cmd: string; args: string[] }) => {
    const t0 = performance.now();
    const r = haveTime
      ? spawnSync(TIME, ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })
      : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return { ms, rss: haveTime ? Number(r.stderr.trim().split('\n').pop()) : undefined };
  };
  for (const c of commands) once(c);
  const runs = commands.map(() => [] as ReturnType<typeof once>[]);
  for (let i = 0; i < RUNS; i++) commands.forEach((c, k) => runs[k]!.push(once(c)));
  return runs.map((rs) => ({
    all: rs.map((r) => r.ms),
    ms: median(rs.map((r) => r.ms)),
    rssKiB: rs.every((r) => r.rss !== undefined) ? Math.max(...rs.map((r) => r.rss!)) : undefined,
  }));
}

const mib = (kib: number | undefined): string => (kib === undefined ? 'n/a' : `${(kib / 1024).toFixed(0)} MiB`);

/** The lab leg: see the file comment. */
async function labLeg(gen: { a: string; b: string; qrels: string }, cliFlipsMs: number): Promise<void> {
  const { build } = await import('vite');
  const { launchChromium } = await import('../test/e2e/browser.ts');
  const { startHubServer } = await import('../test/support/hub-server.ts');
  const work = mkdtempSync(join(tmpdir(), 'fliplab-bench-runs-lab-'));
  const server = await (async () => {
    await build({
      root: ROOT,
      configFile: join(ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: join(work, 'dist'), emptyOutDir: true },
    });
    return startHubServer({ staticRoot: join(work, 'dist') });
  })();
  const browser = await launchChromium({ webgpu: false });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(server.url);
    const cdp = await context.newCDPSession(page);
    const t0 = performance.now();
    await page.getByTestId('pick-files').setInputFiles([gen.qrels, gen.a, gen.b]);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="headline"] p').length > 0, null, {
      timeout: 600_000,
      polling: 200,
    });
    const ms = performance.now() - t0;
    // Heap of the page and of every worker it started (the lab worker holds the runs).
    const heaps: number[] = [((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize];
    const browserCdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await browserCdp.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string }[] };
    for (const t of targetInfos.filter((x) => x.type === 'worker')) {
      const { sessionId } = (await browserCdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })) as {
        sessionId: string;
      };
      const used = await new Promise<number>((resolve) => {
        browserCdp.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
          const msg = JSON.parse(e.message) as { id?: number; result?: { usedSize: number } };
          if (e.sessionId === sessionId && msg.id === 1) resolve(msg.result?.usedSize ?? 0);
        });
        void browserCdp.send('Target.sendMessageToTarget', {
          sessionId,
          message: JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }),
        });
      });
      heaps.push(used);
    }
    const heap = heaps.reduce((a, b) => a + b, 0);
    // A change of k, to the next frame.
    const frame = (await page.evaluate(`(async () => {
      const select = document.querySelector('.fl-analysis select');
      const t = performance.now();
      select.value = select.value === '10' ? '1' : '10';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => r()));
      return performance.now() - t;
    })()`)) as number;
    const ratio = ms / cliFlipsMs;
    console.log(
      `  lab: pick → headline                          ${ms.toFixed(0).padStart(6)} ms   (${ratio.toFixed(2)}× the CLI flips) [goal ≤ 5×: ${ratio <= 5 ? 'PASS' : 'NOT MET'}]`,
    );
    console.log(
      `  lab: JS heap, page + workers (${heaps.length} heaps)   ${(heap / 2 ** 20).toFixed(0).padStart(6)} MiB   [goal < 1 GB: ${heap < 1e9 ? 'PASS' : 'NOT MET'}]`,
    );
    console.log(
      `  lab: change of k, input → next frame         ${frame.toFixed(1).padStart(6)} ms   [goal ≤ 16 ms: ${frame <= 16 ? 'PASS' : 'NOT MET'}]`,
    );
    // What the collection takes in IndexedDB once stored (the kept runs, not the files), and a reload from it.
    const filesBytes = [gen.qrels, gen.a, gen.b].reduce((sum, f) => sum + statSync(f).size, 0);
    const stored = async (): Promise<{ kept: boolean; bytes: number }> =>
      (await page.evaluate(`(async () => {
        const db = await new Promise((resolve, reject) => {
          const r = indexedDB.open('fliplab-collections');
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
        const all = await new Promise((resolve) => {
          const r = db.transaction('files').objectStore('files').getAll();
          r.onsuccess = () => resolve(r.result);
        });
        db.close();
        const files = all[0]?.files ?? [];
        return {
          kept: files.some((f) => f.path.endsWith('.fliplab-run.jsonl.gz')),
          bytes: files.reduce((s, f) => s + (f.blob?.size ?? f.bytes.byteLength), 0),
        };
      })()`)) as { kept: boolean; bytes: number };
    const t1 = performance.now();
    let now = await stored();
    while (!now.kept && performance.now() - t1 < 300_000) {
      await new Promise((r) => setTimeout(r, 250));
      now = await stored();
    }
    const keepMs = performance.now() - t1;
    const t2 = performance.now();
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="headline"] p').length > 0, null, {
      timeout: 600_000,
      polling: 200,
    });
    const reloadMs = performance.now() - t2;
    console.log(
      `  lab: stored collection (kept runs, ${(keepMs / 1000).toFixed(1)} s after the headline)  ${(now.bytes / 2 ** 20).toFixed(1).padStart(6)} MiB   ` +
        `(the files: ${(filesBytes / 2 ** 20).toFixed(0)} MiB, ${(filesBytes / now.bytes).toFixed(0)}×)`,
    );
    console.log(
      `  lab: reload → headline, from the stored collection  ${reloadMs.toFixed(0).padStart(6)} ms   (${(reloadMs / ms).toFixed(2)}× the first open)`,
    );
    await context.close();
  } finally {
    await browser.close();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fliplab-bench-runs-'));
  try {
    const t0 = performance.now();
    const gen = generate(dir);
    console.log(
      `bench:runs — node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; two runs of ` +
        `${gen.lines.toLocaleString('en-US')} lines (${QUERIES} queries × ${DOCS}), ${(gen.bytes / 2 ** 20).toFixed(0)} MiB each; ` +
        `qrels ${gen.qrelsLines.toLocaleString('en-US')} lines (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s); ` +
        `median of ${RUNS} after a warm-up, interleaved`,
    );
    const flips = {
      cmd: process.execPath,
      args: [BIN, 'flips', gen.qrels, '--reference', gen.a, '--candidate', gen.b, '--depths', '1,10,100', '--json'],
    };
    const evalOne = { cmd: process.execPath, args: [BIN, 'eval', '-m', 'ndcg_cut.10', gen.qrels, gen.a] };
    const significance = {
      cmd: process.execPath,
      args: [BIN, 'significance', gen.qrels, '--reference', gen.a, '--candidate', gen.b, '-m', 'ndcg_cut.10', '--json'],
    };
    const trecEval = process.env['TREC_EVAL'];
    const commands = [
      flips,
      evalOne,
      significance,
      ...(trecEval ? [{ cmd: trecEval, args: ['-m', 'ndcg_cut.10', gen.qrels, gen.a] }] : []),
    ];
    const [tf, te, ts, tc] = timeInterleaved(commands);
    const ratio = tf!.ms / te!.ms;
    console.log(`  fliplab flips --depths 1,10,100 (both runs)  ${tf!.ms.toFixed(0).padStart(6)} ms   peak ${mib(tf!.rssKiB)}`);
    console.log(`  fliplab eval -m ndcg_cut.10 (one run, peer)  ${te!.ms.toFixed(0).padStart(6)} ms   peak ${mib(te!.rssKiB)}`);
    if (tc) console.log(`  trec_eval -m ndcg_cut.10 (one run)           ${tc.ms.toFixed(0).padStart(6)} ms   peak ${mib(tc.rssKiB)}`);
    else console.log('  (TREC_EVAL not set: trec_eval not timed)');
    console.log(`  fliplab significance -m ndcg_cut.10 (both)   ${ts!.ms.toFixed(0).padStart(6)} ms   peak ${mib(ts!.rssKiB)}`);
    console.log(`  flips ÷ eval ${ratio.toFixed(2)}×   [goal ≤ 3×: ${ratio <= 3 ? 'PASS' : 'NOT MET'}]`);
    const sigRatio = ts!.ms / te!.ms;
    console.log(`  significance ÷ eval ${sigRatio.toFixed(2)}×   [goal ≤ 3×: ${sigRatio <= 3 ? 'PASS' : 'NOT MET'}]`);
    if (tf!.rssKiB !== undefined)
      console.log(`  flips peak memory ${mib(tf!.rssKiB)}   [goal ≤ 500 MB: ${tf!.rssKiB * 1024 <= 500e6 ? 'PASS' : 'NOT MET'}]`);
    if (!process.argv.includes('--no-lab')) await labLeg(gen, tf!.ms);
  } finally {
    if (process.argv.includes('--keep-files')) console.log(`  files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
