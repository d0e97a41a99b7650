/**
 * The page's own contracts: what the URL holds and the explorer's filter. The lab's plain-data contracts
 * (retrievers, progress, query details) live in src/lab/types.ts and the measure rows in src/report; both are
 * re-exported here so the views import one module.
 */
import type { FlipReport, PerQueryRow } from '../core/flips/analyze.ts';
import type { SupportLabel } from '../core/flips/cohort.ts';
import type { TransitionState } from '../core/flips/transitions.ts';

export type { FlipReport, PerQueryRow, SupportLabel, TransitionState };
export type {
  AnalysisView,
  AnseriniExplanation,
  Bm25Explanation,
  QlExplanation,
  TermExplanation,
  DetailLoader,
  ExplainLoader,
  ExpansionLoader,
  JobProgress,
  PassageLoader,
  QueryDetail,
  RankedDoc,
  RetrieverInfo,
  RetrieverKind,
  RetrieverStatus,
} from '../lab/types.ts';
export { LAB_MEASURES, type MetricsRow } from '../report/metrics.ts';

export type ExplorerFilter = TransitionState | 'all';

/** Everything the URL holds: the view, never the data. */
export interface ViewState {
  /** Collection id (catalog name like "beir:scifact", or a stored upload id). */
  readonly collection: string | null;
  readonly reference: string | null;
  readonly candidates: readonly string[];
  /** Depth the transition matrix and the explorer use. */
  readonly k: number;
  readonly depths: readonly number[];
  readonly label: SupportLabel;
  /** Minimum grade that counts as relevant (trec_eval's -l): 2 for TREC DL's "highly relevant" and up. */
  readonly level: number;
  /** Judged-only rankings: unjudged passages removed before any cut (trec_eval's -J). */
  readonly judgedOnly: boolean;
  /** Holes filled by a model's labels (people's grades win; the numbers say how many flips rest on them). */
  readonly modelLabels: boolean;
  /** One cohort across depths: the queries the reference supports at this depth (null: every judged query). */
  readonly cohortAt: number | null;
  /** Explorer filters. */
  readonly state: ExplorerFilter;
  /** Candidate the explorer compares with the reference (null: the first candidate). */
  readonly candidate: string | null;
  readonly text: string;
  readonly query: string | null;
}

export const DEFAULT_VIEW: ViewState = {
  collection: null,
  reference: null,
  candidates: [],
  k: 10,
  depths: [1, 5, 10, 20, 50],
  label: 'any',
  level: 1,
  judgedOnly: false,
  modelLabels: false,
  cohortAt: null,
  state: 'all',
  candidate: null,
  text: '',
  query: null,
};
