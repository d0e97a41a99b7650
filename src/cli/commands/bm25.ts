import type { Command } from 'commander';
import { bm25IndexFrom, bm25RunName, buildBm25Index, DEFAULT_BM25_PARAMS, runBm25, searchBm25 } from '../../core/retrieve/bm25.ts';
import {
  ANSERINI_PRESETS,
  anseriniRecipe,
  anseriniRunName,
  buildAnseriniIndex,
  isAnseriniPreset,
  runAnserini,
  type AnseriniParams,
} from '../../core/retrieve/bm25-anserini.ts';
import { buildLexicalIndex } from '../../core/retrieve/lexical.ts';
import { QL_DEFAULT_MU, qlRunName, runQl } from '../../core/retrieve/ql.ts';
import { DEFAULT_RM3_PARAMS, rm3RunName, runRm3 } from '../../core/retrieve/rm3.ts';
import { formatRunLines } from '../../core/io/trec.ts';
import { checkQrels, selectEvaluationQueries } from '../../core/io/validate.ts';
import type { Run } from '../../core/types.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { parseFloatFlag, parseIntFlag, parsePositiveFlag } from '../args.ts';
import { reportDiagnostics, UsageError, writeOutput, type Io } from '../output.ts';

export const MAX_RANKS = 1000;

interface CommonOptions {
  split: string;
  depth: number;
  tag?: string;
  out?: string;
}

/** The options every lexical ranking command shares (same output format as `bm25`). */
function lexicalCommand(program: Command, name: string, description: string, defaultTag: string): Command {
  return program
    .command(name)
    .description(description)
    .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv (each optionally .gz)')
    .option('--split <name>', 'qrels split whose queries are ranked', 'test')
    .option('--depth <n>', `documents per query, 1..${MAX_RANKS}`, parseIntFlag('--depth', 1, MAX_RANKS), MAX_RANKS)
    .option('--tag <name>', `run tag written in column 6 (default: the lab's name for these settings, ${defaultTag})`)
    .option('--out <file>', 'write the run here instead of stdout');
}

/** Load, rank the judged queries, write the run, say what was done on stderr. */
async function rankCollection(
  io: Io,
  dir: string,
  opts: CommonOptions,
  what: { name: string; settings: string },
  rank: (col: Awaited<ReturnType<typeof loadBeirFolder>>, selected: number[]) => Run,
): Promise<void> {
  const started = performance.now();
  const col = await loadBeirFolder(dir, opts.split);
  reportDiagnostics(io, [...col.warnings, ...checkQrels(col.qrels, col.files.qrels, { corpus: col.corpus, queries: col.queries })]);
  const selected = selectEvaluationQueries(col.qrels, col.queries);
  const run = rank(col, selected);
  writeOutput(io, Array.from(formatRunLines(run, run.name)).join(''), opts.out);
  io.stderr(
    `${what.name}: ${selected.length} queries × top ${opts.depth} over ${col.corpus.ids.length} documents ` +
      `(${what.settings}) in ${((performance.now() - started) / 1000).toFixed(2)} s\n`,
  );
}

