/**
 * The worker thread of `fliplab eval` (eval-threads.ts): evaluates one byte range of a run and posts the
 * rows back (transferred, not copied). Compiled to dist-cli/eval-worker.mjs.
 */
import { parentPort } from 'node:worker_threads';
import { runRangeJob, type RangeJob } from './eval-threads.ts';

parentPort!.once('message', (job: RangeJob) => {
  const result = runRangeJob(job);
  parentPort!.postMessage(result ?? null, result ? [result.rows.buffer as ArrayBuffer] : []);
});
