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
  /** The most documents the run ranks for any query. */
  readonly runDepth: number;
  readonly message: string;
}

/** The most documents `run` ranks for one query (0 for an empty run). */
export function runDepth(run: Run): number {
  let max = 0;
  for (const list of run.byQuery.values()) if (list.docs.length > max) max = list.docs.length;
  return max;
}

/** One warning per run and requested depth beyond it; `label` names the depth in the message ("depth 100", "cutoff P_100"). */
export function depthWarnings(
  runs: readonly { readonly name: string; readonly depth: number }[],
  requested: readonly { readonly k: number; readonly label: string }[],
): DepthWarning[] {
  const out: DepthWarning[] = [];
  for (const r of runs) {
    for (const { k, label } of requested) {
      if (k <= r.depth) continue;
      out.push({
        run: r.name,
        requested: k,
        runDepth: r.depth,
        message:
          `${label} exceeds the depth of run "${r.name}" (at most ${r.depth} documents per query): ` +
          `ranks ${r.depth + 1}–${k} count as not retrieved, so values at ${k} say little about the retriever`,
      });
    }
  }
  return out;
}
