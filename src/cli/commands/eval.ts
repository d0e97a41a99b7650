/**
 * `fliplab eval`: trec_eval measures of a TREC run, byte for byte the output of trec_eval 10.0 (default) or
 * 9.0.8 (`--trec-eval 9.0.8`), with its options -q, -c, -J, -l, -M and -m. The run is evaluated from its
 * bytes (core/metrics/run-bytes.ts); anything that path does not take goes through the validating text
 * parser and src/report/metrics.ts — the same functions the lab's exports use, so an exported trec_eval
 * file is byte for byte this output.
 *
 * The judgments are one qrels file (`eval <qrels> <run>`: its bytes go to the byte path as they are) or
 * several layered in order (`--qrels base --qrels added`, after the positional one if given; cli/qrels.ts):
 * the merged qrels are written back as TREC lines and evaluated the same way, so layering changes which
 * grades are read and nothing else.
 */
import { errorMessage } from '../../core/error-message.ts';
import type { Command } from 'commander';
import { depthWarnings } from '../../core/depth.ts';
import {
  EvalPlan,
  findMeasure,
  formatTrecEval,
  outputNames,
  parseMeasures,
  parseTrecEvalVersion,
  toPlainObject,
  type MeasureSpec,
} from '../../core/metrics/index.ts';
import { queryBlockPrinter } from '../../core/metrics/format.ts';
import { parseParams } from '../../core/metrics/parse.ts';
import { STDIN_NAME } from '../../node/files.ts';
import { trecEvalResultText } from '../../report/metrics.ts';
import { evaluateRunFile } from '../evaluate-file.ts';
import { collect, parseIntFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { QRELS_HELP, qrelsPaths, readLayeredQrels } from '../qrels.ts';

interface EvalOpts {
  measure: string[];
  qrels: string[];
  q?: boolean;
  c?: boolean;
  judgedOnly?: boolean;
  l?: number;
  M?: number;
  json?: boolean;
  trecEval: string;
}

/** Cutoffs the user asked for by value (`-m P.100`, `nDCG@100`), not a measure's defaults. */
function explicitCutoffs(specs: readonly MeasureSpec[]): { k: number; label: string }[] {
  const out: { k: number; label: string }[] = [];
  for (const s of specs) {
    const def = findMeasure(s.measure);
    if (!def || s.params === null || def.params !== 'long-cutoffs') continue;
    const names = outputNames(def, s.params);
    parseParams(def, s.params).values.forEach((k, i) => out.push({ k, label: `cutoff ${names[i]}` }));
  }
  return out;
}

/** Output is written in pieces of about this many characters while it streams. */
const FLUSH_CHARS = 1 << 16;

export function registerEval(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('eval')
    .description(
      'evaluate a TREC run like trec_eval 10.0 (or 9.0.8): same measures, names, ties, averaging and bytes; ' +
        'judgments from one qrels file or several layered with --qrels',
    )
    .usage('[options] [qrels] <run>')
    .argument('[qrels]', 'TREC qrels (qid iter docid rel) or BEIR qrels TSV (or give them with --qrels)')
    .argument('[run]', 'TREC run (qid Q0 docid rank score tag); - reads standard input')
    .option('--qrels <file>', QRELS_HELP, collect, [])
    .option(
      '-m, --measure <name>',
      'measure in trec_eval syntax (ndcg_cut.5,10), a set (official, all_trec, set) or an alias (nDCG@10, RR@10); ' +
        'repeatable; without -m: official, as trec_eval',
      collect,
      [],
    )
    .option('-q', 'also print per-query values')
    .option('-c', 'average over every qrels query (missing ones score 0)')
    .option(
      '-J, --judged-only',
      'evaluate only judged documents, as trec_eval -J: unjudged ones (not in the qrels, or graded < 0) leave each ranking ' +
        'after -M and before any measure cutoff',
    )
    .option('-l <n>', 'minimum grade that counts as relevant for binary measures (default 1)', parseIntFlag('-l', -1000000))
    .option('-M <n>', 'evaluate at most this many documents per query', parseIntFlag('-M', 1))
    .option('--trec-eval <release>', 'trec_eval release to reproduce: 10.0 or 9.0.8 (pytrec_eval, ir_measures, most papers)', '10.0')
    .option('--json', 'print JSON instead of trec_eval text')
    .action(async (first: string | undefined, second: string | undefined, opts: EvalOpts) => {
      const version = parseTrecEvalVersion(opts.trecEval);
      if (version === undefined) throw new UsageError(`--trec-eval expects 10.0 or 9.0.8, got "${opts.trecEval}"`);
      // one positional is the run when --qrels gives the judgments; two are <qrels> <run>
      if (first === undefined || (second === undefined && opts.qrels.length === 0))
        throw new UsageError("missing required argument 'run' (fliplab eval <qrels> <run>, or fliplab eval --qrels <file> <run>)");
      const runPath = second ?? first;
      const qrelsFiles = qrelsPaths(second === undefined ? undefined : first, opts.qrels);
      const qrelsPath = qrelsFiles.join(' + ');
      // A bad -m is a usage error, reported before any file is read.
      let plan: EvalPlan;
      let specs: MeasureSpec[];
      try {
        specs = parseMeasures(opts.measure.length > 0 ? opts.measure : ['official'], version);
        plan = new EvalPlan(specs, version);
      } catch (e) {
        throw new UsageError(errorMessage(e));
      }
      const runName = runPath === '-' ? STDIN_NAME : runPath;
      const evalOpts = {
        relevanceLevel: opts.l ?? 1,
        complete: opts.c === true,
        maxRetrieved: opts.M ?? Number.POSITIVE_INFINITY,
        judgedOnly: opts.judgedOnly === true,
        version,
      };
      const streaming = opts.q === true && !opts.json;
      let pending = '';
      const block = streaming ? queryBlockPrinter(plan) : undefined;
      const onQuery = block
        ? (qid: string, row: Float64Array, texts: Readonly<Record<string, string>> | undefined): void => {
            pending += block(qid, row, texts);
            if (pending.length >= FLUSH_CHARS) {
              io.stdout(pending);
              pending = '';
            }
          }
        : undefined;
      // several files: their merge, written back as TREC qrels bytes (each file's own warnings and the conflicts come from the merge)
      const layered = qrelsFiles.length > 1 ? await readLayeredQrels(qrelsFiles) : undefined;
      const evaluated = await evaluateRunFile({ name: qrelsPath, ...(layered ? { layered } : {}) }, runPath, plan, {
        ...evalOpts,
        measures: opts.measure,
        ...(onQuery && { onQuery }),
      });
      const { result, warnings, lengths, fast } = evaluated;
      // the text parsers print nothing as they go: the per-query blocks come from the result
      if (streaming && !fast) pending = trecEvalResultText(result, result.runid, true);
      const depthNotes = depthWarnings(
        [{ name: result.runid, lengths: lengths.map((n) => Math.min(n, evalOpts.maxRetrieved)) }],
        explicitCutoffs(specs),
      );
      reportDiagnostics(io, [...warnings, ...depthNotes.map((w) => ({ severity: 'warning' as const, file: runName, message: w.message }))]);
      if (opts.json) io.stdout(`${JSON.stringify({ ...toPlainObject(result), warnings: depthNotes }, null, 2)}\n`);
      else io.stdout(pending + (streaming && !fast ? '' : formatTrecEval(result, { perQuery: false })));
    });
}
