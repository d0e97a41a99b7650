/**
 * Contracts between the headless lab (the lab worker, src/lab) and whoever drives it (the page's state and
 * views in src/app). Plain data only, so every value here can cross a worker boundary (structured clone)
 * and be written to JSON.
 */
import type { FlipReport } from '../core/flips/analyze.ts';
import type { QlExplanation as CoreQlExplanation } from '../core/retrieve/ql.ts';
import type { AnseriniFields } from '../core/retrieve/bm25-anserini-params.ts';
import type { Bm25ScoreExplanation } from '../core/retrieve/bm25-explain.ts';
import type { MetricsRow } from '../report/metrics.ts';
import type { SignificanceReport } from '../core/stats/significance.ts';
import type { Estimate } from '../core/stats/wilson.ts';
import type { RuntimeFacts } from './encode-types.ts';
import type { Failure, Problem } from './problems.ts';
import type { Recipe } from '../report/recipe.ts';

export type RetrieverKind = 'bm25' | 'lexical' | 'dense' | 'sparse' | 'imported';
/**
 * An encoder's phases are its job's own (never guessed from counts): `checking` — looking this browser's cache
 * up, nothing found so far; `restoring` — reading vectors found there (no model involved); `loading` — loading
 * the model (downloading its files when not in this browser); `encoding` — the model encodes what the cache
 * lacks; `elsewhere` — another tab of this browser encodes the same run, and its vectors are taken as they land;
 * `agreement` — the path (device, dtype) is checked against the reference, WASM fp32, on a sample before it encodes.
 * `confirm` holds a large download for the user's go-ahead.
 */
export type RetrieverStatus =
  | 'idle'
  | 'confirm'
  | 'checking'
  | 'loading'
  | 'agreement'
  | 'restoring'
  | 'elsewhere'
  | 'encoding'
  | 'searching'
  | 'ready'
  | 'error'
  | 'cancelled';

/** Another device, measured on a batch of the job, and the projections on both. */
export interface DeviceOffer {
  readonly device: 'wasm' | 'webgpu';
  readonly speedup: number;
  readonly etaMs: number;
  readonly currentEtaMs: number;
}

/** A model download: its files (size, cached or not, bytes so far), before and while they are fetched. */
export interface DownloadState {
  readonly files: readonly { readonly path: string; readonly bytes: number | null; readonly cached: boolean; readonly loaded: number }[];
  /** Bytes to fetch (files not cached) and bytes already in this browser. */
  readonly downloadBytes: number;
  readonly cachedBytes: number;
  readonly loaded: number;
  readonly etaMs: number | null;
  /** Where the sizes come from: the host's file metadata, or the preset table (the host gave none). */
  readonly sizesFrom: 'host' | 'preset table';
  /** The reference's files (fp32 weights on WASM), which the agreement check loads before the path asked for. */
  readonly purpose?: 'reference';
}

export interface JobProgress {
  readonly done: number;
  readonly total: number;
  /** Items found in a cache (nothing to compute). */
  readonly cached: number;
  /** Estimated milliseconds left; null until there is a rate to extrapolate. */
  readonly etaMs: number | null;
  readonly unit: 'documents' | 'queries' | 'bytes';
  /** Items looked up in the cache so far (an encoder job's lookup). */
  readonly checked?: number;
  /** Items computed per second so far (an encoder: since encoding started); null until known. */
  readonly perSecond?: number | null;
  /** An encoder job: batches split because the device ran out of memory (absent: none). */
  readonly oomRetries?: number;
  /** An encoder job on WebGPU: the tensor whose size, against the device's buffer limits, sized the batches. */
  readonly planBoundBy?: string;
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
  readonly device?: 'webgpu' | 'wasm' | 'cpu' | 'cache';
  readonly deviceReason?: string | null;
  /** The WebGPU adapter used, by vendor and architecture ("google swiftshader"). */
  readonly adapter?: string;
  /** The runtime the model ran on: ONNX Runtime and transformers.js versions, wasm threads. */
  readonly runtime?: RuntimeFacts;
  /** The path's agreement with the reference (WASM fp32) on a sample, in words, when it was checked (or why not). */
  readonly agreement?: string;
  /**
   * After a failure the row offers a path to go on with: `reference` (WASM, fp32 weights) after a disagreement or
   * a NaN, `wasm` (same weights) after WebGPU failed. Never taken without the user.
   */
  readonly offerPath?: 'wasm' | 'reference' | null;
  readonly dtype?: string;
  readonly progress?: JobProgress;
  /** Another device measured at least twice as fast on this job (a calibration batch), and its projection. */
  readonly offer?: DeviceOffer | null;
  /** The model's files: what will be (or is being) downloaded, and what this browser has already. */
  readonly download?: DownloadState;
  /** True when every vector came from the cache. */
  readonly cached?: boolean;
  /** The run covers only the documents encoded so far. */
  readonly partial?: { readonly encodedDocs: number; readonly totalDocs: number };
  readonly error?: string;
  /** A remembered local model folder needs the user's permission again (the row offers the one click). */
  readonly folderAccess?: boolean;
  /** For a failed download or model load: what kind of network problem it was (what to advise). */
  readonly problem?: Problem;
  /** What failed, when the page acts on it (the model did not load: a pack cannot be completed). */
  readonly failure?: Failure;
  /** What produced the run (parameters, model, device, file): shown on screen and written into exports. */
  readonly recipe?: Recipe;
}

