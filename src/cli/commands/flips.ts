/**
 * `fliplab flips`: the RAGFlip analysis of a reference run against candidate runs, as text tables or the
 * JSON contract, with an optional CI gate; `--csv` / `--report` write the per-query CSV and a Markdown or
 * HTML report through src/report, the same functions the lab's downloads use.
 */
import { errorMessage } from '../../core/error-message.ts';
import { writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import type { Command } from 'commander';
import { parseTrecEvalVersion, type TrecEvalVersion } from '../../core/metrics/version.ts';
import { formatSignificance } from '../../core/stats/format.ts';
import { analyzeFlips, DEFAULT_DEPTHS, formatFlipReport, type FlipReport } from '../../core/flips/index.ts';
import { KEEP_HELP, keepOptions, readKeptRuns } from '../runs.ts';
import { QRELS_HELP, qrelsPaths, readLayeredQrels } from '../qrels.ts';
import { forEvaluation } from '../../core/io/run-top.ts';
import type { KeptRun } from '../../core/io/run-top.ts';
import { depthWarnings, listLengths } from '../../core/depth.ts';
import type { Qrels, Run } from '../../core/types.ts';
import { flipReportJson, type ModelLabelsSummary } from '../../report/json.ts';
import { layerModelQrels } from '../../core/judging/layer.ts';
import { flipsOnModelLabels, withModelLabelCounts } from '../../core/judging/model-flips.ts';
import type { ParseResult } from '../../core/io/trec.ts';
import { readModelQrels, usableModelLabels } from '../model-qrels.ts';
import { importedRecipe, recipeLine, type Recipe } from '../../report/recipe.ts';
import { evaluateRun, LAB_MEASURES, labMetricsRow } from '../../report/metrics.ts';
import { significanceOfResults } from '../../report/significance.ts';
import type { SignificanceReport } from '../../core/stats/significance.ts';
import { perQueryCsv } from '../../report/per-query.ts';
import { reportHtml } from '../../report/html.ts';
import { reportMarkdown } from '../../report/markdown.ts';
import { reportLatex } from '../../report/latex.ts';
import type { ReportInput } from '../../report/sections.ts';
import { collect, parseIntFlag, parseIntList } from '../args.ts';
import { EXIT_GATE_FAILED, EXIT_OK, reportDiagnostics, UsageError, type Io } from '../output.ts';

interface FlipsOpts {
  reference: string;
  candidate: string[];
  name: string[];
  depths: number[];
  label: string;
  l: number;
  json?: boolean;
  perQuery?: boolean;
  maxNfr?: string;
  at?: number;
  csv?: string;
  report?: string;
  collection?: string;
  date?: string;
  trecEval: string;
  keep?: number;
  qrels: string[];
  judgedOnly?: boolean;
  cohortAt?: number;
  latex?: string;
  significance?: boolean;
  modelQrels?: string;
}

/** Write an export; a path that cannot be written is a usage problem (exit 2), not an internal error. */
function writeExport(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new UsageError(`cannot write ${path}: ${errorMessage(e)}`);
  }
}

/** "scifact/qrels/test.tsv" → "scifact (test)" (a BEIR folder); any other qrels file → its file name. */
function collectionName(qrelsPath: string): string {
  const name = basename(qrelsPath);
  if (basename(dirname(qrelsPath)) !== 'qrels') return name;
  const folder = basename(dirname(dirname(qrelsPath)));
  return folder === '' || folder === '.' ? name : `${folder} (${name.replace(/\.tsv(\.gz)?$/, '')})`;
}

/** The report format a --report file name asks for. */
function reportFormat(path: string): 'markdown' | 'html' {
  const ext = extname(path).toLowerCase();
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  if (ext === '.html' || ext === '.htm') return 'html';
  throw new UsageError(`--report expects a file name ending in .md or .html, got "${path}"`);
}

/** A run read from a file: its recipe is the file, its lines (ranked entries) and its queries. */
function fileRunRecipe(path: string, run: Run): Recipe {
  return importedRecipe(
    path,
    listLengths(run).reduce((s, n) => s + n, 0),
    run.byQuery.size,
  );
}

