/**
 * Qrels as `eval`, `flips` and `compare` read them: one file, or several layered in the order given
 * (`--qrels base --qrels added`): a later file's grade wins for the same query and passage, as the lab's
 * judgments layer does (core/io/judgments.ts). The first file is TREC or BEIR qrels; a later one may also be
 * fliplab's JSON Lines of added judgments. Each disagreement between files is reported as a warning.
 */
import { countOf } from '../core/count.ts';
import { judgmentsToQrels, mergeQrels, parseJudgments, type JudgmentConflict } from '../core/io/judgments.ts';
import { parseQrels, type ParseResult } from '../core/io/trec.ts';
import type { Diagnostic, Qrels } from '../core/types.ts';
import { fileSource } from '../node/files.ts';
import { UsageError } from './output.ts';

/** Conflicts listed one by one up to this many; the rest are counted. */
const CONFLICTS_LISTED = 20;

/** The --qrels option's help, the same in every command. */
export const QRELS_HELP =
  'qrels file; repeat it to layer judgments (TREC qrels, BEIR TSV, or fliplab JSON Lines): a later file wins per query and passage';

/** The qrels files of a command: the positional one (if any) first, then each `--qrels`. */
export function qrelsPaths(positional: string | undefined, flags: readonly string[]): string[] {
  const paths = [...(positional === undefined ? [] : [positional]), ...flags];
  if (paths.length === 0) throw new UsageError('give the judgments: a qrels file (--qrels FILE; repeat it to add judgments)');
  if (paths.includes('-')) throw new UsageError('qrels cannot come from standard input');
  return paths;
}

/** Read and layer qrels files; conflicts between them become warnings on the later file. */
export async function readLayeredQrels(paths: readonly string[]): Promise<ParseResult<Qrels>> {
  const warnings: Diagnostic[] = [];
  const sources = [];
  for (const [i, path] of paths.entries()) {
    if (i === 0) {
      const base = await parseQrels(fileSource(path), path);
      warnings.push(...base.warnings);
      sources.push({ name: path, qrels: base.value });
      continue;
    }
    const added = await parseJudgments(fileSource(path), path);
    warnings.push(...added.warnings);
    sources.push({ name: path, qrels: judgmentsToQrels(added.value) });
  }
  const merged = mergeQrels(sources);
  if (merged.conflicts.length > 0) warnings.push(conflictWarning(merged.conflicts));
  return { value: merged.qrels, warnings };
}

function conflictWarning(conflicts: readonly JudgmentConflict[]): Diagnostic {
  const listed = conflicts
    .slice(0, CONFLICTS_LISTED)
    .map((c) => `  query ${c.qid}, passage ${c.docid}: ${c.grades.map((g) => `${g.grade} (${g.source})`).join(', then ')}`);
  const more = conflicts.length > CONFLICTS_LISTED ? [`  … and ${conflicts.length - CONFLICTS_LISTED} more`] : [];
  const last = conflicts[0]!.grades[conflicts[0]!.grades.length - 1]!.source;
  return {
    severity: 'warning',
    file: last,
    message:
      `${countOf(conflicts.length, 'judgment')} graded differently by the qrels files; ` +
      `the later file wins:\n${[...listed, ...more].join('\n')}`,
  };
}
