import type { Command } from 'commander';
import { bm25RunName, buildBm25Index, DEFAULT_BM25_PARAMS, runBm25 } from '../../core/retrieve/bm25.ts';
import { formatRunLines } from '../../core/io/trec.ts';
import { checkQrels, selectEvaluationQueries } from '../../core/io/validate.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { parseFloatFlag, parseIntFlag } from '../args.ts';
import { reportDiagnostics, writeOutput, type Io } from '../output.ts';

export const MAX_DEPTH = 1000;

export function registerBm25(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('bm25')
    .description("rank a BEIR collection's judged queries with the RAGFlip paper's BM25; writes a TREC run")
    .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv (each optionally .gz)')
    .option('--split <name>', 'qrels split whose queries are ranked', 'test')
    .option('--k1 <x>', 'term-frequency saturation k1 (paper 1.5; variant 1.2)', parseFloatFlag('--k1', 0), DEFAULT_BM25_PARAMS.k1)
    .option('--b <x>', 'length normalisation b in [0, 1] (paper 0.75; variant 0.65)', parseFloatFlag('--b', 0, 1), DEFAULT_BM25_PARAMS.b)
    .option('--depth <n>', `documents per query, 1..${MAX_DEPTH}`, parseIntFlag('--depth', 1, MAX_DEPTH), MAX_DEPTH)
    .option('--tag <name>', 'run tag written in column 6 (default: the lab\'s name for these settings, "bm25" or "bm25-k1=1.2-b=0.75")')
    .option('--out <file>', 'write the run here instead of stdout')
    .action(async (dir: string, opts: { split: string; k1: number; b: number; depth: number; tag?: string; out?: string }) => {
      const started = performance.now();
      const col = await loadBeirFolder(dir, opts.split);
      reportDiagnostics(io, [...col.warnings, ...checkQrels(col.qrels, col.files.qrels, { corpus: col.corpus, queries: col.queries })]);
      const selected = selectEvaluationQueries(col.qrels, col.queries);
      const index = buildBm25Index(col.corpus, { k1: opts.k1, b: opts.b });
      const tag = opts.tag ?? bm25RunName(opts);
      const run = runBm25(index, col.corpus, col.queries, selected, opts.depth, tag);
      writeOutput(io, Array.from(formatRunLines(run, tag)).join(''), opts.out);
      io.stderr(
        `bm25: ${selected.length} queries × top ${opts.depth} over ${col.corpus.ids.length} documents ` +
          `(k1 = ${opts.k1}, b = ${opts.b}) in ${((performance.now() - started) / 1000).toFixed(2)} s\n`,
      );
    });
}