/** Markdown or HTML report of an analysis, with each run's trec_eval measures (no plots from the CLI). */
export function writtenReport(
  format: 'markdown' | 'html' | 'latex',
  report: FlipReport,
  qrels: Qrels,
  runs: readonly Run[],
  meta: {
    collection: string;
    date: string;
    relevanceLevel: number;
    paths: readonly string[];
    trecEval?: TrecEvalVersion;
    judgedOnly?: boolean;
    significance?: SignificanceReport;
    modelLabels?: ReportInput['modelLabels'];
  },
): string {
  const input: ReportInput = {
    title: 'RAGFlip report',
    collection: meta.collection,
    date: meta.date,
    report,
    metrics: runs.map((r) =>
      // A run kept to a depth is measured as its whole file (forEvaluation: the judged tail at its positions).
      labMetricsRow(qrels, forEvaluation(r), {
        relevanceLevel: meta.relevanceLevel,
        ...(meta.trecEval === undefined ? {} : { version: meta.trecEval }),
        ...(meta.judgedOnly === true ? { judgedOnly: true } : {}),
      }),
    ),
    descriptions: Object.fromEntries(runs.map((r, i) => [r.name, recipeLine(fileRunRecipe(meta.paths[i] ?? r.name, r))])),
    ...(meta.significance === undefined ? {} : { significance: meta.significance }),
    ...(meta.modelLabels === undefined ? {} : { modelLabels: meta.modelLabels }),
  };
  return format === 'html' ? reportHtml(input) : format === 'latex' ? reportLatex(input) : reportMarkdown(input);
}

/** "0.05" or "5%" → 0.05. */
function parseRate(value: string): number {
  const pct = value.trim().endsWith('%');
  const n = Number(pct ? value.trim().slice(0, -1) : value);
  const rate = pct ? n / 100 : n;
  if (value.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new UsageError(`--max-nfr expects a rate in [0, 1] or a percentage like 5%, got "${value}"`);
  }
  return rate;
}

/**
 * Run names: the `--name` values when given (one per run, reference first, all different), else the file
 * names, repeats suffixed with a number so every row is distinguishable.
 */
export function nameRuns(paths: string[], given: readonly string[] = []): string[] {
  if (given.length > 0) {
    if (given.length !== paths.length) {
      throw new UsageError(
        `--name was given ${given.length} time(s) for ${paths.length} runs: name every run, the reference first, then each ` +
          `--candidate in order`,
      );
    }
    const repeated = given.find((n, i) => given.indexOf(n) !== i);
    if (repeated !== undefined) throw new UsageError(`--name "${repeated}" names two runs: every run needs its own name`);
    const blank = given.findIndex((n) => n.trim() === '');
    if (blank >= 0) throw new UsageError(`--name number ${blank + 1} is empty`);
    return [...given];
  }
  const seen = new Map<string, number>();
  return paths.map((p) => {
    const base = basename(p);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}#${count}`;
  });
}

/** Which candidates exceed the gate; undefined rates (no reference-supported query) cannot fail it. */
export function gateViolations(report: FlipReport, maxRate: number, k: number): { name: string; rate: number | null }[] {
  const block = report.depths.find((d) => d.k === k);
  if (!block) return [];
  return block.candidates
    .map((c) => ({ name: c.name, rate: c.negative_flip_rate.value }))
    .filter((c) => c.rate === null || c.rate > maxRate);
}

/** The model layer of `--model-qrels`: read against people's grades, left to the labels the analysis can use, layered under them. */
async function modelLayer(path: string, people: ParseResult<Qrels>, qrelsFiles: readonly string[], runs: readonly { value: KeptRun }[]) {
  const read = await readModelQrels(path, people.value, qrelsFiles.join(' + '));
  const usable = usableModelLabels(
    read.qrels,
    people.value,
    runs.map((r) => r.value),
    path,
  );
  const layer = layerModelQrels(people.value, usable.qrels);
  const summary: ModelLabelsSummary = {
    source: path,
    filled: layer.filled,
    set_aside: layer.overruled,
    model_only_queries: layer.modelOnlyQueries,
  };
  return { layer, summary, warnings: [...read.warnings, ...usable.warnings] };
}

