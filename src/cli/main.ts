/**
 * `fliplab` — the Node CLI on the same pure core as the web app. Commands:
 *   bm25   BEIR folder → TREC run (paper BM25)
 *   eval   qrels + run → trec_eval-identical measures
 *   flips  qrels + reference run + candidate runs → RAGFlip transition analysis (+ a CI gate)
 *   compare reference run + candidate runs, no qrels → overlap@k and rank-biased overlap
 *   encode BEIR folder + encoder → portable vectors folder (GPU server → anywhere)
 *   search BEIR folder + encoder (BGE, E5, SPLADE, any ONNX model) → exact-search TREC run
 *   demo   the lab's #demo in a terminal: BM25 against BM25 + RM3 and query likelihood
 * Exit status: 0 ok, 1 gate failed (flips --max-nfr), 2 bad input or usage.
 */
import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { isInputError } from '../core/io/errors.ts';
import { EXIT_BAD_INPUT, processIo, UsageError, type Io } from './output.ts';
import { registerBm25 } from './commands/bm25.ts';
import { registerEval } from './commands/eval.ts';
import { registerFlips } from './commands/flips.ts';
import { registerSignificance } from './commands/significance.ts';
import { registerCompare } from './commands/compare.ts';
import { registerFuse } from './commands/fuse.ts';
import { registerDemo } from './commands/demo.ts';
import { registerSearch } from './commands/search.ts';
import { registerAnswers } from './commands/answers.ts';
import { registerEncode } from './commands/encode.ts';
import { registerJudgeAudit } from './commands/judge-audit.ts';
import { registerJudge } from './commands/judge.ts';
import { registerMakeQueries } from './commands/make-queries.ts';

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('fliplab')
    .description('When I replace my retriever, which queries do I lose? RAGFlip analysis, BM25 and trec_eval measures.')
    .version(packageJson.version)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      // commander's own usage errors read like every other error: "fliplab: …"
      outputError: (s, write) => write(`fliplab: ${s.replace(/^error: /, '')}`),
    })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      [
        '',
        'Exit status: 0 ok, 1 a gate failed (flips --max-nfr), 2 bad input or usage (file:line: what was expected), 70 internal error.',
        'Runs and qrels may be gzip-compressed; "fliplab <command> --help" shows each command\'s flags.',
        '',
        'Examples (from the repository root):',
        '  fliplab bm25 examples/tiny-beir --out bm25.run',
        '  fliplab eval examples/tiny-beir/qrels/test.tsv bm25.run -m ndcg_cut.10 -q',
        '  fliplab eval --trec-eval 9.0.8 -m all_trec examples/tiny-beir/qrels/test.tsv bm25.run',
        '  fliplab flips examples/tiny-beir/qrels/test.tsv --reference bm25.run --candidate other.run --json',
      ].join('\n'),
    );
  registerBm25(program, io, setExit);
  registerEval(program, io, setExit);
  registerFlips(program, io, setExit);
  registerSignificance(program, io, setExit);
  registerCompare(program, io, setExit);
  registerFuse(program, io, setExit);
  registerEncode(program, io, setExit, packageJson.version);
  registerSearch(program, io, setExit);
  registerAnswers(program, io, setExit);
  registerDemo(program, io, setExit);
  registerJudgeAudit(program, io, setExit);
  registerJudge(program, io, setExit);
  registerMakeQueries(program, io);
  return program;
}

/** Run the CLI; resolves to the exit status instead of exiting, so tests can call it in-process. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit through here with code 0; usage errors are already printed.
      return e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    }
    if (isInputError(e) || e instanceof UsageError || e instanceof RangeError) {
      io.stderr(`fliplab: ${(e as Error).message}\n`);
      return EXIT_BAD_INPUT;
    }
    io.stderr(`fliplab: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 70;
  }
}
