/**
 * `fliplab answers`: the answer level of a retriever replacement (RAGFlip §3.5).
 *   score  --gold G --predictions P [--json]         which predictions are correct, and why
 *   flips  <qrels> --reference R --candidate C… --gold G [--reference-answers PA --candidate-answers PC…]
 *          [--at 10] [--seed N] [--json]             the flip sets, their control samples, and Table 9
 *   generate <beir-dir> --run R --reader M --out P    a reader's answers from a run's top k (answers-generate.ts)
 *   template                                          the reader prompt template, as JSON
 * Without answers, `flips` still prints the flip set and the control sample of every candidate: the
 * queries to run a reader on (`--json` → `flip_queries`, `control_queries`).
 */
import type { Command } from 'commander';
import { answerFlipReport, DEFAULT_ANSWER_DEPTH, DEFAULT_ANSWER_SEED, type AnswerCorrectness } from '../../core/answers/flips.ts';
import { answerTokens, matchAnswer } from '../../core/answers/normalize.ts';
import { buildCohort, supportProfile } from '../../core/flips/cohort.ts';
import { parseGoldAny, parsePredictions } from '../../core/io/answers.ts';
import { parseQrels } from '../../core/io/trec.ts';
import { keepOptions, readKeptRuns } from '../runs.ts';
import type { Diagnostic } from '../../core/types.ts';
import { fileSource, readFileBytes } from '../../node/files.ts';
import { answerFlipJson, answerScoreJson, formatAnswerFlips, type ScoredAnswer } from '../../report/answers.ts';
import { collect, parseIntFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { registerAnswersGenerate } from './answers-generate.ts';
import { nameRuns } from './flips.ts';

/** A gold file: the JSONL format, or a BEIR queries.jsonl with answers in metadata (told apart by its first record). */
async function readGold(path: string): Promise<{ gold: Map<string, string[]>; warnings: readonly Diagnostic[] }> {
  const parsed = await parseGoldAny(new TextDecoder().decode(await readFileBytes(path)), path);
  return { gold: parsed.value, warnings: parsed.warnings };
}

/** Score predictions against gold: predictions for queries without gold are warned about and counted apart. */
async function scorePredictions(path: string, gold: ReadonlyMap<string, readonly string[]>) {
  const predictions = (await parsePredictions(fileSource(path), path)).value;
  const scored: ScoredAnswer[] = [];
  const unknown: string[] = [];
  for (const [queryId, prediction] of predictions) {
    const answers = gold.get(queryId);
    if (answers === undefined) unknown.push(queryId);
    else scored.push({ queryId, ...matchAnswer(prediction, answers) });
  }
  const warnings: Diagnostic[] =
    unknown.length === 0
      ? []
      : [
          {
            severity: 'warning',
            file: path,
            message:
              `${unknown.length} prediction${unknown.length > 1 ? 's are' : ' is'} for queries without a gold answer ` +
              `(e.g. ${unknown.slice(0, 3).join(', ')}): not scored`,
          },
        ];
  return { scored, unknown, warnings };
}

interface ScoreOpts {
  gold: string;
  predictions: string;
  json?: boolean;
}

interface FlipsOpts {
  reference: string;
  candidate: string[];
  name: string[];
  gold: string;
  referenceAnswers?: string;
  candidateAnswers: string[];
  at: number;
  seed: number;
  json?: boolean;
}

export function registerAnswers(program: Command, io: Io, _setExit: (code: number) => void): void {
  const answers = program.command('answers').description('answer-level flips: does a retrieval regression become a wrong answer?');

  registerAnswersGenerate(answers, io);

  answers
    .command('score')
    .description('score predictions against gold answers (lowercase, no punctuation or articles, gold tokens contiguous in the prediction)')
    .requiredOption('--gold <file>', 'gold answers: JSONL {"query_id", "answers": [...]}, or a BEIR queries.jsonl with metadata.answer')
    .requiredOption('--predictions <file>', 'predictions: JSONL {"query_id", "prediction"}')
    .option('--json', 'print per-query results and totals as JSON')
    .action(async (opts: ScoreOpts) => {
      const { gold, warnings } = await readGold(opts.gold);
      const result = await scorePredictions(opts.predictions, gold);
      reportDiagnostics(io, [...warnings, ...result.warnings]);
      if (opts.json) return io.stdout(answerScoreJson(result.scored, result.unknown));
      const lines = result.scored.map(
        (s) => `${s.queryId}\t${s.correct ? 'correct' : 'incorrect'}\t${s.normalizedPrediction}\t${s.matchedAnswer ?? ''}`,
      );
      const correct = result.scored.filter((s) => s.correct).length;
      const share = result.scored.length === 0 ? '–' : `${((100 * correct) / result.scored.length).toFixed(1)}%`;
      io.stdout(`${lines.join('\n')}${lines.length > 0 ? '\n' : ''}correct: ${correct} of ${result.scored.length} (${share})\n`);
    });

  answers
    .command('flips')
    .description('the flip sets and control samples at k, and (with answers) how many retrieval flips became answer regressions')
    .argument('<qrels>', 'TREC qrels or BEIR qrels TSV')
    .requiredOption('--reference <run>', 'the run being replaced (e.g. BM25)')
    .option('--candidate <run>', 'a replacement run; repeatable', collect, [])
    .option('--name <name>', 'run name, once per run: the reference first, then each candidate (default: file names)', collect, [])
    .requiredOption('--gold <file>', 'gold answers: JSONL {"query_id", "answers"}, or a BEIR queries.jsonl with metadata.answer')
    .option('--reference-answers <file>', "predictions from the reference's passages (JSONL)")
    .option('--candidate-answers <file>', "predictions from a candidate's passages, once per --candidate, in order", collect, [])
    .option('--at <k>', `depth k (default ${DEFAULT_ANSWER_DEPTH})`, parseIntFlag('--at', 1), DEFAULT_ANSWER_DEPTH)
    .option(
      '--seed <n>',
      `control sample seed (default ${DEFAULT_ANSWER_SEED})`,
      parseIntFlag('--seed', 0, 2 ** 32 - 1),
      DEFAULT_ANSWER_SEED,
    )
    .option('--json', 'print the report as JSON (keys in the README)')
    .action(async (qrelsPath: string, opts: FlipsOpts) => {
      if (opts.candidate.length === 0) throw new UsageError('answers flips needs at least one --candidate run');
      const answered = opts.referenceAnswers !== undefined || opts.candidateAnswers.length > 0;
      if (answered && (opts.referenceAnswers === undefined || opts.candidateAnswers.length !== opts.candidate.length)) {
        throw new UsageError(
          `answers flips needs --reference-answers and one --candidate-answers per --candidate (${opts.candidate.length}), ` +
            `got ${opts.referenceAnswers === undefined ? 'no' : 'a'} reference file and ${opts.candidateAnswers.length} candidate file(s)`,
        );
      }
      const paths = [opts.reference, ...opts.candidate];
      const names = nameRuns(paths, opts.name);
      const qrels = await parseQrels(fileSource(qrelsPath), qrelsPath);
      // Only support at --at matters here: the kept lists, with their judged tails, give it exactly.
      const runs = await readKeptRuns(paths, names, keepOptions(opts.at, undefined, qrels.value));
      const { gold, warnings } = await readGold(opts.gold);
      const diagnostics: Diagnostic[] = [...qrels.warnings, ...runs.flatMap((r) => r.warnings), ...warnings];
      const correctness = async (path: string | undefined): Promise<AnswerCorrectness> => {
        if (path === undefined) return new Map();
        const result = await scorePredictions(path, gold);
        diagnostics.push(...result.warnings);
        return new Map(result.scored.map((s) => [s.queryId, s.correct]));
      };
      const referenceAnswers = await correctness(opts.referenceAnswers);
      const candidateAnswers = await Promise.all(opts.candidate.map((_, i) => correctness(opts.candidateAnswers[i])));
      const cohort = buildCohort(qrels.value);
      const [reference, ...candidates] = runs.map((r) => supportProfile(r.value, cohort));
      const report = answerFlipReport({
        k: opts.at,
        seed: opts.seed,
        queries: cohort.queries,
        reference: { name: reference!.name, ranks: reference!.first, answers: referenceAnswers },
        candidates: candidates.map((c, i) => ({ name: c.name, ranks: c.first, answers: candidateAnswers[i]! })),
        // A query has a gold answer only if one normalizes to something (an empty one never matches).
        gold: new Set([...gold].filter(([, answers]) => answers.some((a) => answerTokens(a).length > 0)).map(([q]) => q)),
      });
      for (const c of report.candidates) {
        if (c.missingGold.length > 0)
          diagnostics.push({
            severity: 'warning',
            file: opts.gold,
            message:
              `${c.name}: ${c.missingGold.length} negative flip(s) have no gold answer and are left out ` +
              `(e.g. ${c.missingGold.slice(0, 3).join(', ')})`,
          });
        if (answered && c.missingPredictions.length > 0)
          diagnostics.push({
            severity: 'warning',
            file: opts.referenceAnswers!,
            message: `${c.name}: ${c.missingPredictions.length} flip/control queries lack a prediction on one side and are left out`,
          });
      }
      reportDiagnostics(io, diagnostics);
      io.stdout(
        opts.json
          ? answerFlipJson(
              report,
              diagnostics.map((d) => d.message),
            )
          : formatAnswerFlips(report),
      );
    });
}