/** What the analysis views render. */
export interface AnalysisView {
  readonly report: FlipReport;
  /** Candidate names whose runs are partial (encoding still running). */
  readonly partial: readonly string[];
  readonly metrics: readonly MetricsRow[];
  /** Paired tests of the measures (null while computed; absent where the view has none). */
  readonly significance?: SignificanceReport | null;
}

/** One ranked document for the explorer's side-by-side lists. */
export interface RankedDoc {
  readonly docId: string;
  readonly rank: number;
  readonly score: number;
  readonly title: string;
  /** Judged grade, null when unjudged. */
  readonly grade: number | null;
  /** The grade is one the user added (the judgments layer), not the collection's. */
  readonly added?: boolean;
  /** The grade is a model judge's label, filling a hole (only while the numbers read model labels). */
  readonly model?: boolean;
}

export interface QueryDetail {
  readonly qid: string;
  readonly text: string;
  readonly judged: readonly { readonly docId: string; readonly grade: number }[];
  readonly lists: readonly { readonly run: string; readonly docs: readonly RankedDoc[]; readonly firstRelevant: number | null }[];
}

/**
 * Why BM25 found a document: per distinct query term, the core's rows (core/retrieve/bm25-explain.ts, the
 * rows both BM25 scorers explain with; see the lab explorer's explainBm25, src/worker/engine/explorer.ts).
 */
export interface Bm25Explanation extends Bm25ScoreExplanation {
  readonly kind: 'bm25';
  readonly run: string;
}

/**
 * Why query likelihood (Dirichlet μ) found a document: each distinct query term's log-probability share, and
 * the length term; they sum to the run's score (see the lab explorer's explainQl and core/retrieve/ql.ts explainQl).
 */
export interface QlExplanation extends CoreQlExplanation {
  readonly kind: 'ql';
  readonly run: string;
}

/**
 * Why BM25 as Anserini runs it (Lucene's BM25Similarity, core/retrieve/bm25-anserini.ts) found a document: one
 * row per clause of the Lucene query, i.e. per distinct analyzed query term and field ("title:term" for the title
 * field of the multifield documents). `weight` is Lucene's float score of the clause (its count in the query
 * included); `total` is the document's Lucene score, the rows' sum rounded to float, before Anserini's tie
 * adjustment (scores rounded to 4 decimals, ties lowered by 10⁻⁶) that the run's scores went through.
 */
export interface AnseriniExplanation extends Omit<Bm25Explanation, 'kind'> {
  readonly kind: 'anserini';
  /** flat: title + text in one field; multifield: title and text as two fields. */
  readonly fields: AnseriniFields;
}

/** A per-term explanation of one run's score for one query and document (the retrievers that have one). */
export type TermExplanation = Bm25Explanation | AnseriniExplanation | QlExplanation;

/** Explains a BM25, BM25 (Anserini) or query-likelihood run's score for one query and document; null for other runs. */
export type ExplainLoader = (qid: string, docId: string, run: string) => Promise<TermExplanation | null>;

/** What an RM3 run searched for one query (token order; see core/retrieve/rm3.ts); null for other runs. */
export type ExpansionLoader = (
  qid: string,
  run: string,
) => Promise<{ readonly terms: readonly string[]; readonly weights: readonly number[] } | null>;

/** Loads the top-k of the named runs for one query (from the lab worker). */
export type DetailLoader = (qid: string, runs: readonly string[], k: number) => Promise<QueryDetail>;
/** Loads one passage's text on demand (never rendered as HTML). */
export type PassageLoader = (docId: string) => Promise<{ readonly title: string; readonly text: string }>;

/**
 * A whole track against the reference (the lab's track table): the tests of one measure for every run
 * (`fliplab significance -m <measure> --tukey`'s shape) and each run's flips at each depth.
 */
export interface TrackReport {
  /** trec_eval's name of the measure ("ndcg_cut_10"). */
  readonly measure: string;
  readonly significance: SignificanceReport;
  readonly flips: readonly {
    readonly run: string;
    readonly depths: readonly {
      readonly k: number;
      readonly broken: number;
      readonly fixed: number;
      readonly negative_flip_rate: Estimate;
    }[];
  }[];
}
