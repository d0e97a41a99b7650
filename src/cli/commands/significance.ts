/**
 * `fliplab significance`: is a measure's difference real? Each candidate run against the reference on each
 * chosen measure, paired over the queries both are evaluated on (trec_eval's per-query values, without
 * `-c`): paired t-test, sign-flip randomization test, Wilcoxon signed-rank and sign tests, bootstrap interval,
 * effect size, wins/ties/losses, URisk/TRisk, the t-test's power (observed, MDE, queries needed), the p values
 * corrected over the call's family, and on request a randomized Tukey HSD and GeoRisk over the track. Runs
 * are evaluated as `fliplab eval` does (cli/evaluate-file.ts: any size, streamed from their bytes).
 */
import { errorMessage } from '../../core/error-message.ts';
import type { Command } from 'commander';
import { EvalPlan, parseMeasures, parseTrecEvalVersion } from '../../core/metrics/index.ts';
import { CORRECTIONS, type Correction } from '../../core/stats/corrections.ts';
import { formatSignificance } from '../../core/stats/format.ts';
import { DEFAULT_DELTAS, DEFAULT_POWER, POWER_ALPHA } from '../../core/stats/paired.ts';
import { DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS, DEFAULT_RISK_ALPHAS, DEFAULT_SEED, significance } from '../../core/stats/significance.ts';
import { significanceJson, systemValues } from '../../report/significance.ts';
import { collect, parseIntFlag } from '../args.ts';
import { evaluateRunFile, qrelsSource } from '../evaluate-file.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { QRELS_HELP, qrelsPaths, readLayeredQrels } from '../qrels.ts';
import { nameRuns } from './flips.ts';

interface SignificanceOpts {
  qrels: string[];
  reference: string;
  candidate: string[];
  name: string[];
  measure: string[];
  permutations: number;
  bootstrap: number;
  seed: number;
  correction: string;
  riskAlpha: number[];
  tukey?: boolean;
  georisk?: boolean;
  power: number;
  delta: string[];
  json?: boolean;
  l: number;
  judgedOnly?: boolean;
  trecEval: string;
}

/** "0.8" → 0.8: the power asked of the MDE and the queries needed (strictly between 0.05 and 1). */
function parsePower(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > POWER_ALPHA && n < 1))
    throw new UsageError(`--power expects a number between 0.05 and 1, got "${value}"`);
  return n;
}

/** "0.02,0.05" → ["0.02", "0.05"]: the differences n_needed answers for, kept as written (each > 0). */
function parseDeltas(value: string): string[] {
  return value.split(',').map((part) => {
    const d = part.trim();
    if (d === '' || !(Number(d) > 0) || !Number.isFinite(Number(d)))
      throw new UsageError(`--delta expects comma-separated numbers > 0, got "${value}"`);
    return d;
  });
}

/** trec_eval syntax of the default measures: nDCG@10 and reciprocal rank. */
const DEFAULT_MEASURES = ['ndcg_cut.10', 'recip_rank'];

