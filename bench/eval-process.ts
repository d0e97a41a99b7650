/**
 * Whole-process eval bench: `fliplab eval -m all_trec` as a user runs it (node bin/fliplab.mjs, start-up
 * included) on a generated 1,000,000-line run — 1,000 queries × 1,000 documents, tie-heavy scores (two
 * decimals in [0, 20]), graded qrels (~100 judgments per query, 0–3, half on retrieved documents) — next
 * to the C trec_eval when one is built locally:
 *
 *   TREC_EVAL=/path/to/trec_eval npm run bench:metrics     (a -O2 build of usnistgov/trec_eval 10.0)
 *   TREC_EVAL_9=/path/to/trec_eval-9.0.8                   (optional: the same for --trec-eval 9.0.8)
 *
 * Without TREC_EVAL the bench says so and reports fliplab alone. With it, each output must be byte for
 * byte the C program's, and the goals are checked: fliplab ≥ 2× faster than trec_eval, peak memory within
 * 3× of trec_eval's. One exception to "byte for byte": trec_eval's rbp reads two uninitialised variables
 * (m_rbp.c: min, max), so an optimised build prints a value that depends on the compiler and on the other
 * measures requested; fliplab reproduces the plain `make` build (the shared reference outputs). The bench
 * names the lines that differ, and counts a difference in rbp alone as the same output.
 *
 * Timing on a shared, noisy machine: 7 runs of each command after one warm-up, fliplab's and trec_eval's
 * runs interleaved, so a burst of load lands on both; the speed-up is the median of the paired ratios (run
 * i of trec_eval ÷ run i of fliplab), shown with the ratio of the best runs. Peak RSS comes from
 * /usr/bin/time when the machine has it. Generated files live in os.tmpdir() and are removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 } from './lib/rng.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/fliplab.mjs');
const QUERIES = 1000;
const DOCS = 1000;
const JUDGED = 100;
const RUNS = 7;
const TIME = '/usr/bin/time';

function generate(dir: string): { run: string; qrels: string; lines: number; bytes: number } {
  const rand = mulberry32(20261201);
  const run: string[] = [];
  const qrels: string[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const qid = String(100000 + q);
    const used = new Set<number>();
    const docs: { id: string; score: number }[] = [];
    while (docs.length < DOCS) {
      const d = Math.floor(rand() * 8_800_000);
      if (used.has(d)) continue;
      used.add(d);
      docs.push({ id: `D${d}`, score: Math.round(rand() * 2000) / 100 }); // 2,001 distinct scores: ties everywhere
    }
    docs.sort((a, b) => b.score - a.score);
    docs.forEach((d, i) => run.push(`${qid} Q0 ${d.id} ${i + 1} ${d.score.toFixed(2)} bench\n`));
    const judged = new Set<string>();
    for (let j = 0; j < JUDGED; j++) {
      const id = j % 2 === 0 ? docs[Math.floor(rand() * docs.length)]!.id : `D${9_000_000 + q * JUDGED + j}`;
      if (judged.has(id)) continue;
      judged.add(id);
      qrels.push(`${qid} 0 ${id} ${Math.floor(rand() * 4)}\n`);
    }
  }
  const runPath = join(dir, 'run.1m.txt');
  const qrelsPath = join(dir, 'qrels.1m.txt');
  writeFileSync(runPath, run.join(''));
  writeFileSync(qrelsPath, qrels.join(''));
  return { run: runPath, qrels: qrelsPath, lines: run.length, bytes: statSync(runPath).size };
}

interface Timed {
  /** Every timed run's wall time, in run order (run i of each command ran next to run i of the others). */
  readonly all: number[];
  readonly ms: number;
  readonly best: number;
  readonly rssKiB: number | undefined;
  readonly stdout: string;
}

interface Command {
  readonly cmd: string;
  readonly args: string[];
  readonly env?: Record<string, string>;
}

/**
 * Median wall time of `RUNS` runs of each command (after one warm-up each), the runs interleaved (A B C A B C
 * …) so that a burst of load on this shared machine slows every command alike instead of one of them;
 * peak RSS of the most memory-hungry run; the first run's output.
 */
function timeInterleaved(commands: readonly Command[]): Timed[] {
  const haveTime = existsSync(TIME);
  const once = ({ cmd, args, env = {} }: Command): { ms: number; rss: number | undefined; stdout: string } => {
    const t0 = performance.now();
    const r = haveTime
      ? spawnSync(TIME, ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, ...env } })
      : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, ...env } });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const rss = haveTime ? Number(r.stderr.trim().split('\n').pop()) : undefined;
    return { ms, rss, stdout: r.stdout };
  };
  for (const c of commands) once(c);
  const runs = commands.map(() => [] as ReturnType<typeof once>[]);
  for (let i = 0; i < RUNS; i++) commands.forEach((c, k) => runs[k]!.push(once(c)));
  return runs.map((rs) => {
    const sorted = [...rs].sort((a, b) => a.ms - b.ms);
    const rss = rs.every((r) => r.rss !== undefined) ? Math.max(...rs.map((r) => r.rss!)) : undefined;
    return { all: rs.map((r) => r.ms), ms: sorted[Math.floor(RUNS / 2)]!.ms, best: sorted[0]!.ms, rssKiB: rss, stdout: rs[0]!.stdout };
  });
}

