/**
 * Start-up bench: whole processes, as a user starts them, next to a bare `node -e 0` measured in the same
 * run (this machine is shared and noisy: ratios, medians of RUNS runs after a warm-up):
 *
 * - `fliplab --version`           goal ≤ 2.5× a bare node start
 * - `fliplab eval` on TREC DL19   goal ≤ 4× a bare node start (43 queries × 1000, trec_eval's default measures)
 *
 * plus the C trec_eval on the same DL19 files when TREC_EVAL points at one (for reference, no goal).
 *
 *   npm run bench:startup
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { SHARED_DATA } from '../test/shared-data.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/fliplab.mjs');
const RUNS = 15;
const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const QRELS = join(DL19, 'qrels.dl19-passage.txt');
const RUN = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');

function time(cmd: string, args: string[]): { median: number; best: number } {
  const once = (): number => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return performance.now() - t0;
  };
  once();
  const times = Array.from({ length: RUNS }, once).sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)]!, best: times[0]! };
}

function main(): void {
  if (!existsSync(RUN)) throw new Error(`DL19 not found under ${DL19} (set FLIPLAB_SHARED_DATA)`);
  console.log(
    `start-up bench — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)}; median (best) of ${RUNS}`,
  );
  const node = time(process.execPath, ['-e', '0']);
  const version = time(process.execPath, [BIN, '--version']);
  const evalDl19 = time(process.execPath, [BIN, 'eval', QRELS, RUN]);
  const c = process.env.TREC_EVAL && existsSync(process.env.TREC_EVAL) ? time(process.env.TREC_EVAL, [QRELS, RUN]) : undefined;
  const row = (label: string, t: { median: number; best: number }, vs?: number): string =>
    `${label.padEnd(34)} ${t.median.toFixed(0).padStart(5)} ms (${t.best.toFixed(0)})${vs === undefined ? '' : `   ${(t.median / vs).toFixed(2)}× node`}`;
  console.log(row('node -e 0', node));
  console.log(row('fliplab --version', version, node.median));
  console.log(row('fliplab eval (DL19, official)', evalDl19, node.median));
  if (c) console.log(row(`trec_eval (DL19) ${process.env.TREC_EVAL}`, c, node.median));
  else console.log('trec_eval: TREC_EVAL not set, no C reference');
  console.log('');
  const goal = (label: string, ratio: number, max: number): void =>
    console.log(`${ratio <= max ? 'PASS' : 'FAIL'}  ${label} ≤ ${max}× a bare node start: ${ratio.toFixed(2)}×`);
  goal('fliplab --version', version.median / node.median, 2.5);
  goal('fliplab eval on DL19', evalDl19.median / node.median, 4);
}

main();