/** "1,5" → [1, 5]: the α values of URisk/TRisk (each ≥ 0). */
function parseAlphas(value: string): number[] {
  return value.split(',').map((part) => {
    const n = Number(part);
    if (part.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new UsageError(`--risk-alpha expects comma-separated numbers ≥ 0, got "${value}"`);
    return n;
  });
}

export function registerSignificance(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('significance')
    .description(
      'is the difference real? paired t-test, randomization, Wilcoxon and sign tests, bootstrap interval, effect size, ' +
        'risk (URisk/TRisk) and power of each candidate against the reference, per measure, corrected over the family; ' +
        '--tukey and --georisk for all systems at once',
    )
    .argument('[qrels]', 'TREC qrels or BEIR qrels TSV (or give them with --qrels)')
    .option('--qrels <file>', QRELS_HELP, collect, [])
    .requiredOption('--reference <run>', 'the run being replaced (e.g. BM25)')
    .option('--candidate <run>', 'a replacement run; repeatable', collect, [])
    .option('--name <name>', 'run name, once per run: the reference first, then each candidate (default: file names)', collect, [])
    .option(
      '-m, --measure <name>',
      'measure in trec_eval syntax (ndcg_cut.10, recip_rank, map) or an alias (nDCG@10, RR@10); repeatable; default nDCG@10 and recip_rank',
      collect,
      [],
    )
    .option(
      '--permutations <n>',
      'random sign assignments of the randomization test (and Tukey trials)',
      parseIntFlag('--permutations', 1, 10_000_000),
      DEFAULT_PERMUTATIONS,
    )
    .option(
      '--bootstrap <n>',
      "bootstrap resamples of the mean difference's 95% interval",
      parseIntFlag('--bootstrap', 1, 10_000_000),
      DEFAULT_BOOTSTRAP,
    )
    .option(
      '--seed <s>',
      'seed of the random numbers (the same seed gives the same numbers)',
      parseIntFlag('--seed', -2147483648, 4294967295),
      DEFAULT_SEED,
    )
    .option('--correction <method>', `multiple-comparison correction over every candidate × measure: ${CORRECTIONS.join(', ')}`, 'holm')
    .option('--risk-alpha <list>', 'α values of URisk/TRisk: a loss weighs 1 + α (comma-separated)', parseAlphas, [...DEFAULT_RISK_ALPHAS])
    .option('--tukey', 'also run a randomized Tukey HSD over the reference and every candidate, per measure')
    .option('--georisk', 'also score every run by GeoRisk over the whole track (the reference and every candidate), per measure and α')
    .option(
      '--power <p>',
      'power asked of the minimum detectable effect and the queries needed (paired t-test, α = 0.05)',
      parsePower,
      DEFAULT_POWER,
    )
    .option('--delta <list>', 'differences to give the queries needed for (comma-separated, as written in the JSON keys)', parseDeltas, [
      ...DEFAULT_DELTAS,
    ])
    .option('-l <n>', 'minimum grade that counts as relevant for binary measures', parseIntFlag('-l', -1000000), 1)
    .option('-J, --judged-only', 'evaluate only judged documents, as trec_eval -J')
    .option('--trec-eval <release>', 'trec_eval release whose measures are compared: 10.0 or 9.0.8', '10.0')
    .option('--json', 'print JSON: reference, family, rows[] (one per candidate × measure), tukey, georisk')
    .action(async (qrelsArg: string | undefined, opts: SignificanceOpts) => {
      const qrelsFiles = qrelsPaths(qrelsArg, opts.qrels);
      if (opts.candidate.length === 0) throw new UsageError('significance needs at least one --candidate run');
      if (!(CORRECTIONS as readonly string[]).includes(opts.correction))
        throw new UsageError(`--correction expects one of ${CORRECTIONS.join(', ')}, got "${opts.correction}"`);
      const version = parseTrecEvalVersion(opts.trecEval);
      if (version === undefined) throw new UsageError(`--trec-eval expects 10.0 or 9.0.8, got "${opts.trecEval}"`);
      // A bad -m, or one without per-query values, is a usage error, said before any file is read.
      const requested = opts.measure.length > 0 ? opts.measure : DEFAULT_MEASURES;
      let plan: EvalPlan;
      try {
        plan = new EvalPlan(parseMeasures(requested, version), version);
      } catch (e) {
        throw new UsageError(errorMessage(e));
      }
      const measures = plan.columns.filter((c) => c.perQuery && plan.valueNames.includes(c.name)).map((c) => c.name);
      const summaryOnly = plan.columns.filter((c) => !c.perQuery).map((c) => c.name);
      if (summaryOnly.length > 0)
        throw new UsageError(
          `${summaryOnly.join(', ')} ${summaryOnly.length === 1 ? 'has' : 'have'} no per-query values to pair: choose per-query measures`,
        );
      if (measures.length === 0) throw new UsageError(`${requested.join(', ')} give no numeric per-query values to pair`);

      const paths = [opts.reference, ...opts.candidate];
      const names = nameRuns(paths, opts.name);
      const layered = qrelsFiles.length > 1 ? await readLayeredQrels(qrelsFiles) : undefined;
      const qrels = { name: qrelsFiles.join(' + '), ...(layered ? { layered } : {}) };
      const source = qrelsSource(qrels);
      const evalOpts = {
        relevanceLevel: opts.l,
        complete: false,
        maxRetrieved: Number.POSITIVE_INFINITY,
        judgedOnly: opts.judgedOnly === true,
        version,
        measures: requested,
      };
      const systems = [];
      for (const [i, path] of paths.entries()) {
        const evaluated = await evaluateRunFile(qrels, path, plan, evalOpts, source);
        // Warnings about the qrels come once, with the first run.
        reportDiagnostics(io, i === 0 ? evaluated.warnings : evaluated.warnings.filter((w) => w.file === path));
        systems.push(systemValues(names[i]!, evaluated.result, measures));
      }
      const [reference, ...candidates] = systems as [(typeof systems)[0], ...typeof systems];
      let report;
      try {
        report = significance(reference, candidates, measures, {
          permutations: opts.permutations,
          bootstrap: opts.bootstrap,
          seed: opts.seed,
          correction: opts.correction as Correction,
          riskAlphas: opts.riskAlpha,
          tukey: opts.tukey === true,
          georisk: opts.georisk === true,
          power: opts.power,
          deltas: opts.delta,
        });
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      io.stdout(opts.json ? significanceJson(report) : formatSignificance(report));
    });
}
