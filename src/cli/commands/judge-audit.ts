/**
 * `fliplab judge-audit HUMAN_QRELS MODEL_QRELS [--run R …] [-m MEASURE] [-l LEVEL] [--json]`: how far a model's
 * judgments agree with people's on the pairs both judged (Cohen's κ at the relevance level, weighted κ on the
 * grades, the confusion matrix) and, with three or more runs, whether the ordering of the runs survives (Kendall's
 * τ-b and τ_AP of each run's mean under the model's qrels alone against its mean under people's alone).
 */
import type { Command } from 'commander';
import { countOf } from '../../core/count.ts';
import { errorMessage } from '../../core/error-message.ts';
import { auditSentence, formatJudgeAudit, judgeAudit } from '../../core/judging/audit.ts';
import { parseQrels } from '../../core/io/trec.ts';
import { EvalPlan, parseMeasures, parseTrecEvalVersion } from '../../core/metrics/index.ts';
import { fileSource } from '../../node/files.ts';
import { collect, parseIntFlag } from '../args.ts';
import { evaluateRunFile } from '../evaluate-file.ts';
import { readModelQrels } from '../model-qrels.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { nameRuns } from './flips.ts';

interface JudgeAuditOpts {
  run: string[];
  measure: string;
  l: number;
  json?: boolean;
  trecEval: string;
}

/** Runs needed for an ordering worth a τ. */
const MIN_RUNS = 3;

export function registerJudgeAudit(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('judge-audit')
    .description(
      "how far a model's judgments agree with people's: Cohen's κ, weighted κ and the confusion matrix on the pairs both " +
        'judged; with --run (3 or more), Kendall τ-b and τ_AP between the runs ordered by each',
    )
    .argument('<human-qrels>', "people's judgments (TREC qrels or BEIR TSV)")
    .argument('<model-qrels>', "the model's judgments (TREC qrels or BEIR TSV), on the same grade scale")
    .option('--run <file>', 'a run to order under both; repeat it (3 or more)', collect, [])
    .option('-m, --measure <name>', 'the measure runs are ordered by, in trec_eval syntax or an alias', 'ndcg_cut.10')
    .option('-l <n>', 'minimum grade that counts as relevant (the binary κ, and binary measures)', parseIntFlag('-l', -1000000), 1)
    .option('--trec-eval <release>', 'trec_eval release of the measure: 10.0 or 9.0.8', '10.0')
    .option('--json', 'print JSON: pairs, kappa, kappa_linear, kappa_quadratic, confusion, and with runs systems')
    .action(async (humanPath: string, modelPath: string, opts: JudgeAuditOpts) => {
      if (opts.run.length > 0 && opts.run.length < MIN_RUNS)
        throw new UsageError(`judge-audit orders ${MIN_RUNS} or more runs (--run, repeated); got ${opts.run.length}`);
      const version = parseTrecEvalVersion(opts.trecEval);
      if (version === undefined) throw new UsageError(`--trec-eval expects 10.0 or 9.0.8, got "${opts.trecEval}"`);
      let plan: EvalPlan;
      try {
        plan = new EvalPlan(parseMeasures([opts.measure], version), version);
      } catch (e) {
        throw new UsageError(errorMessage(e));
      }
      const measure = plan.columns.find((c) => c.perQuery && plan.valueNames.includes(c.name))?.name;
      if (measure === undefined || plan.valueNames.length !== 1)
        throw new UsageError(`-m expects one measure with one value per query, got "${opts.measure}"`);

      const human = await parseQrels(fileSource(humanPath), humanPath);
      const model = await readModelQrels(modelPath, human.value, humanPath);
      reportDiagnostics(io, [...human.warnings, ...model.warnings]);
      const people = new Set(human.value.byQuery.keys());
      const modelOnly = [...model.qrels.byQuery.keys()].filter((q) => !people.has(q)).length;
      if (modelOnly > 0)
        reportDiagnostics(io, [
          {
            severity: 'warning',
            file: modelPath,
            message:
              `${countOf(modelOnly, 'query', 'queries')} judged by the model ${modelOnly === 1 ? 'has' : 'have'} no judgment by ` +
              "people: they count in the runs' means under the model only",
          },
        ]);

      let systems;
      if (opts.run.length > 0) {
        const names = nameRuns(opts.run);
        const evalOpts = {
          relevanceLevel: opts.l,
          complete: false,
          maxRetrieved: Number.POSITIVE_INFINITY,
          judgedOnly: false,
          version,
          measures: [opts.measure],
        };
        const runs = [];
        for (const [i, path] of opts.run.entries()) {
          // Each mean with that qrels file alone, as trec_eval would print it.
          const byHuman = await evaluateRunFile({ name: humanPath }, path, plan, evalOpts);
          const byModel = await evaluateRunFile({ name: modelPath }, path, plan, evalOpts);
          reportDiagnostics(
            io,
            [...byHuman.warnings, ...byModel.warnings].filter((w) => w.file === path),
          );
          runs.push({ name: names[i]!, human: byHuman.result.aggregate[measure]!, model: byModel.result.aggregate[measure]! });
        }
        systems = { measure, runs };
      }
      const audit = judgeAudit(human.value, model.qrels, opts.l, systems);
      io.stdout(opts.json ? `${JSON.stringify({ ...audit, summary: auditSentence(audit) }, null, 2)}\n` : formatJudgeAudit(audit));
    });
}