export function registerFlips(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('flips')
    .description('RAGFlip transition analysis: which queries a replacement retriever fixes and breaks')
    .argument('[qrels]', 'TREC qrels or BEIR qrels TSV (or give them with --qrels)')
    .option('--qrels <file>', QRELS_HELP, collect, [])
    .option('--judged-only', 'analyse judged-only rankings: unjudged passages removed before any cut (trec_eval -J)')
    .option(
      '--cohort-at <k0>',
      'one cohort across depths: analyse only the queries the reference supports at k0, at every depth',
      parseIntFlag('--cohort-at', 1),
    )
    .requiredOption('--reference <run>', 'the run being replaced (e.g. BM25)')
    .option('--candidate <run>', 'a replacement run; repeatable', collect, [])
    .option(
      '--name <name>',
      'run name in the report, once per run: the reference first, then each candidate (default: file names)',
      collect,
      [],
    )
    .option('--depths <list>', 'comma-separated depths k', parseIntList('--depths'), [...DEFAULT_DEPTHS])
    .option('--label <label>', 'support label: any (one positive in top k) or strict (all positives)', 'any')
    .option('-l <n>', 'minimum grade that counts as positive', parseIntFlag('-l', -1000000), 1)
    .option('--json', 'print the report as JSON')
    .option('--per-query', 'include per-query states in the JSON report')
    .option('--max-nfr <rate>', "gate: exit 1 if any candidate's negative-flip rate at --at exceeds this (0.05 or 5%)")
    .option('--at <k>', 'depth the gate checks (default 10)', parseIntFlag('--at', 1))
    .option('--csv <file>', 'also write per-query states as CSV (one row per query and candidate)')
    .option('--report <file>', 'also write a report with every table: Markdown (.md) or self-contained HTML (.html)')
    .option('--latex <file>', "also write the report's tables as LaTeX (booktabs): measures, every depth, hybrids, strata, paired tests")
    .option('--collection <name>', 'collection name shown in the --report (default: BEIR folder and split, or the qrels file name)')
    .option('--date <text>', 'date shown in the --report (default: today, UTC)')
    .option('--keep <n>', KEEP_HELP, parseIntFlag('--keep', 1))
    .option('--trec-eval <release>', "trec_eval release of the --report's measures: 10.0 or 9.0.8 (as fliplab eval)", '10.0')
    .option(
      '--significance',
      "also test each candidate's measures against the reference's, as the lab's table does (paired t, randomization, " +
        'bootstrap interval, d_z, TRisk; Holm): `significance` in the JSON, a section in the reports (see fliplab significance)',
    )
    .option(
      '--model-qrels <file>',
      "a model's judgments (TREC or BEIR qrels) layered under people's: they fill only pairs no person judged; each " +
        'candidate row gains broken_on_model_labels and fixed_on_model_labels (the flips that are no flips without them)',
    )
    .action(async (qrelsArg: string | undefined, opts: FlipsOpts) => {
      const qrelsFiles = qrelsPaths(qrelsArg, opts.qrels);
      const qrelsPath = qrelsFiles[0]!;
      if (opts.candidate.length === 0) throw new UsageError('flips needs at least one --candidate run');
      if (opts.label !== 'any' && opts.label !== 'strict') throw new UsageError(`--label expects "any" or "strict", got "${opts.label}"`);
      const gate = opts.maxNfr === undefined ? undefined : { rate: parseRate(opts.maxNfr), k: opts.at ?? 10 };
      if (opts.at !== undefined && gate === undefined) throw new UsageError('--at only applies together with --max-nfr');
      const depths = gate && !opts.depths.includes(gate.k) ? [...opts.depths, gate.k] : opts.depths;
      const format = opts.report === undefined ? undefined : reportFormat(opts.report);
      const trecEval = parseTrecEvalVersion(opts.trecEval);
      if (trecEval === undefined) throw new UsageError(`--trec-eval expects 10.0 or 9.0.8, got "${opts.trecEval}"`);

      const paths = [opts.reference, ...opts.candidate];
      const names = nameRuns(paths, opts.name);
      const people = await readLayeredQrels(qrelsFiles);
      const runs = await readKeptRuns(paths, names, keepOptions(Math.max(...depths), opts.keep, people.value));
      const model = opts.modelQrels === undefined ? undefined : await modelLayer(opts.modelQrels, people, qrelsFiles, runs);
      const qrels = model === undefined ? people : { value: model.layer.qrels, warnings: [...people.warnings, ...model.warnings] };
      const [reference, ...candidates] = runs.map((r) => r.value) as [KeptRun, ...KeptRun[]];
      const depthNotes = depthWarnings(
        runs.map((r) => ({ name: r.value.name, lengths: listLengths(r.value) })),
        depths.map((k) => ({ k, label: `depth ${k}` })),
      );
      reportDiagnostics(io, [
        ...qrels.warnings,
        ...runs.flatMap((r) => r.warnings),
        ...depthNotes.map((w) => ({
          severity: 'warning' as const,
          file: paths[runs.findIndex((r) => r.value.name === w.run)]!,
          message: w.message,
        })),
      ]);
      const flipOptions = {
        depths,
        label: opts.label as 'any' | 'strict',
        relevanceLevel: opts.l,
        perQuery: opts.perQuery === true || opts.csv !== undefined,
        judgedOnly: opts.judgedOnly === true,
        ...(opts.cohortAt === undefined ? {} : { cohortAt: opts.cohortAt }),
      };
      const report =
        model === undefined
          ? analyzeFlips(qrels.value, reference, candidates, flipOptions)
          : (() => {
              const both = flipsOnModelLabels(people.value, qrels.value, reference, candidates, flipOptions);
              return withModelLabelCounts(both.report, both.onModel);
            })();
      // --csv needs per-query states; the printed report carries them only when --per-query asks.
      const printed: FlipReport = { ...report };
      if (opts.perQuery !== true) delete printed.per_query;
      // Each run's recipe: the file it came from, its lines (ranked entries) and queries.
      const recipes = Object.fromEntries(runs.map((r, i) => [r.value.name, fileRunRecipe(paths[i]!, r.value)]));
      // The lab's paired tests of its measures, on the runs as measured (kept runs as their whole files).
      const tests =
        opts.significance === true
          ? significanceOfResults(
              runs.map((r) => ({
                name: r.value.name,
                result: evaluateRun(qrels.value, forEvaluation(r.value), {
                  measures: LAB_MEASURES.map((m) => m.key),
                  relevanceLevel: opts.l,
                  version: trecEval,
                  judgedOnly: opts.judgedOnly === true,
                }),
              })),
            )
          : undefined;
      io.stdout(
        opts.json
          ? flipReportJson(printed, depthNotes, recipes, tests, model?.summary)
          : formatFlipReport(printed) + (tests ? `\n\n${formatSignificance(tests)}` : ''),
      );
      if (opts.csv !== undefined) {
        writeExport(opts.csv, perQueryCsv(report));
        io.stderr(`wrote per-query CSV to ${opts.csv}\n`);
      }
      const reportMeta = {
        collection: opts.collection ?? collectionName(qrelsPath),
        date: opts.date ?? new Date().toISOString().slice(0, 10),
        relevanceLevel: opts.l,
        paths,
        trecEval,
        judgedOnly: opts.judgedOnly === true,
        ...(tests === undefined ? {} : { significance: tests }),
        ...(model === undefined
          ? {}
          : {
              modelLabels: {
                judge: model.summary.source,
                labels: model.summary.filled,
                audit: `fliplab judge-audit ${qrelsPath} ${model.summary.source} gives their agreement with people's.`,
              },
            }),
      };
      if (opts.report !== undefined && format !== undefined) {
        writeExport(opts.report, writtenReport(format, printed, qrels.value, [reference, ...candidates], reportMeta));
        io.stderr(`wrote ${format === 'html' ? 'HTML' : 'Markdown'} report to ${opts.report}\n`);
      }
      if (opts.latex !== undefined) {
        writeExport(opts.latex, writtenReport('latex', printed, qrels.value, [reference, ...candidates], reportMeta));
        io.stderr(`wrote LaTeX tables to ${opts.latex}\n`);
      }

      if (gate) {
        const bad = gateViolations(report, gate.rate, gate.k);
        for (const v of bad) {
          io.stderr(
            v.rate === null
              ? `gate: "${v.name}" negative-flip rate at k = ${gate.k} is undefined (the reference supports no query); failing closed\n`
              : `gate: "${v.name}" negative-flip rate at k = ${gate.k} is ${(100 * v.rate).toFixed(2)}% > ` +
                  `${(100 * gate.rate).toFixed(2)}%\n`,
          );
        }
        if (bad.length === 0)
          io.stderr(`gate: every candidate's negative-flip rate at k = ${gate.k} is ≤ ${(100 * gate.rate).toFixed(2)}%\n`);
        setExit(bad.length > 0 ? EXIT_GATE_FAILED : EXIT_OK);
      }
    });
}
