/**
 * Runs as `flips`, `compare` and `answers flips` read them: streamed from their bytes (gzip too) and kept
 * to a depth per query (core/io/run-top.ts), so a 7M-line MS MARCO run does not become 7M strings.
 *
 * How deep: core/io/run-top.ts `keepRule`, as the lab keeps runs; `--keep N` keeps N documents per query.
 * Support ranks below the kept part stay exact (the judged documents' positions are recorded); the hybrids
 * fuse the kept lists.
 */
import type { KeepOptions, KeptRun } from '../core/io/run-top.ts';
import { KEEP_BUDGET_DOCS, KEEP_LARGE, KEEP_WHOLE, keepRule, readRunTop } from '../core/io/run-top.ts';
import { isGzip } from '../core/io/lines.ts';
import type { ParseResult } from '../core/io/trec.ts';
import type { DocId, Qrels, QueryId } from '../core/types.ts';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { fileChunks, readFileBytes } from '../node/files.ts';

/** How deep to keep runs for an analysis whose largest depth is `largest` (`keep`: the user's --keep). */
export function keepOptions(largest: number, keep: number | undefined, qrels?: Qrels): Omit<KeepOptions, 'name'> {
  const judged = qrels === undefined ? {} : { judged: (q: QueryId) => qrels.byQuery.get(q) as ReadonlyMap<DocId, number> | undefined };
  return { ...keepRule(largest, keep), ...judged };
}

/** Read the runs one after the other (one is being read at a time), named `names`. */
export async function readKeptRuns(
  paths: readonly string[],
  names: readonly string[],
  options: Omit<KeepOptions, 'name'>,
): Promise<ParseResult<KeptRun>[]> {
  const out: ParseResult<KeptRun>[] = [];
  for (const [i, path] of paths.entries()) {
    // Standard input cannot be read twice (a run with scattered queries is read again): keep its bytes.
    const stdin = path === '-' ? await readFileBytes(path) : undefined;
    const size = stdin === undefined ? plainFileSize(path) : undefined;
    out.push(
      await readRunTop(() => stdin ?? fileChunks(path), path, {
        ...options,
        name: names[i]!,
        ...(size === undefined ? {} : { sizeHint: size }),
      }),
    );
  }
  return out;
}

/** The --keep option's help, the same in every command that reads runs. */
export const KEEP_HELP =
  `documents kept per query (default: up to ${KEEP_WHOLE}; a run of more than ${KEEP_BUDGET_DOCS.toLocaleString('en-US')} ` +
  `documents keeps the largest depth asked, at least ${KEEP_LARGE}); the hybrids fuse the kept lists`;

/** A file's size when it is not gzip (a compressed size says little about its lines), else undefined. */
function plainFileSize(path: string): number | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const head = new Uint8Array(2);
      readSync(fd, head, 0, 2, 0);
      return isGzip(head) ? undefined : statSync(path).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
