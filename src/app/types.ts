/**
 * Contracts between the lab's parts: the state/worker layer (src/app/state, workers/lab.worker.ts), the
 * data layer (src/app/data), the views (src/app/views) and the exports (src/report). Plain data only, so
 * every value here can cross a worker boundary (structured clone) and be written to JSON.
 */
import type { FlipReport, PerQueryRow } from '../core/flips/analyze.ts';
import type { SupportLabel } from '../core/flips/cohort.ts';
import type { TransitionState } from '../core/flips/transitions.ts';

export type { FlipReport, PerQueryRow, SupportLabel, TransitionState };

export type RetrieverKind = 'bm25' | 'dense' | 'sparse' | 'imported';
export type RetrieverStatus = 'idle' | 'loading' | 'encoding' | 'searching' | 'ready' | 'error' | 'cancelled';

export interface JobProgress {
  readonly done: number;
  readonly total: number;
  /** Items found in a cache (nothing to compute). */
  readonly cached: number;
  /** Estimated milliseconds left; null until there is a rate to extrapolate. */
  readonly etaMs: number | null;
  readonly unit: 'documents' | 'queries' | 'bytes';
}

/** One retriever as the retrievers panel shows it. */
export interface RetrieverInfo {
  /** Stable id used in URLs (e.g. "bm25", "bm25-k1=1.2-b=0.65", "bge-large", "run:myrun.trec"). */
  readonly id: string;
  /** Run name used in reports and exports. */
  readonly name: string;
  readonly kind: RetrieverKind;
  readonly status: RetrieverStatus;
  /** Device the model runs on, and why it differs from the one asked for (null when it does not). */
  readonly device?: 'webgpu' | 'wasm' | 'cpu';
  readonly deviceReason?: string | null;
  readonly dtype?: string;
  readonly progress?: JobProgress;
  /** True when every vector came from the cache. */
  readonly cached?: boolean;
  /** The run covers only the documents encoded so far. */
  readonly partial?: { readonly encodedDocs: number; readonly totalDocs: number };
  readonly error?: string;
}

/** trec_eval measure values of one run (keys are trec_eval names: "recip_rank_cut.10", "ndcg_cut.10", ...). */
export interface MetricsRow {
  readonly run: string;
  readonly partial: boolean;
  readonly values: Readonly<Record<string, number>>;
}

/** The measures shown next to the flip numbers, in display order, with their labels. */
export const LAB_MEASURES: readonly { readonly key: string; readonly label: string }[] = [
  { key: 'recip_rank_cut.10', label: 'MRR@10' },
  { key: 'ndcg_cut.10', label: 'nDCG@10' },
  { key: 'ncg_cut.100', label: 'NCG@100' },
  { key: 'recall.10', label: 'R@10' },
  { key: 'recall.100', label: 'R@100' },
  { key: 'map', label: 'MAP' },
];

/** What the analysis views render. */
export interface AnalysisView {
  readonly report: FlipReport;
  /** Candidate names whose runs are partial (encoding still running). */
  readonly partial: readonly string[];
  readonly metrics: readonly MetricsRow[];
}

/** One ranked document for the explorer's side-by-side lists. */
export interface RankedDoc {
  readonly docId: string;
  readonly rank: number;
  readonly score: number;
  readonly title: string;
  /** Judged grade, null when unjudged. */
  readonly grade: number | null;
}

export interface QueryDetail {
  readonly qid: string;
  readonly text: string;
  readonly judged: readonly { readonly docId: string; readonly grade: number }[];
  readonly lists: readonly { readonly run: string; readonly docs: readonly RankedDoc[]; readonly firstRelevant: number | null }[];
}

/** Loads the top-k of the named runs for one query (from the lab worker). */
export type DetailLoader = (qid: string, runs: readonly string[], k: number) => Promise<QueryDetail>;
/** Loads one passage's text on demand (never rendered as HTML). */
export type PassageLoader = (docId: string) => Promise<{ readonly title: string; readonly text: string }>;

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
  state: 'all',
  candidate: null,
  text: '',
  query: null,
};
