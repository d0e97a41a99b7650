/**
 * Depth honesty: an analysis at depth k of a run that ranks fewer than k documents per query treats the
 * missing ranks as "not retrieved" — overlap@100 of two 50-deep runs is at most 0.5, and no query keeps
 * "the same top-100". The number is computed, but it answers a question the run cannot; these warnings say
 * so (on stderr and as `warnings` in JSON output).
 */
import type { Run } from './types.ts';

export interface DepthWarning {
  /** The run's name. */
  readonly run: string;
  /** The requested depth or cutoff. */
  readonly requested: number;
  /** The most documents the run ranks for one query. */
  readonly runDepth: number;
  /** Queries of the run that rank fewer than `requested` documents, of `queries`. */
  readonly shortQueries: number;
  readonly queries: number;
  readonly message: string;
}

/** How many documents each query of `run` ranks (all of them, for a list kept to a depth). */
export function listLengths(run: Run): number[] {
  return [...run.byQuery.values()].map((l) => l.length ?? l.docs.length);
}

/**
 * One warning per run and requested depth that some of its queries do not reach; `label` names the depth
 * in the message ("depth 100", "cutoff P_100").
 */
export function depthWarnings(
  runs: readonly { readonly name: string; readonly lengths: readonly number[] }[],
  requested: readonly { readonly k: number; readonly label: string }[],
): DepthWarning[] {
  const out: DepthWarning[] = [];
  for (const r of runs) {
    let depth = 0;
    for (const n of r.lengths) if (n > depth) depth = n;
    for (const { k, label } of requested) {
      let short = 0;
      for (const n of r.lengths) if (n < k) short++;
      if (short === 0) continue;
      const what =
        depth < k
          ? `${label} exceeds the depth of run "${r.name}" (at most ${depth} documents per query)`
          : `${label}: ${short} of ${r.lengths.length} queries of run "${r.name}" rank fewer than ${k} documents`;
      out.push({
        run: r.name,
        requested: k,
        runDepth: depth,
        shortQueries: short,
        queries: r.lengths.length,
        message: `${what}: missing ranks count as not retrieved, so values at ${k} say little about the retriever`,
      });
    }
  }
  return out;
}
