/**
 * The paper's BM25 parameters and names: k1, b and precision with their ranges and defaults, the RAGFlip
 * variants, run names, the depth and tf limits, and idf. What every other BM25 file builds on (the module
 * comment of `bm25.ts` gives the formula and the choices).
 */

/** How the per-document score is accumulated; see the module comment. */
export type Bm25Precision = 'float32' | 'float64';

/**
 * BM25 free parameters (named and ranged like bm25s `bm25s/scoring.py` and minisearch `BM25Params`).
 */
export interface Bm25Params {
  /**
   * Term-frequency saturation, k1 ∈ [0, ∞). 0 ignores tf (binary model); larger values let repeated
   * terms keep adding. Usual range 1.2–2.0. Default 1.5 (RAGFlip reference; the paper's "BM25-k1"
   * variant uses 1.2).
   */
  readonly k1: number;
  /**
   * Length normalisation, b ∈ [0, 1]. 0 ignores document length, 1 normalises fully by dl/avgdl.
   * Default 0.75 (RAGFlip reference; the paper's "BM25-b" variant uses 0.65).
   */
  readonly b: number;
  /** Score accumulation. Default 'float32' (reproduces the reference rankings); see the module comment. */
  readonly precision: Bm25Precision;
}

/**
 * Named parameter sets after the RAGFlip paper (§3 and Appendix A.5, Table 17): the reference and its two
 * one-parameter variants. `buildBm25Index(corpus, BM25_VARIANTS['ragflip-k1'])`.
 */
export const BM25_VARIANTS = {
  /** The paper's reference BM25: k1 = 1.5, b = 0.75. */
  ragflip: { k1: 1.5, b: 0.75, precision: 'float32' },
  /** The paper's "BM25-k1": k1 = 1.2, b = 0.75. */
  'ragflip-k1': { k1: 1.2, b: 0.75, precision: 'float32' },
  /** The paper's "BM25-b": k1 = 1.5, b = 0.65. */
  'ragflip-b': { k1: 1.5, b: 0.65, precision: 'float32' },
} as const satisfies Record<string, Bm25Params>;

export const DEFAULT_BM25_PARAMS: Bm25Params = BM25_VARIANTS.ragflip;

/** The run name of the paper's BM25. */
export const BM25_RUN_NAME = 'bm25';

/**
 * The one way a BM25 run is named, in the CLI, the lab, its URLs and every export: "bm25" for the paper's
 * settings, "bm25-k1=1.2-b=0.75" otherwise (both parameters, so any two settings have different names).
 */
export function bm25RunName(params: { readonly k1: number; readonly b: number }): string {
  return params.k1 === DEFAULT_BM25_PARAMS.k1 && params.b === DEFAULT_BM25_PARAMS.b ? BM25_RUN_NAME : `bm25-k1=${params.k1}-b=${params.b}`;
}

/** The parameters behind a name made by `bm25RunName`; null for any other name. */
export function parseBm25RunName(name: string): { k1: number; b: number } | null {
  if (name === BM25_RUN_NAME) return { k1: DEFAULT_BM25_PARAMS.k1, b: DEFAULT_BM25_PARAMS.b };
  const m = /^bm25-k1=(\d+(?:\.\d+)?)-b=(\d+(?:\.\d+)?)$/.exec(name);
  if (!m) return null;
  const params = { k1: Number(m[1]), b: Number(m[2]) };
  return params.b <= 1 && bm25RunName(params) === name ? params : null;
}

/** The paper's retrieval depth: every ranking is computed once at 50 and truncated. */
export const BM25_DEFAULT_DEPTH = 50;
/** The deepest ranking `searchBm25` returns (bounds the reusable top-k heap). */
export const BM25_MAX_DEPTH = 1000;
/** The reference caps term frequency at 65,535 (`min(freq, 65535)`). */
export const BM25_MAX_TF = 65535;

/** idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) in float64 (the reference rounds it to float32 after). */
export function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** Complete and check parameters; throws RangeError on values outside the documented ranges. */
export function resolveBm25Params(params: Partial<Bm25Params> = {}): Bm25Params {
  const k1 = params.k1 ?? DEFAULT_BM25_PARAMS.k1;
  const b = params.b ?? DEFAULT_BM25_PARAMS.b;
  const precision = params.precision ?? DEFAULT_BM25_PARAMS.precision;
  if (!Number.isFinite(k1) || k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${k1}`);
  if (!Number.isFinite(b) || b < 0 || b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${b}`);
  if (precision !== 'float32' && precision !== 'float64') {
    throw new RangeError(`BM25 precision must be 'float32' or 'float64', got ${String(precision)}`);
  }
  return { k1, b, precision };
}
