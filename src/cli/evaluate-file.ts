/**
 * One run file evaluated as `fliplab eval` does it: from its bytes (core/metrics/run-bytes.ts, one or two
 * threads: node/eval-threads.ts), else through the validating text parsers, which say what is wrong with the
 * file (file:line). `eval` prints the result; `significance` pairs the per-query values of several runs.
 */
import { formatQrels, otherTagsWarning, parseQrels, parseRun, repeatedJudgmentsWarning } from '../core/io/trec.ts';
import { InputError } from '../core/io/errors.ts';
import { listLengths } from '../core/depth.ts';
import type { EvalPlan, EvalResult } from '../core/metrics/index.ts';
import type { ByteEvalOptions } from '../core/metrics/run-bytes.ts';
import type { Diagnostic, Qrels } from '../core/types.ts';
import type { ParseResult } from '../core/io/trec.ts';
import { STDIN_NAME } from '../node/files.ts';
import { evaluateFiles } from '../node/eval-threads.ts';
import { evaluateRun } from '../report/metrics.ts';

export interface EvaluatedFile {
  readonly result: EvalResult;
  readonly warnings: Diagnostic[];
  /** Each query's list length, for depth warnings. */
  readonly lengths: readonly number[];
  /** Whether the byte path evaluated it (else the text parsers read the whole run). */
  readonly fast: boolean;
}

/** The judgments as `evaluateRunFile` takes them: one file's path, or several layered (cli/qrels.ts). */
export interface QrelsInput {
  /** The path, or the paths joined with " + " for messages. */
  readonly name: string;
  /** Layered qrels (several files), or undefined for one file read from `name`. */
  readonly layered?: ParseResult<Qrels>;
}

/** The bytes the byte path reads: the file, or the layered qrels written back as TREC lines. */
export const qrelsSource = (qrels: QrelsInput): string | Uint8Array =>
  qrels.layered ? new TextEncoder().encode(formatQrels(qrels.layered.value)) : qrels.name;

export async function evaluateRunFile(
  qrels: QrelsInput,
  runPath: string,
  plan: EvalPlan,
  opts: ByteEvalOptions & { readonly measures: readonly string[] },
  source: string | Uint8Array = qrelsSource(qrels),
): Promise<EvaluatedFile> {
  const runName = runPath === '-' ? STDIN_NAME : runPath;
  const { measures, ...byteOpts } = opts;
  const files = await evaluateFiles(source, runPath, plan, byteOpts);
  if (files.fast) {
    const { fast, qrels: byteQrels } = files;
    return {
      result: fast.result,
      lengths: fast.lengths,
      fast: true,
      warnings: [
        ...(qrels.layered?.warnings ?? []),
        ...(byteQrels.duplicates > 0 ? [repeatedJudgmentsWarning(qrels.name, byteQrels.duplicates)] : []),
        ...(fast.otherTags > 0 ? [otherTagsWarning(runName, fast.otherTags, fast.tag)] : []),
      ],
    };
  }
  // the validating text parsers: exact messages (file:line) for bad input, and the rare files the byte path declines
  const parsedQrels = qrels.layered ?? (await parseQrels(files.qrelsBytes, qrels.name));
  const run = await parseRun(files.run, runName);
  if (![...run.value.byQuery.keys()].some((q) => parsedQrels.value.byQuery.has(q))) {
    throw new InputError(
      runName,
      undefined,
      `no query of this run is judged in ${qrels.name} (trec_eval: "No queries with both results and relevance info"); ` +
        'are they the same collection and split?',
    );
  }
  return {
    result: evaluateRun(parsedQrels.value, run.value, {
      measures,
      relevanceLevel: byteOpts.relevanceLevel,
      complete: byteOpts.complete,
      judgedOnly: byteOpts.judgedOnly === true,
      version: byteOpts.version,
      ...(Number.isFinite(byteOpts.maxRetrieved) ? { maxRetrieved: byteOpts.maxRetrieved } : {}),
    }),
    warnings: [...parsedQrels.warnings, ...run.warnings],
    lengths: listLengths(run.value),
    fast: false,
  };
}
