/**
 * The one ETA of every long job (downloads, BM25 runs, encoding): time left at the rate seen so far. Pure,
 * so the data layer, the workers and the page all estimate alike.
 */

/**
 * Milliseconds left for `total − done` more units at the average rate of the `done` units that took
 * `elapsedMs`: 0 when nothing is left, null while there is no rate yet (nothing done, no time elapsed,
 * or an unknown total).
 */
export function etaMs(done: number, total: number | null, elapsedMs: number): number | null {
  if (total === null) return null;
  if (done >= total) return 0;
  if (done <= 0 || elapsedMs <= 0) return null;
  return ((total - done) * elapsedMs) / done;
}
