/**
 * The analysis in one sentence per candidate, in plain words: the lab's headline (the top of the page) and
 * `fliplab demo`'s first lines, from this one function so both say the same words:
 * "Replacing bm25 by bm25-rm3 at k = 10 fixes 184 and breaks 28 of 648 queries (net +156); nDCG@10 0.254 → 0.421."
 * The query count is the whole cohort (every judged query), so the sentence never needs a second base.
 * When holes in the judgments could explain some broken queries, a second sentence says how many and gives the
 * negative-flip rate's range: "19 of the 28 broken have unjudged passages in bm25-rm3's top 10: negative-flip
 * rate 2.1–6.8%." (the lower end counts only broken queries whose candidate top k is fully judged). With a model
 * layer filling the holes, a third says how many flips rest on the model's labels (`modelLabelsSentence`).
 */
import type { FlipReport } from '../core/flips/analyze.ts';
import type { Qrels } from '../core/types.ts';
import type { MetricsRow } from './metrics.ts';
import { countOf, formatCount, formatSigned } from './numbers.ts';

export interface HeadlineSentence {
  readonly candidate: string;
  readonly text: string;
}

const measure = (rows: readonly MetricsRow[], run: string): number | undefined => rows.find((r) => r.run === run)?.values['ndcg_cut.10'];

const percent = (v: number): string => `${(100 * v).toFixed(1)}%`;

/**
 * Whether the qrels judge any passage non-relevant (grade ≤ 0). When none does (most BEIR sets judge only
 * relevant passages) every other passage is unjudged, so the holes sentence would always say "all": the lab
 * and `fliplab demo` leave it out then.
 */
export function judgesNonRelevant(qrels: Qrels): boolean {
  for (const judged of qrels.byQuery.values()) for (const g of judged.values()) if (g <= 0) return true;
  return false;
}

/** The holes sentence of one candidate row, or '' when no broken query has an unjudged passage in its top k. */
export function holesSentence(c: FlipReport['depths'][number]['candidates'][number], k: number): string {
  if (c.broken === 0 || c.broken_with_unjudged === 0) return '';
  const high = c.negative_flip_rate.value;
  const low = c.negative_flip_rate_low;
  const range = high !== null && low !== null ? `: negative-flip rate ${percent(low)}–${percent(high)}` : '';
  const all = c.broken_with_unjudged === c.broken;
  return (
    ` ${all ? `All ${formatCount(c.broken)}` : `${formatCount(c.broken_with_unjudged)} of the ${formatCount(c.broken)}`} broken ` +
    `${c.broken_with_unjudged === 1 && !all ? 'has' : 'have'} unjudged passages in ${c.name}'s top ${k}${range}.`
  );
}

/**
 * The model-labels sentence of one candidate row: "9 of the 14 broken queries rest on model labels; 2 of the 5
 * fixed." — '' when the analysis has no model layer or no flip rests on it.
 */
export function modelLabelsSentence(c: FlipReport['depths'][number]['candidates'][number]): string {
  const broken = c.broken_on_model_labels;
  const fixed = c.fixed_on_model_labels;
  if (broken === undefined || fixed === undefined || broken + fixed === 0) return '';
  const of = (n: number, total: number, what: string) =>
    n === total ? `all ${formatCount(total)} ${what}` : `${formatCount(n)} of the ${formatCount(total)} ${what}`;
  const parts = [
    ...(broken > 0 ? [of(broken, c.broken, c.broken === 1 ? 'broken query' : 'broken queries')] : []),
    ...(fixed > 0 ? [of(fixed, c.fixed, c.fixed === 1 ? 'fixed query' : 'fixed queries')] : []),
  ];
  const sentence = `${parts.join(' and ')} rest${broken + fixed === 1 && parts.length === 1 ? 's' : ''} on model labels.`;
  return ` ${sentence[0]!.toUpperCase()}${sentence.slice(1)}`;
}

/**
 * One sentence per candidate at depth `k` (the report's first depth when it has no block for k), with
 * nDCG@10 before → after when `metrics` has both runs. `holes: false` leaves the holes sentence out (see
 * `judgesNonRelevant`).
 */
export function headlineSentences(
  report: FlipReport,
  k: number,
  metrics: readonly MetricsRow[],
  options: { holes?: boolean } = {},
): HeadlineSentence[] {
  const block = report.depths.find((d) => d.k === k) ?? report.depths[0];
  if (!block) return [];
  const reference = block.reference.name;
  const before = measure(metrics, reference);
  return block.candidates.map((c) => {
    const after = measure(metrics, c.name);
    const ndcg = before !== undefined && after !== undefined ? `; nDCG@10 ${before.toFixed(3)} → ${after.toFixed(3)}` : '';
    const text =
      `Replacing ${reference} by ${c.name} at k = ${block.k} fixes ${formatCount(c.fixed)} and breaks ${formatCount(c.broken)} ` +
      `of ${countOf(report.queries, 'query')} (net ${formatSigned(c.fixed - c.broken)})${ndcg}.` +
      (options.holes === false ? '' : holesSentence(c, block.k)) +
      modelLabelsSentence(c);
    return { candidate: c.name, text };
  });
}