export function registerBm25(program: Command, io: Io, _setExit: (code: number) => void): void {
  lexicalCommand(
    program,
    'bm25',
    "rank a BEIR collection's judged queries with the RAGFlip paper's BM25 (optionally + RM3 feedback); writes a TREC run",
    '"bm25", "bm25-k1=1.2-b=0.75", "bm25-rm3"',
  )
    .option(
      '--preset <name>',
      `another BM25 recipe: ${Object.keys(ANSERINI_PRESETS).join(', ')} (Lucene BM25 as Anserini/Pyserini run it, k1 = 0.9, ` +
        "b = 0.4; -multifield: title and text as two fields) — the paper's BM25 when not given",
    )
    .option('--k1 <x>', 'term-frequency saturation k1 (paper 1.5, variant 1.2; anserini 0.9)', parseFloatFlag('--k1', 0))
    .option('--b <x>', 'length normalisation b in [0, 1] (paper 0.75, variant 0.65; anserini 0.4)', parseFloatFlag('--b', 0, 1))
    .option('--rm3', 'expand each query with RM3 pseudo-relevance feedback (Anserini defaults; DESIGN.md "Instant candidates")')
    .option('--fb-docs <n>', 'RM3 feedback documents', parseIntFlag('--fb-docs', 1, 1000), DEFAULT_RM3_PARAMS.fbDocs)
    .option('--fb-terms <n>', 'RM3 expansion terms', parseIntFlag('--fb-terms', 1, 1000), DEFAULT_RM3_PARAMS.fbTerms)
    .option(
      '--original-query-weight <x>',
      'RM3 weight of the original query in [0, 1]',
      parseFloatFlag('--original-query-weight', 0, 1),
      DEFAULT_RM3_PARAMS.originalQueryWeight,
    )
    .action(
      async (
        dir: string,
        opts: CommonOptions & {
          preset?: string;
          k1?: number;
          b?: number;
          rm3?: boolean;
          fbDocs: number;
          fbTerms: number;
          originalQueryWeight: number;
        },
      ) => {
        if (opts.preset !== undefined) {
          if (!isAnseriniPreset(opts.preset)) {
            throw new UsageError(`--preset: unknown recipe "${opts.preset}"; expected one of ${Object.keys(ANSERINI_PRESETS).join(', ')}`);
          }
          if (opts.rm3) throw new UsageError("--rm3 runs on the paper's BM25; it does not combine with --preset");
          const preset = ANSERINI_PRESETS[opts.preset];
          const p: AnseriniParams = { ...preset, k1: opts.k1 ?? preset.k1, b: opts.b ?? preset.b };
          const what = { name: `bm25 (${opts.preset})`, settings: anseriniRecipe(p) };
          await rankCollection(io, dir, opts, what, (col, selected) =>
            runAnserini(buildAnseriniIndex(col.corpus, p), col.corpus, col.queries, selected, opts.depth, opts.tag ?? anseriniRunName(p)),
          );
          return;
        }
        const bm25 = { k1: opts.k1 ?? DEFAULT_BM25_PARAMS.k1, b: opts.b ?? DEFAULT_BM25_PARAMS.b };
        const rm3 = { ...bm25, fbDocs: opts.fbDocs, fbTerms: opts.fbTerms, originalQueryWeight: opts.originalQueryWeight };
        const settings = `k1 = ${bm25.k1}, b = ${bm25.b}`;
        const what = opts.rm3
          ? {
              name: 'bm25 + rm3',
              settings:
                `${settings}, fb_docs = ${opts.fbDocs}, fb_terms = ${opts.fbTerms}, ` +
                `original query weight = ${opts.originalQueryWeight}`,
            }
          : { name: 'bm25', settings };
        await rankCollection(io, dir, opts, what, (col, selected) => {
          if (!opts.rm3)
            return runBm25(buildBm25Index(col.corpus, bm25), col.corpus, col.queries, selected, opts.depth, opts.tag ?? bm25RunName(bm25));
          // one term–document pass for both indexes: the collection is tokenized once
          const lex = buildLexicalIndex(col.corpus);
          const index = bm25IndexFrom(lex, bm25);
          const first = (text: string, n: number) => searchBm25(index, text, n);
          return runRm3(lex, col.corpus, col.queries, selected, opts.depth, first, rm3, opts.tag ?? rm3RunName(rm3));
        });
      },
    );

  lexicalCommand(
    program,
    'ql',
    "rank a BEIR collection's judged queries by query likelihood with Dirichlet smoothing; writes a TREC run",
    '"ql" for μ = 1000, "ql-mu=2000" otherwise',
  )
    .option('--mu <x>', 'Dirichlet prior μ > 0 (Anserini -qld default 1000)', parsePositiveFlag('--mu'), QL_DEFAULT_MU)
    .action(async (dir: string, opts: CommonOptions & { mu: number }) => {
      await rankCollection(io, dir, opts, { name: 'ql', settings: `Dirichlet μ = ${opts.mu}` }, (col, selected) =>
        runQl(buildLexicalIndex(col.corpus), col.corpus, col.queries, selected, opts.depth, opts.mu, opts.tag ?? qlRunName(opts.mu)),
      );
    });
}
