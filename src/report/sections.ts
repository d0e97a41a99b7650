/**
 * The content of a written report, independent of its format: sections of captioned tables built from a
 * FlipReport (the same columns and number formatting as `fliplab flips`' terminal tables), trec_eval
 * measures and the caller's plots. markdown.ts and html.ts only render this, so both formats show the
 * same cells.
 */
import type { AnswerFlipReport } from '../core/answers/flips.ts';
import { countOf, formatCount } from '../core/count.ts';
import {
  familyLine,
  geoRiskTables,
  powerTables,
  significanceNotes,
  significanceTables,
  type SignificanceTable,
} from '../core/stats/format.ts';
import type { SignificanceReport, SignificanceRow } from '../core/stats/significance.ts';
import { answerRate } from './answers.ts';
import { LAB_MEASURES, measureLabel, type MetricsRow } from './metrics.ts';
import type { FlipReport } from '../core/flips/analyze.ts';
import { hybridRows, pairedRows, strataRows, transitionRows, type TableRows } from '../core/flips/format.ts';
import { measure } from './numbers.ts';
import type { AgreementReport } from '../core/agreement/compare.ts';
import type { DepthWarning } from '../core/depth.ts';
import { agreementSections } from './agreement.ts';
import type { Section, Table } from './document.ts';

/** A plot: inline SVG for HTML, a file name for Markdown (the caller writes the SVG/PNG file next to it). */
export interface ReportPlot {
  readonly title: string;
  readonly svg: string;
  readonly file: string;
}

export interface ReportInput {
  readonly title: string;
  /** Collection name (e.g. "BEIR SciFact (test)"). */
  readonly collection: string;
  /** Shown as given (e.g. "2025-01-31"); never read from a clock here, so reports are reproducible. */
  readonly date: string;
  /** The flip analysis; absent for a collection without judgments, whose report is `agreement`. */
  readonly report?: FlipReport;
  /** Overlap@k / RBO@k with the reference: the report of a collection without judgments (per-query values optional). */
  readonly agreement?: AgreementReport;
  /** Depths a run or the corpus cannot reach (core/depth.ts): said in the report as the CLI says them. */
  readonly depthWarnings?: readonly DepthWarning[];
  /** trec_eval measures per run; the table is left out when absent or empty. */
  readonly metrics?: readonly MetricsRow[];
  /** Measure columns and their labels (default: the lab's LAB_MEASURES). */
  readonly measures?: readonly { readonly key: string; readonly label: string }[];
  /** Optional one-line description per run name (model, parameters, file). */
  readonly descriptions?: Readonly<Record<string, string>>;
  readonly plots?: readonly ReportPlot[];
  /** Answer-level flips (Table 9), when the lab has them. */
  readonly answers?: AnswerFlipReport;
  /** Paired tests of the measures (`flips --significance`, the lab's table), when computed. */
  readonly significance?: SignificanceReport;
  /** When a model's labels fill the holes: whose, how many, and the audit sentence (null: unaudited). */
  readonly modelLabels?: { readonly judge: string; readonly labels: number; readonly audit: string | null };
  /** The queries were made from the documents: what made them (core/judging/synthetic.ts provenanceSentence). */
  readonly synthetic?: string;
}

/** Columns from `firstNumeric` on are numeric unless `numeric` says otherwise. */
const table = (
  caption: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  firstNumeric = 1,
  numeric?: boolean[],
): Table => ({
  caption,
  header,
  rows,
  numeric: numeric ?? header.map((_, i) => i >= firstNumeric),
});

/** A table of the core's flip-report rows (the same rows `fliplab flips` prints). */
const fromRows = (caption: string, t: TableRows, firstNumeric = 1): Table => table(caption, t.header, t.rows, firstNumeric);

/** A measure's value under its key, or under trec_eval's printed name ("ndcg_cut.10" → "ndcg_cut_10"). */
function measureValue(row: MetricsRow, key: string): number | undefined {
  return row.values[key] ?? row.values[key.replace(/\.(?=[^.]*$)/, '_')];
}