/** Measure names whose lines differ between two trec_eval outputs. */
function differingMeasures(a: string, b: string): string[] {
  const la = a.split('\n');
  const lb = b.split('\n');
  const names = new Set<string>();
  for (let i = 0; i < Math.max(la.length, lb.length); i++) if (la[i] !== lb[i]) names.add((la[i] ?? lb[i] ?? '').split('\t')[0]!.trim());
  return [...names];
}

const mib = (kib: number | undefined): string => (kib === undefined ? 'n/a' : `${(kib / 1024).toFixed(0)} MiB`);
const ms = (t: { ms: number; best: number }): string => `${t.ms.toFixed(0)} ms (${t.best.toFixed(0)})`;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'fliplab-bench-eval-'));
  try {
    const gen = generate(dir);
    console.log(
      `eval process bench — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)}; ` +
        `run ${gen.lines.toLocaleString('en-US')} lines (${QUERIES} q × ${DOCS}, tie-heavy), ${(gen.bytes / 2 ** 20).toFixed(0)} MiB; ` +
        `qrels ${readFileSync(gen.qrels, 'utf8').split('\n').length - 1} lines graded 0–3; median (best) of ${RUNS} after a warm-up`,
    );
    if (!existsSync(TIME)) console.log(`(${TIME} not found: peak memory not measured)`);
    const modes: { label: string; flag: string[]; env: string }[] = [
      { label: '10.0', flag: [], env: 'TREC_EVAL' },
      { label: '9.0.8', flag: ['--trec-eval', '9.0.8'], env: 'TREC_EVAL_9' },
    ];
    const rows: string[][] = [['command', 'wall median (best)', 'peak RSS', 'trec_eval ÷ fliplab: paired median (bests)', 'output']];
    const goals: string[] = [];
    for (const mode of modes) {
      for (const q of [false, true]) {
        const args = ['-m', 'all_trec', ...(q ? ['-q'] : []), gen.qrels, gen.run];
        const cPath = process.env[mode.env];
        const haveC = cPath !== undefined && existsSync(cPath);
        const twoThreads = !q && mode.label === '10.0';
        const commands: Command[] = [{ cmd: process.execPath, args: [BIN, 'eval', ...mode.flag, ...args] }];
        if (haveC) commands.push({ cmd: cPath, args });
        if (twoThreads) commands.push({ cmd: process.execPath, args: [BIN, 'eval', ...args], env: { FLIPLAB_THREADS: '2' } });
        const timed = timeInterleaved(commands);
        const ours = timed[0]!;
        const extra: string[][] = [];
        if (twoThreads) {
          const two = timed[timed.length - 1]!;
          const sameAsOne = two.stdout === ours.stdout ? 'same as one thread' : 'DIFFERENT from one thread';
          extra.push([`  fliplab, two threads forced (FLIPLAB_THREADS=2)`, ms(two), mib(two.rssKiB), '', sameAsOne]);
        }
        const label = `fliplab eval${mode.flag.length ? ` ${mode.flag.join(' ')}` : ''} -m all_trec${q ? ' -q' : ''}`;
        if (!haveC) {
          rows.push([label, ms(ours), mib(ours.rssKiB), `${mode.env} not set: no C peer`, ''], ...extra);
          continue;
        }
        const c = timed[1]!;
        const diff = differingMeasures(ours.stdout, c.stdout);
        const same = diff.length === 0 || (diff.length === 1 && diff[0] === 'rbp');
        // the median of the paired ratios (run i of trec_eval ÷ run i of fliplab, timed side by side)
        const ratios = c.all.map((t, i) => t / ours.all[i]!).sort((a, b) => a - b);
        const speed = ratios[Math.floor(ratios.length / 2)]!;
        const bestSpeed = c.best / ours.best;
        const verdict =
          diff.length === 0 ? 'identical' : same ? 'identical but rbp (C reads uninitialised memory)' : `DIFFERENT: ${diff.join(', ')}`;
        rows.push([label, ms(ours), mib(ours.rssKiB), `${speed.toFixed(2)}× (${bestSpeed.toFixed(2)}×)`, verdict], ...extra);
        rows.push([`  trec_eval ${mode.label}${q ? ' -q' : ''} (${cPath})`, ms(c), mib(c.rssKiB), '', '']);
        if (!q) {
          goals.push(
            `${speed >= 2 && same ? 'PASS' : 'FAIL'}  [${mode.label}] ≥ 2× faster than trec_eval, same output: ${speed.toFixed(2)}×, ${same ? 'identical' : 'different'}`,
          );
          if (ours.rssKiB !== undefined && c.rssKiB !== undefined) {
            const ratio = ours.rssKiB / c.rssKiB;
            goals.push(
              `${ratio <= 3 ? 'PASS' : 'FAIL'}  [${mode.label}] peak memory within 3× of trec_eval: ${ratio.toFixed(2)}× (${mib(ours.rssKiB)} vs ${mib(c.rssKiB)})`,
            );
          }
        }
      }
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
    console.log('');
    for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    console.log('');
    if (goals.length === 0)
      console.log('goals not checked: set TREC_EVAL to a locally built trec_eval (see the header of bench/eval-process.ts)');
    for (const g of goals) console.log(g);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
