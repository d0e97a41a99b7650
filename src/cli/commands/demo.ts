import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { analyzeFlips, formatFlipReport } from '../../core/flips/index.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import { evaluate, formatTrecEval, parseMeasures } from '../../core/metrics/index.ts';
import { buildBm25Index, runBm25 } from '../../core/retrieve/bm25.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { reportDiagnostics, type Io } from '../output.ts';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '../../..');
/** SciFact as this workplace keeps it beside the project, then the bundled twelve-passage example. */
const DEFAULT_FOLDERS = [resolve(REPO, '../shared/data/scifact'), join(REPO, 'examples/tiny-beir')];

/** The paper's within-BM25 comparison (Appendix A.5): the reference against its one-parameter variants. */
const VARIANTS = [
  { name: 'bm25', k1: 1.5, b: 0.75 },
  { name: 'bm25-k1=1.2', k1: 1.2, b: 0.75 },
  { name: 'bm25-b=0.65', k1: 1.5, b: 0.65 },
] as const;

export function registerDemo(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('demo')
    .description("BM25 against its one-parameter variants on a BEIR folder: the paper's within-BM25 flip check")
    .argument('[beir-dir]', 'BEIR folder (default: ../shared/data/scifact if present, else examples/tiny-beir)')
    .action(async (dir: string | undefined) => {
      const folder = dir ?? DEFAULT_FOLDERS.find((f) => existsSync(join(f, 'queries.jsonl')))!;
      const col = await loadBeirFolder(folder, 'test');
      reportDiagnostics(io, col.warnings);
      const selected = selectEvaluationQueries(col.qrels, col.queries);
      io.stdout(`fliplab demo on ${folder}: ${col.corpus.ids.length} passages, ${selected.length} judged queries\n\n`);
      const runs = VARIANTS.map((v) => runBm25(buildBm25Index(col.corpus, { k1: v.k1, b: v.b }), col.corpus, col.queries, selected, 50, v.name));
      const measures = parseMeasures(['ndcg_cut.10', 'recip_rank', 'recall.50']);
      for (const run of runs) {
        io.stdout(`== ${run.name}\n${formatTrecEval(evaluate(col.qrels, run, measures), { perQuery: false, runid: run.name })}`);
      }
      const [reference, ...candidates] = runs as [(typeof runs)[number], ...typeof runs];
      io.stdout(`\n${formatFlipReport(analyzeFlips(col.qrels, reference, candidates))}`);
    });
}
