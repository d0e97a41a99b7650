/**
 * `fliplab compare`: retriever agreement without judgments — overlap@k and RBO@k (p = 0.9) of each
 * candidate run against the reference, per query and averaged with 95% Student-t intervals
 * (src/core/agreement). Text tables or the JSON report; exit 2 on bad input. With `--judged-only` and
 * `--qrels`, the rankings compared are judged-only (core/judged-only.ts), as `flips --judged-only` analyses.
 */
import type { Command } from 'commander';
import { compareRuns, formatAgreement } from '../../core/agreement/index.ts';
import { DEFAULT_DEPTHS } from '../../core/flips/index.ts';
import { depthWarnings, listLengths } from '../../core/depth.ts';
import { agreementJson } from '../../report/agreement.ts';
import { collect, parseIntFlag, parseIntList } from '../args.ts';
import { KEEP_HELP, keepOptions, readKeptRuns } from '../runs.ts';
import type { KeptRun } from '../../core/io/run-top.ts';
import type { Run } from '../../core/types.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { QRELS_HELP, readLayeredQrels } from '../qrels.ts';
import { judgedOnlyRun } from '../../core/judged-only.ts';
import { nameRuns } from './flips.ts';

interface CompareOpts {
  reference: string;
  candidate: string[];
  depths: number[];
  json?: boolean;
  perQuery?: boolean;
  name: string[];
  keep?: number;
  qrels: string[];
  judgedOnly?: boolean;
}

export function registerCompare(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('compare')
    .description('agreement between runs without judgments: overlap@k and rank-biased overlap (RBO@k, p = 0.9)')
    .requiredOption('--reference <run>', 'the run being replaced')
    .option('--candidate <run>', 'a replacement run; repeatable', collect, [])
    .option('--depths <list>', 'comma-separated depths k', parseIntList('--depths'), [...DEFAULT_DEPTHS])
    .option('--keep <n>', KEEP_HELP, parseIntFlag('--keep', 1))
    .option('--qrels <file>', `${QRELS_HELP} (only --judged-only needs judgments)`, collect, [])
    .option('--judged-only', 'compare judged-only rankings: passages the --qrels do not judge are removed before any cut (trec_eval -J)')
    .option('--json', 'print the report as JSON')
    .option('--per-query', 'include per-query values in the JSON report')
    .option(
      '--name <name>',
      'run name in the report, once per run: the reference first, then each candidate (default: file names)',
      collect,
      [],
    )
    .action(async (opts: CompareOpts) => {
      if (opts.candidate.length === 0) throw new UsageError('compare needs at least one --candidate run');
      if (opts.judgedOnly && opts.qrels.length === 0) throw new UsageError('--judged-only needs the judgments: give --qrels FILE');
      if (!opts.judgedOnly && opts.qrels.length > 0) throw new UsageError('--qrels only applies together with --judged-only');
      const paths = [opts.reference, ...opts.candidate];
      const names = nameRuns(paths, opts.name);
      const qrels = opts.judgedOnly ? await readLayeredQrels(opts.qrels) : undefined;
      const runs = await readKeptRuns(paths, names, keepOptions(Math.max(...opts.depths), opts.keep, qrels?.value));
      const depthNotes = depthWarnings(
        runs.map((r) => ({ name: r.value.name, lengths: listLengths(r.value) })),
        opts.depths.map((k) => ({ k, label: `depth ${k}` })),
      );
      reportDiagnostics(io, [
        ...(qrels?.warnings ?? []),
        ...runs.flatMap((r) => r.warnings),
        ...depthNotes.map((w) => ({
          severity: 'warning' as const,
          file: paths[runs.findIndex((r) => r.value.name === w.run)]!,
          message: w.message,
        })),
      ]);
      const analysed = runs.map((r) => (qrels === undefined ? r.value : judgedOnlyRun(r.value, qrels.value)));
      const [reference, ...candidates] = analysed as [KeptRun | Run, ...(KeptRun | Run)[]];
      const report = compareRuns(reference, candidates, opts.depths, { perQuery: opts.perQuery === true });
      // A judged-only comparison says so (the key is absent otherwise: the lab's agreement export has no such mode).
      const shown = qrels === undefined ? report : { ...report, judged_only: true };
      io.stdout(opts.json ? agreementJson(shown, depthNotes) : formatAgreement(report));
    });
}
