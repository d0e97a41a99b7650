/**
 * `fliplab demo`: the lab's `#demo` in a terminal, on one screen. The reference is the paper's BM25 and the
 * candidates the lab's two instant ones, BM25 + RM3 and Dirichlet query likelihood, built as the lab's worker
 * builds them (src/worker/engine/retrievers.ts: one term–document pass, the same core functions, default parameters,
 * run names and list depth), so the numbers are the lab's. It prints the headline sentences
 * (src/report/headline.ts, the lab's own), broken / fixed by depth, the transition matrix at k, the lab's
 * paired tests (report/significance.ts LAB_SIGNIFICANCE, nDCG@10's shown), and which queries
 * broke and which were fixed.
 *
 * On the bundled classroom collection (examples/demo-beir) it uses the lab demo's depths 1, 3, 5, 10, 20 and
 * k = 3 (src/app/demo.ts: the small collection flips at shallow depths); on any other BEIR folder the lab's
 * defaults, depths 1, 5, 10, 20, 50 and k = 10 (SciFact's demo). `--bm25-variants` keeps the paper's
 * within-BM25 check (Appendix A.5): BM25 against its one-parameter variants.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { analyzeFlips, formatFlipReport, type FlipReport } from '../../core/flips/index.ts';
import { transitionRows, type TableRows } from '../../core/flips/format.ts';
import { selectEvaluationQueries } from '../../core/io/validate.ts';
import { evaluate, formatTrecEval, parseMeasures } from '../../core/metrics/index.ts';
import {
  BM25_VARIANTS,
  bm25IndexFrom,
  bm25RunName,
  buildBm25Index,
  DEFAULT_BM25_PARAMS,
  resolveBm25Params,
  runBm25,
  searchBm25,
} from '../../core/retrieve/bm25.ts';
import { lexicalIndexFrom } from '../../core/retrieve/lexical.ts';
import { QL_DEFAULT_MU, qlRunName, runQl } from '../../core/retrieve/ql.ts';
import { resolveRm3Params, rm3RunName, runRm3 } from '../../core/retrieve/rm3.ts';
import { countTermDocs } from '../../core/retrieve/term-docs.ts';
import { familyLine, significanceTables } from '../../core/stats/format.ts';
import type { SignificanceReport } from '../../core/stats/significance.ts';
import { textTable } from '../../core/text-table.ts';
import type { Corpus, Qrels, Queries, Run } from '../../core/types.ts';
import { headlineSentences, judgesNonRelevant } from '../../report/headline.ts';
import { evaluateRun, LAB_MEASURES, labMetricsRow, measureLabel, type MetricsRow } from '../../report/metrics.ts';
import { significanceOfResults } from '../../report/significance.ts';
import { loadBeirFolder } from '../../node/files.ts';
import { packageRoot } from '../../node/package-root.ts';
import { parseIntFlag, parseIntList } from '../args.ts';
import { reportDiagnostics, type Io } from '../output.ts';

/** The classroom collection the lab's `#demo` opens (found from the sources or the compiled CLI). */
const example = (): string => join(packageRoot(), 'examples/demo-beir');

/** The lab demo's view on the classroom collection (src/app/demo.ts `openDemo`). */
export const CLASSROOM_DEPTHS: readonly number[] = [1, 3, 5, 10, 20];
export const CLASSROOM_K = 3;
/** The lab's defaults (src/app/types.ts DEFAULT_VIEW): SciFact's demo, and any other collection. */
export const DEFAULT_DEMO_DEPTHS: readonly number[] = [1, 5, 10, 20, 50];
export const DEFAULT_DEMO_K = 10;
/** Passages kept per query and run: the lab's RUN_DEPTH (src/worker/engine/retrievers.ts), so R@100 and MAP read the same lists. */
export const DEMO_RUN_DEPTH = 1000;

/** Terminal width the demo keeps to (query texts are cut to fit). */
const WIDTH = 100;
/** Queries listed with their text per candidate and state; beyond it, two with text and the rest as ids. */
const LISTED = 3;
/** The paired tests shown, of the lab's family (the p adjustment still counts every lab measure). */
const SHOWN_TEST = 'ndcg_cut_10';

/** The paper's within-BM25 comparison (Appendix A.5): the reference against its one-parameter variants. */
const VARIANTS = [BM25_VARIANTS.ragflip, BM25_VARIANTS['ragflip-k1'], BM25_VARIANTS['ragflip-b']];

export interface DemoCollection {
  readonly corpus: Corpus;
  readonly queries: Queries;
  readonly qrels: Qrels;
}

export interface DemoAnalysis {
  readonly runs: readonly Run[];
  readonly report: FlipReport;
  readonly metrics: readonly MetricsRow[];
  readonly significance: SignificanceReport;
  /** Whether the headline may speak of holes in the judgments (as the lab: only when some grade is ≤ 0). */
  readonly holes: boolean;
}