export function buildSections(input: ReportInput): Section[] {
  const r = input.report;
  if (r === undefined) {
    if (input.agreement === undefined) throw new RangeError('a report needs a flip analysis or an agreement report');
    return agreementSections(input.agreement, input.depthWarnings, input.descriptions);
  }
  const sections: Section[] = [];
  const ref = r.runs.find((x) => x.role === 'reference');
  if (!ref) throw new RangeError('the flip report names no reference run');

  sections.push({
    id: 'retrievers',
    heading: 'Retrievers',
    notes: [
      `Reference "${ref.name}" against ${countOf(r.runs.length - 1, 'candidate')} on ${countOf(r.queries, 'query')} ` +
        `with a positive judgment (grade ≥ ${r.relevance_level}); support label "${r.label}"; depths ${r.depth_list.join(', ')}` +
        (r.judged_only ? '; judged passages only (trec_eval -J: unjudged passages removed before any cut)' : '') +
        (r.cohort_at === null
          ? '.'
          : `; one cohort at every depth: the ${countOf(r.queries, 'query')} the reference supports at k = ${r.cohort_at}.`),
      'A query missing from a run is unsupported by that run (counted, never dropped).',
      ...(input.synthetic === undefined
        ? []
        : [`${input.modelLabels === undefined ? 'Synthetic queries.' : 'Synthetic queries, model judgments.'} ${input.synthetic}`]),
      ...(input.modelLabels === undefined
        ? []
        : [
            `Holes filled by model labels: ${countOf(input.modelLabels.labels, 'label')} from ${input.modelLabels.judge}, under ` +
              "people's judgments (a person's grade always wins); the transition tables count the flips that rest on them. " +
              (input.modelLabels.audit ?? 'The labels are unaudited: no pair people judged was re-judged.'),
          ]),
    ],
    tables: [
      table(
        'Runs',
        ['run', 'role', 'missing queries', 'description'],
        r.runs.map((run) => [run.name, run.role, `${run.missing_queries}`, input.descriptions?.[run.name] ?? '']),
        1,
        [false, false, true, false],
      ),
    ],
  });

  const metrics = input.metrics ?? [];
  if (metrics.length > 0) {
    const measures = input.measures ?? LAB_MEASURES;
    // The release is the one each row was computed with, never assumed: rows of one release (the lab and the
    // CLI make them so) name it once; rows of several name theirs after the run.
    const releases = [...new Set(metrics.map((m) => m.trecEval))];
    const mixed = releases.length > 1;
    const release = mixed
      ? `trec_eval ${releases.join(' and ')} values (each run's release after its name)`
      : `trec_eval ${releases[0]} values`;
    sections.push({
      id: 'measures',
      heading: 'TREC measures',
      notes: [`${release} (averaged over the judged queries each run answers, as trec_eval without -c).`],
      tables: [
        table(
          'Measures per run',
          ['run', ...measures.map((m) => m.label)],
          metrics.map((m) => [
            `${m.run}${mixed ? ` [trec_eval ${m.trecEval}]` : ''}${m.partial ? ' (partial)' : ''}`,
            ...measures.map((ms) => {
              const v = measureValue(m, ms.key);
              return v === undefined ? '–' : measure(v);
            }),
          ]),
        ),
      ],
    });
  }

  if (input.significance !== undefined) sections.push(significanceSection(input.significance, input.measures ?? LAB_MEASURES));

  sections.push({
    id: 'transitions',
    heading: 'Query-level transitions',
    notes: [
      'Fix rate = fixed / reference failures; negative-flip rate = broken / reference-supported; compatibility = preserved / ' +
        'reference-supported (95% Wilson intervals). Net gain = fixed − broken (95% Wald interval).',
      ...(input.depthWarnings ?? []).map((w) => `Warning: ${w.message}.`),
    ],
    tables: r.depths.map((d) => fromRows(`k = ${d.k}: reference supports ${d.reference.supported} of ${r.queries}`, transitionRows(d))),
  });
  if (input.agreement) sections.push(...agreementSections(input.agreement, input.depthWarnings, input.descriptions).slice(1));

  if (input.answers) {
    const a = input.answers;
    sections.push({
      id: 'answers',
      heading: 'Answer-level flips',
      notes: [
        `At k = ${a.k} against ${a.reference} (supporting ${formatCount(a.referenceSupported)} of ${countOf(a.queries, 'query')}): ` +
          'every negative flip with a ' +
          `gold answer and a same-size control sample of both-supported queries (${a.prng}, seed ${a.seed}). An answer regression is ` +
          `correct from the reference's passages and incorrect from the candidate's. Counts, denominators, 95% Wilson intervals.`,
      ],
      tables: [
        table(
          'Answer regressions',
          [
            'candidate',
            'flip set',
            'controls',
            'regressions among flips',
            'in control',
            'flips wrong from reference',
            'correct → wrong',
            'share of supported',
          ],
          a.candidates.map((c) => [
            c.name,
            `${c.flips}`,
            `${c.control}`,
            answerRate(c.regressionsAmongFlips),
            answerRate(c.regressionsInControl),
            answerRate(c.flipsIncorrectFromReference),
            answerRate(c.becameIncorrect),
            answerRate(c.shareOfReferenceSupported),
          ]),
        ),
      ],
    });
  }

  sections.push({
    id: 'hybrids',
    heading: 'Fixed-budget hybrids',
    notes: ['Broken / fixed / net gain against the reference; alternation and RRF return k passages, the union up to 2k.'],
    tables: [fromRows('Hybrids', hybridRows(r), 2)],
  });

  sections.push({
    id: 'strata',
    heading: "Negative flips by the reference's supporting rank",
    notes: [
      `Reference-supported queries grouped by the rank at which the reference supports them ` +
        `(${r.label === 'strict' ? 'last' : 'first'} positive).`,
    ],
    tables: [fromRows('Strata', strataRows(r))],
  });

  sections.push({
    id: 'paired',
    heading: 'Paired tests',
    notes:
      r.paired.length > 0
        ? [
            'Negative flips on reference-supported queries: only A = broken by A and preserved by B. Exact McNemar; Holm ' +
              'across the depths of each pair.',
          ]
        : ['One candidate: there is no pair to test.'],
    tables: r.paired.length > 0 ? [fromRows('Paired negative flips', pairedRows(r), 3)] : [],
  });
  return sections;
}

