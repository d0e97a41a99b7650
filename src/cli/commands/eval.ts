/**
 * `fliplab eval`: trec_eval 9.0.8 measures of a TREC run. Evaluation and text come from src/report/metrics.ts,
 * the same functions the lab's exports use, so an exported trec_eval file is byte for byte this output.
 */
import type { Command } from 'commander';
import { parseMeasures } from '../../core/metrics/index.ts';
import { parseQrels, parseRun } from '../../core/io/trec.ts';
import { fileSource } from '../../node/files.ts';
import { evaluateRun, trecEvalResultText } from '../../report/metrics.ts';
import { collect, parseIntFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';

interface EvalOpts {
  measure: string[];
  q?: boolean;
  c?: boolean;
  l?: number;
  M?: number;
  json?: boolean;
}

export function registerEval(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('eval')
    .description('evaluate a TREC run like trec_eval 9.0.8 (same measures, names, ties and averaging)')
    .argument('<qrels>', 'TREC qrels (qid iter docid rel) or BEIR qrels TSV')
    .argument('<run>', 'TREC run (qid Q0 docid rank score tag)')
    .option('-m, --measure <name>', 'measure, trec_eval syntax (ndcg_cut.5,10) or alias (nDCG@10); repeatable', collect, [])
    .option('-q', 'also print per-query values')
    .option('-c', 'average over every qrels query (missing ones score 0)')
    .option('-l <n>', 'minimum grade that counts as relevant for binary measures', parseIntFlag('-l', -1000000), 1)
    .option('-M <n>', 'evaluate at most this many documents per query', parseIntFlag('-M', 1))
    .option('--json', 'print JSON instead of trec_eval text')
    .action(async (qrelsPath: string, runPath: string, opts: EvalOpts) => {
      // A bad -m is a usage error, reported before any file is read.
      try {
        parseMeasures(opts.measure);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const [qrels, run] = await Promise.all([parseQrels(fileSource(qrelsPath), qrelsPath), parseRun(fileSource(runPath), runPath)]);
      reportDiagnostics(io, [...qrels.warnings, ...run.warnings]);
      const result = evaluateRun(qrels.value, run.value, {
        measures: opts.measure,
        relevanceLevel: opts.l ?? 1,
        complete: opts.c === true,
        ...(opts.M === undefined ? {} : { maxRetrieved: opts.M }),
      });
      if (opts.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      else io.stdout(trecEvalResultText(result, run.value.name, opts.q === true));
    });
}