/** BM25 against BM25 + RM3 and QL, analysed and measured as the lab does. */
export function demoAnalysis(col: DemoCollection, depths: readonly number[]): DemoAnalysis {
  const { corpus, queries, qrels } = col;
  const selected = selectEvaluationQueries(qrels, queries);
  // One term–document pass for every index, as the lab's engine: the collection is tokenized once.
  const terms = countTermDocs(corpus);
  const bm25 = bm25IndexFrom(terms, resolveBm25Params(DEFAULT_BM25_PARAMS));
  const lexical = lexicalIndexFrom(terms);
  const rm3 = resolveRm3Params();
  const reference = runBm25(bm25, corpus, queries, selected, DEMO_RUN_DEPTH, bm25RunName(DEFAULT_BM25_PARAMS));
  const candidates = [
    runRm3(lexical, corpus, queries, selected, DEMO_RUN_DEPTH, (text, n) => searchBm25(bm25, text, n), rm3, rm3RunName()),
    runQl(lexical, corpus, queries, selected, DEMO_RUN_DEPTH, QL_DEFAULT_MU, qlRunName(QL_DEFAULT_MU)),
  ];
  const runs = [reference, ...candidates];
  const measures = LAB_MEASURES.map((m) => m.key);
  return {
    runs,
    report: analyzeFlips(qrels, reference, candidates, { depths, perQuery: true }),
    metrics: runs.map((run) => labMetricsRow(qrels, run)),
    significance: significanceOfResults(runs.map((run) => ({ name: run.name, result: evaluateRun(qrels, run, { measures }) }))),
    holes: judgesNonRelevant(qrels),
  };
}

/** The named columns of a table, in the order named (a name that occurs twice is taken in turn). */
function columns(table: TableRows, names: readonly string[]): TableRows {
  const used = new Set<number>();
  const at = names.map((name) => {
    const i = table.header.findIndex((h, j) => h === name && !used.has(j));
    if (i < 0) throw new Error(`no column "${name}"`);
    used.add(i);
    return i;
  });
  return { header: at.map((i) => table.header[i]!), rows: table.rows.map((r) => at.map((i) => r[i] ?? '')) };
}

/**
 * A sentence wrapped to WIDTH columns, lines after the first indented two spaces: broken after a "; " or ". "
 * past the line's first third when there is one (the headline's nDCG clause stays whole), else at a space.
 */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > WIDTH) {
    const room = rest.slice(0, WIDTH + 1);
    const clause = Math.max(room.lastIndexOf('; '), room.lastIndexOf('. '));
    const at = clause > WIDTH / 3 ? clause + 1 : room.lastIndexOf(' ');
    if (at <= 2) break;
    lines.push(rest.slice(0, at));
    rest = `  ${rest.slice(at).trimStart()}`;
  }
  return [...lines, rest];
}

const cut = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);

/** Broken and fixed queries at k, per candidate: id and text, LISTED at most per group, the rest as ids. */
function flippedQueries(report: FlipReport, k: number, queries: Queries): string[] {
  const at = report.depth_list.indexOf(k);
  const names = report.runs.filter((r) => r.role === 'candidate').map((r) => r.name);
  const nameWidth = Math.max(...names.map((n) => n.length));
  const idWidth = Math.max(0, ...(report.per_query ?? []).map((q) => q.qid.length));
  const out: string[] = [];
  names.forEach((name, c) => {
    let first = true;
    for (const state of ['broken', 'fixed'] as const) {
      const ids = (report.per_query ?? []).filter((q) => q.candidates[c]!.states[at] === state).map((q) => q.qid);
      if (ids.length === 0) continue;
      const shown = ids.length > LISTED ? ids.slice(0, LISTED - 1) : ids;
      const lead = (i: number) => `  ${(first && i === 0 ? name : '').padEnd(nameWidth)}  ${(i === 0 ? state : '').padEnd(6)}  `;
      shown.forEach((qid, i) => {
        const prefix = `${lead(i)}${qid.padEnd(idWidth)}  `;
        const text = queries.texts[queries.indexOf.get(qid as never) ?? -1] ?? '';
        out.push(cut(`${prefix}${text}`, WIDTH).trimEnd());
      });
      if (shown.length < ids.length) {
        const rest = ids.slice(shown.length);
        out.push(cut(`${lead(1)}… and ${rest.length} more: ${rest.join(', ')}`, WIDTH));
      }
      first = false;
    }
    if (first) out.push(`  ${name.padEnd(nameWidth)}  neither breaks nor fixes a query`);
  });
  return out;
}

/** Broken / fixed of each candidate at every depth: the lab's depth plot, in numbers. */
function byDepth(report: FlipReport): string {
  const names = report.runs.filter((r) => r.role === 'candidate').map((r) => r.name);
  return textTable(
    ['candidate', ...report.depths.map((d) => `k = ${d.k}`)],
    names.map((name) => [
      name,
      ...report.depths.map((d) => d.candidates.find((c) => c.name === name)!).map((c) => `${c.broken} / ${c.fixed}`),
    ]),
  );
}

