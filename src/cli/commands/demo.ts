import { join } from 'node:path';
import type { Command } from 'commander';
import { analyzeFlips, formatFlipReport } from '../../core/flips/index.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import { evaluate, formatTrecEval, parseMeasures } from '../../core/metrics/index.ts';
import { BM25_VARIANTS, bm25RunName, buildBm25Index, runBm25 } from '../../core/retrieve/bm25.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { packageRoot } from '../../node/package-root.ts';
import { reportDiagnostics, type Io } from '../output.ts';

/** The twelve-passage BEIR collection shipped with the project (found from the sources or the compiled CLI). */
const example = (): string => join(packageRoot(), 'examples/tiny-beir');

/** The paper's within-BM25 comparison (Appendix A.5): the reference against its one-parameter variants. */
const VARIANTS = [BM25_VARIANTS.ragflip, BM25_VARIANTS['ragflip-k1'], BM25_VARIANTS['ragflip-b']];

export function registerDemo(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('demo')
    .description("BM25 against its one-parameter variants on a BEIR folder: the paper's within-BM25 flip check")
    .argument('[beir-dir]', 'BEIR folder, e.g. a downloaded SciFact (default: the bundled twelve-passage example)')
    .action(async (dir: string | undefined) => {
      const folder = dir ?? example();
      const col = await loadBeirFolder(folder, 'test');
      reportDiagnostics(io, col.warnings);
      const selected = selectEvaluationQueries(col.qrels, col.queries);
      io.stdout(`fliplab demo on ${folder}: ${col.corpus.ids.length} passages, ${selected.length} judged queries\n\n`);
      const runs = VARIANTS.map((v) => runBm25(buildBm25Index(col.corpus, v), col.corpus, col.queries, selected, 50, bm25RunName(v)));
      const measures = parseMeasures(['ndcg_cut.10', 'recip_rank', 'recall.50']);
      for (const run of runs) {
        io.stdout(`== ${run.name}\n${formatTrecEval(evaluate(col.qrels, run, measures), { perQuery: false, runid: run.name })}`);
      }
      const [reference, ...candidates] = runs as [(typeof runs)[number], ...typeof runs];
      io.stdout(`\n${formatFlipReport(analyzeFlips(col.qrels, reference, candidates))}`);
    });
}
