/**
 * The headline's lines for the page: the sentences themselves are src/report/headline.ts's (shared with
 * `fliplab demo`, so both say the same words); the page adds how much of a candidate's corpus is encoded
 * while it still encodes.
 */
import type { FlipReport, MetricsRow } from '../../types.ts';
import { headlineSentences, type HeadlineSentence } from '../../../report/headline.ts';
import { partialPassages } from '../shell/progress.ts';

export { holesSentence } from '../../../report/headline.ts';

export interface HeadlineLine extends HeadlineSentence {
  /** "570 of 5,183 passages" when the candidate is still encoding. */
  readonly partial: string | null;
}

type Progress = Readonly<Record<string, { readonly encodedDocs: number; readonly totalDocs: number }>>;

/** `headlineSentences` with each candidate's encoding progress (see src/report/headline.ts for `holes`). */
export function headlineLines(
  report: FlipReport,
  k: number,
  metrics: readonly MetricsRow[],
  partial: Progress = {},
  options: { holes?: boolean } = {},
): HeadlineLine[] {
  return headlineSentences(report, k, metrics, options).map((line) => {
    const p = partial[line.candidate];
    return { ...line, partial: p ? partialPassages(p) : null };
  });
}