/** The demo's text: one screen, at most WIDTH columns (query texts are cut to fit). */
export function formatDemo(analysis: DemoAnalysis, k: number, queries: Queries): string {
  const { report, metrics, significance } = analysis;
  const block = report.depths.find((d) => d.k === k)!;
  const reference = block.reference.name;
  const matrix = columns(transitionRows(block), [
    'candidate',
    'preserved',
    'fixed',
    'broken',
    'unchanged',
    'fix rate',
    'negative-flip rate',
  ]);
  const rows = significance.rows.filter((r) => r.measure === SHOWN_TEST);
  const tests = significanceTables({ ...significance, rows }).map((t) => {
    const shown = columns(t, ['candidate', 'n', 'Δ [95% CI]', 'p (t)', 'p adj.', 'p (rand.)', 'p adj.', 'W/T/L']);
    return textTable(shown.header, shown.rows);
  });
  return [
    ...headlineSentences(report, k, metrics, { holes: analysis.holes }).flatMap((s) => wrap(s.text)),
    '',
    'Broken / fixed at each depth k (a query is supported at k when a relevant passage is in its top k)',
    byDepth(report),
    '',
    `Transitions at k = ${k}: ${reference} supports ${block.reference.supported} of ${report.queries} queries ` +
      '(rates with 95% intervals)',
    textTable(matrix.header, matrix.rows),
    '',
    `Is ${measureLabel(SHOWN_TEST)}'s change real? Paired tests against ${reference}, as in the lab (fliplab significance)`,
    ...wrap(`${familyLine(significance)}.`),
    ...tests,
    '',
    `Which queries flip at k = ${k}`,
    ...flippedQueries(report, k, queries),
    '',
  ].join('\n');
}

interface DemoOpts {
  k?: number;
  depths?: number[];
  bm25Variants?: boolean;
}

export function registerDemo(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('demo')
    .description(
      "the lab's #demo in a terminal: the paper's BM25 against BM25 + RM3 and Dirichlet query likelihood; the " +
        'headline, broken / fixed by depth, the transition matrix at k, paired tests, and the queries that broke and were fixed',
    )
    .argument('[beir-dir]', 'BEIR folder, e.g. a downloaded SciFact (default: the bundled classroom collection, examples/demo-beir)')
    .option(
      '-k <n>',
      'depth of the headline, the matrix and the query lists (default 3 on the bundled collection, else 10)',
      parseIntFlag('-k', 1, 1000),
    )
    .option(
      '--depths <list>',
      'depths of the broken / fixed table (default 1,3,5,10,20 on the bundled collection, else 1,5,10,20,50; k is added)',
      parseIntList('--depths'),
    )
    .option('--bm25-variants', "instead, the paper's within-BM25 check: BM25 against its variants k1=1.2 and b=0.65")
    .action(async (dir: string | undefined, opts: DemoOpts) => {
      const folder = dir ?? example();
      const classroom = resolve(folder) === resolve(example());
      const col = await loadBeirFolder(folder, 'test');
      reportDiagnostics(io, col.warnings);
      const shown = classroom ? "examples/demo-beir (the lab's #demo)" : folder;
      if (opts.bm25Variants === true) return bm25Variants(io, col, shown);
      const k = opts.k ?? (classroom ? CLASSROOM_K : DEFAULT_DEMO_K);
      const depths = [...new Set([...(opts.depths ?? (classroom ? CLASSROOM_DEPTHS : DEFAULT_DEMO_DEPTHS)), k])].sort((a, b) => a - b);
      const analysis = demoAnalysis(col, depths);
      const [reference, rm3, ql] = analysis.runs as [Run, Run, Run];
      io.stdout(
        `fliplab demo on ${shown}: ${col.corpus.ids.length.toLocaleString('en-US')} passages, ` +
          `${analysis.report.queries.toLocaleString('en-US')} judged queries\n` +
          `${reference.name} (the paper's BM25) against ${rm3.name} (BM25 + RM3) and ${ql.name} ` +
          `(query likelihood, μ = ${QL_DEFAULT_MU})\n\n` +
          formatDemo(analysis, k, col.queries) +
          (classroom ? '\nThe same analysis in your browser: npm start, then open http://localhost:4173/#demo\n' : ''),
      );
    });
}

/** The paper's within-BM25 check: trec_eval measures of each variant, then the whole flip report. */
function bm25Variants(io: Io, col: DemoCollection, shown: string): void {
  const selected = selectEvaluationQueries(col.qrels, col.queries);
  io.stdout(`fliplab demo --bm25-variants on ${shown}: ${col.corpus.ids.length} passages, ${selected.length} judged queries\n\n`);
  const runs = VARIANTS.map((v) => runBm25(buildBm25Index(col.corpus, v), col.corpus, col.queries, selected, 50, bm25RunName(v)));
  const measures = parseMeasures(['ndcg_cut.10', 'recip_rank', 'recall.50']);
  for (const run of runs) {
    io.stdout(`== ${run.name}\n${formatTrecEval(evaluate(col.qrels, run, measures), { perQuery: false, runid: run.name })}`);
  }
  const [reference, ...candidates] = runs as [Run, ...Run[]];
  io.stdout(`\n${formatFlipReport(analyzeFlips(col.qrels, reference, candidates))}`);
}
