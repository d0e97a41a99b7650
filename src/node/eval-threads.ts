/**
 * `fliplab eval` on two cores: the run's bytes are read into shared memory and cut at a query boundary
 * near the middle (core/metrics/run-bytes.ts `splitRun`); a worker thread evaluates the second part while
 * this thread evaluates the first, both reading the same bytes without a copy; the rows are then put in
 * print order here. Each thread reads the qrels itself (in parallel: the same wall time as one read).
 *
 * Threads only pay on big runs and spare cores: a worker costs ~50 ms to start and reads the qrels again,
 * and both threads start cold, so V8's background compiler and GC threads compete with them. Measured on
 * the project's 2-vCPU machine, two threads were slower than one (1M lines: 0.72 s against 0.64 s, best of
 * 7), so they are used only with at least THREADED_MIN_CORES cores and THREADED_MIN_BYTES of run, and when
 * the compiled worker is there (not when running from the TypeScript sources, as the tests do).
 * FLIPLAB_THREADS=1 forces one thread, =2 forces two (the tests use it to prove both give the same bytes).
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EvalPlan, type MeasureSpec, type TrecEvalVersion } from '../core/metrics/index.ts';
import {
  assembleRanges,
  evaluateChunks,
  evaluateRange,
  firstRunTag,
  parseQrelsBytes,
  splitRun,
  type ByteEvalOptions,
  type ByteEvalResult,
  type ByteQrels,
  type RangeResult,
} from '../core/metrics/run-bytes.ts';
import type { TextSource } from '../core/io/lines.ts';
import { fileSource, openChunkReader, readFileBytes } from './files.ts';

/** Runs smaller than this are evaluated on one thread. */
export const THREADED_MIN_BYTES = 8 << 20;
/** Machines with fewer cores evaluate on one thread. */
export const THREADED_MIN_CORES = 4;

/** What a worker is asked (plain data: it crosses threads). */
export interface RangeJob {
  readonly qrels: Uint8Array;
  readonly run: Uint8Array;
  readonly specs: readonly MeasureSpec[];
  readonly version: TrecEvalVersion;
  readonly options: Omit<ByteEvalOptions, 'onQuery'>;
  readonly start: number;
  readonly end: number;
  readonly tag: string;
}

/** Evaluate a job's range: what a worker thread runs (and this thread, for its own part). */
export function runRangeJob(job: RangeJob, qrels?: ByteQrels, plan?: EvalPlan): RangeResult | undefined {
  const q = qrels ?? parseQrelsBytes(job.qrels);
  if (!q) return undefined;
  const p = plan ?? new EvalPlan(job.specs, job.version);
  return evaluateRange(q, job.run, job.start, job.end, p, job.options, new TextEncoder().encode(job.tag));
}

const WORKER_URL = new URL('./eval-worker.mjs', import.meta.url);

function threadsWanted(runPath: string): number {
  if (runPath === '-') return 1; // standard input: read as it comes
  const forced = process.env.FLIPLAB_THREADS;
  if (forced === '1' || forced === '2') return Number(forced);
  if (availableParallelism() < THREADED_MIN_CORES) return 1;
  try {
    return statSync(runPath).size >= THREADED_MIN_BYTES ? 2 : 1;
  } catch {
    return 1; // a missing file is reported by the read
  }
}

/** What `evaluateFiles` gives: the byte path's evaluation, or the whole run for the text parsers. */
export type FilesEvaluation = {
  readonly qrelsBytes: Uint8Array;
  readonly threads: number;
} & (
  | {
      /** The byte path's qrels (its repeated-judgment count is needed for the warning) and evaluation. */
      readonly qrels: ByteQrels;
      readonly fast: ByteEvalResult;
    }
  | {
      /** The byte path declined: the text parsers must read the run (and report what is wrong). */
      readonly fast: undefined;
      readonly run: TextSource;
    }
);

/**
 * Read both files and evaluate on one or two threads (see the module comment). `qrelsSource` is the qrels
 * file's path, or qrels bytes already in memory (several files layered into one: cli/qrels.ts).
 */
export async function evaluateFiles(
  qrelsSource: string | Uint8Array,
  runPath: string,
  plan: EvalPlan,
  opts: ByteEvalOptions,
): Promise<FilesEvaluation> {
  const threads = threadsWanted(runPath) === 2 && existsSync(fileURLToPath(WORKER_URL)) ? 2 : 1;
  const readQrels = (shared: { shared: boolean }): Promise<Uint8Array> =>
    typeof qrelsSource === 'string' ? readFileBytes(qrelsSource, shared) : Promise.resolve(qrelsSource);
  if (threads === 1 && runPath !== '-') {
    // One thread: the run streams through a small buffer (evaluateChunks), never whole in memory.
    const qrelsBytes = await readQrels({ shared: false });
    const qrels = parseQrelsBytes(qrelsBytes);
    if (qrels) {
      const reader = openChunkReader(runPath);
      let fast: ByteEvalResult | undefined;
      try {
        fast = evaluateChunks(qrels, reader.read, plan, opts);
      } finally {
        reader.close();
      }
      if (fast) return { qrelsBytes, qrels, fast, threads };
    }
    // the text parser streams the file too, and stops at the line it refuses
    return { qrelsBytes, fast: undefined, run: fileSource(runPath), threads };
  }
  // the worker boots while this thread reads the files
  const worker = threads === 2 ? new Worker(WORKER_URL) : undefined;
  try {
    const shared = { shared: threads === 2 };
    const [qrelsBytes, runBytes] = await Promise.all([readQrels(shared), readFileBytes(runPath, shared)]);
    const { onQuery, ...options } = opts;
    const tag = firstRunTag(runBytes);
    const job = { qrels: qrelsBytes, run: runBytes, specs: plan.specs, version: plan.version, options, tag: tag ?? '' };
    const cut = worker && tag !== undefined ? splitRun(runBytes, runBytes.length >> 1) : runBytes.length;
    const other =
      worker && cut < runBytes.length
        ? new Promise<RangeResult | undefined>((resolve, reject) => {
            worker.once('message', (r: RangeResult | null) => resolve(r ?? undefined));
            worker.once('error', reject);
            worker.postMessage({ ...job, start: cut, end: runBytes.length } satisfies RangeJob);
          })
        : Promise.resolve(undefined);
    const qrels = parseQrelsBytes(qrelsBytes);
    const mine = qrels && tag !== undefined ? runRangeJob({ ...job, start: 0, end: cut }, qrels, plan) : undefined;
    const theirs = await other;
    const parts = mine && (cut === runBytes.length ? [mine] : theirs && [mine, theirs]);
    const fast = qrels && parts ? assembleRanges(qrels, plan, { ...options, ...(onQuery && { onQuery }) }, tag!, parts) : undefined;
    return qrels && fast ? { qrelsBytes, qrels, fast, threads } : { qrelsBytes, fast: undefined, run: runBytes, threads };
  } finally {
    void worker?.terminate();
  }
}