/** Adjusted p columns of a significance table (header "p adj."): a dagger marks p < 0.05, as ranx marks its tables. */
const ADJUSTED = 'p adj.';

/**
 * The paired tests of the measures: per measure, the tests table and the rank tests and power table, adjusted p
 * below 0.05 marked †; the rows' notes; GeoRisk when computed.
 */
function significanceSection(report: SignificanceReport, measures: readonly { readonly key: string; readonly label: string }[]): Section {
  /** The table with each "p adj." cell marked † below 0.05; `adjusted` gives a row's adjusted p, column by column. */
  const marked = (t: SignificanceTable, title: string, adjusted: (row: SignificanceRow) => readonly (number | null)[]) => {
    const columns = t.header.flatMap((h, i) => (h === ADJUSTED ? [i] : []));
    const byCandidate = new Map(report.rows.filter((r) => r.measure === t.measure).map((r) => [r.candidate, r]));
    const rows = t.rows.map((cells) => {
      const p = adjusted(byCandidate.get(cells[0]!)!);
      return cells.map((c, i) => {
        const which = columns.indexOf(i);
        return which >= 0 && p[which] !== null && p[which]! < 0.05 ? `${c} †` : c;
      });
    });
    return table(title, t.header, rows);
  };
  const power = powerTables(report);
  const { level, alpha } = report.family.power;
  return {
    id: 'significance',
    heading: 'Is the difference real?',
    notes: [
      `Each candidate against ${report.reference}, paired over the queries both are evaluated on: mean difference with its ` +
        '95% percentile bootstrap interval, paired t-test, sign-flip randomization test, Wilcoxon signed-rank and sign tests, ' +
        'effect size d_z = mean/sd of the differences, wins/ties/losses, TRisk (losses weigh 1 + α); the power of the ' +
        `paired t-test (α = ${alpha}) at the observed difference, the smallest difference found with ${Math.round(level * 100)}% ` +
        'power at these queries (MDE), and the queries needed for a given difference. ' +
        `Family: ${familyLine(report)}. † adjusted p < 0.05.`,
      ...significanceNotes(report),
    ],
    tables: [
      ...significanceTables(report).flatMap((t, i) => {
        const label = measureLabel(t.measure, measures);
        return [
          marked(t, `${label}: candidates against ${report.reference}`, (r) => [r.p_t_adjusted, r.p_randomization_adjusted]),
          marked(power[i]!, `${label}: rank tests and power`, (r) => [r.p_wilcoxon_adjusted, r.p_sign_adjusted]),
        ];
      }),
      ...geoRiskTables(report).map((t) => {
        const g = report.georisk![t.measure]!;
        return table(
          `${measureLabel(t.measure, measures)}: GeoRisk over ${g.queries_kept} queries (${g.queries_dropped} left out)`,
          t.header,
          t.rows,
        );
      }),
    ],
  };
}
