/**
 * `fliplab fuse`: one run from a reference and a candidate (rank alternation with a ratio, RRF with a
 * constant, CombSUM of min-max normalised scores; core/flips/fusion.ts), written as a TREC run.
 * `fliplab frontier`: every mix of the sweep measured against the reference at k — broken, fixed, net gain —
 * with the Pareto frontier marked, as a table or JSON.
 *
 * Both read the runs whole (the fusions are defined over the full lists), with the text parser's checks.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { fuseRuns, fusionFrontier, fusionLabel, type FrontierPoint, type FusionParams } from '../../core/flips/fusion.ts';
import { formatRunLines, parseRun } from '../../core/io/trec.ts';
import type { Run } from '../../core/types.ts';
import { fileSource } from '../../node/files.ts';
import { collect, parseFloatFlag, parseIntFlag, parsePositiveFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { QRELS_HELP, qrelsPaths, readLayeredQrels } from '../qrels.ts';

interface FuseOpts {
  reference: string;
  candidate: string;
  method: string;
  ratio?: string;
  rrfK?: number;
  alpha?: number;
  depth: number;
  out?: string;
  name?: string;
}

/** "2:1" → [2, 1]. */
function parseRatio(value: string): [number, number] {
  const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(value);
  if (!m || (Number(m[1]) === 0 && Number(m[2]) === 0))
    throw new UsageError(`--ratio expects a:b with whole numbers, not both 0, got "${value}"`);
  return [Number(m[1]), Number(m[2])];
}

/** The fusion the flags ask for; a flag of another method is a usage error (it would be ignored silently). */
function fusionOf(opts: FuseOpts): FusionParams {
  const stray = (flag: string, given: unknown, method: string) => {
    if (given !== undefined) throw new UsageError(`${flag} applies to --method ${method}, not ${opts.method}`);
  };
  switch (opts.method) {
    case 'alternation':
      stray('--rrf-k', opts.rrfK, 'rrf');
      stray('--alpha', opts.alpha, 'combsum');
      return { method: 'alternation', ratio: opts.ratio === undefined ? [1, 1] : parseRatio(opts.ratio) };
    case 'rrf':
      stray('--ratio', opts.ratio, 'alternation');
      stray('--alpha', opts.alpha, 'combsum');
      return { method: 'rrf', c: opts.rrfK ?? 60 };
    case 'combsum':
      stray('--ratio', opts.ratio, 'alternation');
      stray('--rrf-k', opts.rrfK, 'rrf');
      return { method: 'combsum', alpha: opts.alpha ?? 0.5 };
    default:
      throw new UsageError(`--method expects alternation, rrf or combsum, got "${opts.method}"`);
  }
}

async function readRuns(io: Io, reference: string, candidate: string): Promise<[Run, Run]> {
  const ref = await parseRun(fileSource(reference), reference);
  const cand = await parseRun(fileSource(candidate), candidate);
  reportDiagnostics(io, [...ref.warnings, ...cand.warnings]);
  return [ref.value, cand.value];
}

interface FrontierOpts {
  reference: string;
  candidate: string;
  at: number;
  label: string;
  l: number;
  json?: boolean;
  qrels: string[];
}

function frontierTable(points: readonly FrontierPoint[], k: number, queries: number): string {
  const header = ['mix', 'budget', 'broken', 'fixed', 'net gain', 'note'];
  const rows = points.map((p) => [
    p.label,
    String(p.budget),
    String(p.broken),
    String(p.fixed),
    p.net_gain > 0 ? `+${p.net_gain}` : String(p.net_gain),
    [p.frontier ? 'frontier' : '', p.paper ? "paper's" : ''].filter(Boolean).join(', '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return (
    `Fusion frontier at k = ${k} (${queries} queries; broken, fixed and net gain against the reference; ` +
    `frontier: no other mix of budget k breaks fewer for as much net gain)\n` +
    [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') +
    '\n'
  );
}

export function registerFuse(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('fuse')
    .description('fuse a reference and a candidate run into one TREC run: alternation a:b, RRF with constant c, or CombSUM')
    .requiredOption('--reference <run>', 'the reference run')
    .requiredOption('--candidate <run>', 'the candidate run')
    .requiredOption('--method <method>', 'alternation, rrf or combsum')
    .option('--ratio <a:b>', 'alternation: a passages from the candidate, then b from the reference (default 1:1)')
    .option('--rrf-k <c>', 'rrf: the constant c in 1/(c + rank) (default 60)', parsePositiveFlag('--rrf-k'))
    .option('--alpha <a>', "combsum: the candidate's weight α in [0, 1] (default 0.5)", parseFloatFlag('--alpha', 0, 1))
    .option('--depth <n>', 'passages per query in the fused run', parseIntFlag('--depth', 1), 1000)
    .option('--name <tag>', 'run tag written in the 6th column (default: the method and its parameter)')
    .option('--out <file>', 'write the run here (default: standard output)')
    .action(async (opts: FuseOpts) => {
      const params = fusionOf(opts);
      const [reference, candidate] = await readRuns(io, opts.reference, opts.candidate);
      const tag = (opts.name ?? fusionLabel(params)).replace(/\s+/g, '_');
      const fused = fuseRuns(reference, candidate, params, opts.depth, tag);
      const text = [...formatRunLines(fused, tag)].join('');
      if (opts.out === undefined || opts.out === '-') io.stdout(text);
      else {
        try {
          writeFileSync(opts.out, text);
        } catch (e) {
          throw new UsageError(`cannot write ${opts.out}: ${(e as Error).message}`);
        }
        io.stderr(`wrote ${fused.byQuery.size} queries of ${fusionLabel(params)} to ${opts.out}\n`);
      }
    });

  program
    .command('frontier')
    .description('sweep fusions of a reference and a candidate at budget k: broken vs net gain, the Pareto frontier marked')
    .argument('[qrels]', 'TREC qrels or BEIR qrels TSV (or give them with --qrels)')
    .option('--qrels <file>', QRELS_HELP, collect, [])
    .requiredOption('--reference <run>', 'the reference run')
    .requiredOption('--candidate <run>', 'the candidate run')
    .option('--at <k>', 'the budget k (passages per query)', parseIntFlag('--at', 1), 10)
    .option('--label <label>', 'support label: any or strict', 'any')
    .option('-l <n>', 'minimum grade that counts as positive', parseIntFlag('-l', -1000000), 1)
    .option('--json', 'print the sweep as JSON')
    .action(async (qrelsArg: string | undefined, opts: FrontierOpts) => {
      if (opts.label !== 'any' && opts.label !== 'strict') throw new UsageError(`--label expects "any" or "strict", got "${opts.label}"`);
      const qrels = await readLayeredQrels(qrelsPaths(qrelsArg, opts.qrels));
      reportDiagnostics(io, qrels.warnings);
      const [reference, candidate] = await readRuns(io, opts.reference, opts.candidate);
      const frontier = fusionFrontier(qrels.value, reference, candidate, opts.at, { label: opts.label, relevanceLevel: opts.l });
      io.stdout(opts.json ? `${JSON.stringify(frontier, null, 2)}\n` : frontierTable(frontier.points, frontier.k, frontier.queries));
    });
}
