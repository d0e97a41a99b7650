/** A run as TREC run text (`qid Q0 docid rank score tag`), through the core's own writer. */
import { formatRun } from '../core/io/trec.ts';
import type { Run } from '../core/types.ts';

export { formatRunLines } from '../core/io/trec.ts';

/**
 * TREC text of a run: ranks 1..n in list order, scores in shortest round-trip form (re-reading gives the
 * same doubles), tag = `tag` or the run name with whitespace replaced by "_".
 */
export function runText(run: Run, tag?: string): string {
  return formatRun(run, tag);
}
