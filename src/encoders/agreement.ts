/**
 * Never trust a device (or a dtype) that disagrees. Before a long encode on anything other than the reference
 * path — WASM (ONNX Runtime's CPU kernels) with fp32 weights — the encode worker encodes a small sample of the
 * collection, queries and passages, on both paths and compares them here: per text the cosine of the two
 * vectors, and per sample query the overlap of its top k passages (k = 10, or half the sample when it is
 * smaller) ranked over the sample's passages with each path's vectors, as the lab's search ranks them (inner
 * product, ties to the lower index). A path below the thresholds of its dtype does not start; a non-finite value
 * on either side is a failure whatever the numbers. Pure: vectors in, numbers and words out.
 *
 * Thresholds (DESIGN.md, "Encoders", says why): a sound path differs from the reference only by rounding —
 * fp32 kernels by summation order (~1e-6), fp16 weights by 2⁻¹¹ relative, int8 by its per-tensor step — while
 * the broken kernels reported in 2025–26 give cosines of 0.75 (an fp16 e5-base on WebGPU) or ≈ 0 (q4/q8 on
 * WebGPU).
 */
import type { EncoderDtype } from '../core/encoder-recipe.ts';
import type { StoredVector } from './pooling.ts';

/** What a path must reach against the reference: cosine's minimum and median over the sample, the mean top-k overlap. */
export interface AgreementThresholds {
  readonly minCosine: number;
  readonly medianCosine: number;
  readonly meanOverlap: number;
}

export const AGREEMENT_THRESHOLDS: Readonly<Record<EncoderDtype, AgreementThresholds>> = {
  fp32: { minCosine: 0.999, medianCosine: 0.9999, meanOverlap: 0.9 },
  fp16: { minCosine: 0.99, medianCosine: 0.999, meanOverlap: 0.8 },
  q8: { minCosine: 0.95, medianCosine: 0.98, meanOverlap: 0.7 },
};

/** The sample's size: queries and passages taken evenly spaced from the collection (fewer when it has fewer). */
export const AGREEMENT_SAMPLE = { queries: 8, passages: 32 } as const;

/** Depth of the top-k overlap (smaller samples use half their passages). */
export const AGREEMENT_TOP_K = 10;

/** The texts of a sample, both roles. */
export interface AgreementSample {
  readonly queries: readonly string[];
  readonly passages: readonly string[];
}

/** `count` positions of `n`, evenly spaced from 0 (all of them when n ≤ count). */
export function evenlySpaced(n: number, count: number): number[] {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: count }, (_, i) => Math.floor((i * n) / count));
}

/** The sample of a collection: {@link AGREEMENT_SAMPLE} queries and passages, evenly spaced, deterministic. */
export function agreementSample(queries: readonly string[], passages: readonly string[]): AgreementSample {
  return {
    queries: evenlySpaced(queries.length, AGREEMENT_SAMPLE.queries).map((i) => queries[i]!),
    passages: evenlySpaced(passages.length, AGREEMENT_SAMPLE.passages).map((i) => passages[i]!),
  };
}

/** The values of a vector (dense, or a sparse vector's weights). */
const valuesOf = (v: StoredVector): ArrayLike<number> => v.dense ?? v.sparse?.values ?? [];

/** True when every value of `v` is a finite number. */
export function isFiniteVector(v: StoredVector): boolean {
  const values = valuesOf(v);
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return false;
  return true;
}

/** Inner product of two vectors of one kind (sparse: over the term ids both hold; ids ascending). */
export function dot(a: StoredVector, b: StoredVector): number {
  if (a.dense && b.dense) {
    if (a.dense.length !== b.dense.length) throw new RangeError(`vectors of ${a.dense.length} and ${b.dense.length} dimensions`);
    let s = 0;
    for (let i = 0; i < a.dense.length; i++) s += a.dense[i]! * b.dense[i]!;
    return s;
  }
  if (a.sparse && b.sparse) {
    const x = a.sparse;
    const y = b.sparse;
    let s = 0;
    for (let i = 0, j = 0; i < x.indices.length && j < y.indices.length;) {
      const u = x.indices[i]!;
      const w = y.indices[j]!;
      if (u === w) s += x.values[i++]! * y.values[j++]!;
      else if (u < w) i++;
      else j++;
    }
    return s;
  }
  throw new TypeError('a dense and a sparse vector cannot be compared');
}

/** Cosine of two vectors; 1 when both are zero, 0 when one is. */
export function cosine(a: StoredVector, b: StoredVector): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  if (na === 0 || nb === 0) return na === nb ? 1 : 0;
  return dot(a, b) / (na * nb);
}

/** The median of `values` (mean of the middle two for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Positions of the `k` passages `query` scores highest (inner product; ties to the lower position). */
export function topK(query: StoredVector, passages: readonly StoredVector[], k: number): number[] {
  return passages
    .map((p, i) => ({ i, s: dot(query, p) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, k)
    .map((x) => x.i);
}

/** One path's vectors of a sample, in the sample's order. */
export interface SampleVectors {
  readonly queries: readonly StoredVector[];
  readonly passages: readonly StoredVector[];
}

/** A path compared with the reference on a sample: the numbers, the thresholds they were held to, and the verdict. */
export interface AgreementReport {
  /** The path checked, and the reference ("wasm", "fp32"). */
  readonly device: string;
  readonly dtype: EncoderDtype;
  readonly queries: number;
  readonly passages: number;
  /** Over every text of the sample (both roles); null when a side holds a non-finite value. */
  readonly minCosine: number | null;
  readonly medianCosine: number | null;
  /** Depth of the overlap, and its mean and minimum over the sample's queries (null: fewer than 2 passages, or non-finite). */
  readonly overlapK: number | null;
  readonly meanOverlap: number | null;
  readonly minOverlap: number | null;
  /** Vectors with a NaN or ±∞, on the path and on the reference. */
  readonly nonFinite: number;
  readonly nonFiniteReference: number;
  readonly thresholds: AgreementThresholds;
  readonly passed: boolean;
  /** Each failed condition, in words ("min cosine 0.812 < 0.99"); empty when passed. */
  readonly failures: readonly string[];
}

const fixed = (x: number, digits: number) => x.toFixed(digits);
/** A cosine with enough digits to tell it from its threshold (0.9999 is not 1). */
export const formatCosine = (x: number): string => fixed(x, x > 0.999 ? 5 : 3);

/**
 * Compare `path`'s vectors of a sample with the `reference`'s (the same texts, in the same order) against the
 * thresholds of `dtype` ({@link AGREEMENT_THRESHOLDS} unless given).
 */
export function compareAgreement(
  path: SampleVectors,
  reference: SampleVectors,
  on: { readonly device: string; readonly dtype: EncoderDtype },
  thresholds: AgreementThresholds = AGREEMENT_THRESHOLDS[on.dtype],
): AgreementReport {
  if (path.queries.length !== reference.queries.length || path.passages.length !== reference.passages.length)
    throw new RangeError('the path and the reference encoded samples of different sizes');
  const all = [...path.queries, ...path.passages];
  const allRef = [...reference.queries, ...reference.passages];
  const nonFinite = all.filter((v) => !isFiniteVector(v)).length;
  const nonFiniteReference = allRef.filter((v) => !isFiniteVector(v)).length;
  const failures: string[] = [];
  let minCosine: number | null = null;
  let medianCosine: number | null = null;
  let overlapK: number | null = null;
  let meanOverlap: number | null = null;
  let minOverlap: number | null = null;
  if (nonFinite > 0) failures.push(`${nonFinite} of ${all.length} vectors hold NaN or ∞`);
  if (nonFiniteReference > 0) failures.push(`${nonFiniteReference} of ${all.length} reference vectors hold NaN or ∞`);
  if (nonFinite === 0 && nonFiniteReference === 0 && all.length > 0) {
    const cosines = all.map((v, i) => cosine(v, allRef[i]!));
    minCosine = Math.min(...cosines);
    medianCosine = median(cosines);
    if (minCosine < thresholds.minCosine) failures.push(`min cosine ${formatCosine(minCosine)} < ${thresholds.minCosine}`);
    if (medianCosine! < thresholds.medianCosine) failures.push(`median cosine ${formatCosine(medianCosine!)} < ${thresholds.medianCosine}`);
    const k = Math.min(AGREEMENT_TOP_K, Math.floor(path.passages.length / 2));
    if (k > 0 && path.queries.length > 0) {
      const overlaps = path.queries.map((q, i) => {
        const mine = new Set(topK(q, path.passages, k));
        return topK(reference.queries[i]!, reference.passages, k).filter((p) => mine.has(p)).length / k;
      });
      overlapK = k;
      meanOverlap = overlaps.reduce((a, b) => a + b, 0) / overlaps.length;
      minOverlap = Math.min(...overlaps);
      if (meanOverlap < thresholds.meanOverlap) failures.push(`top-${k} overlap ${fixed(meanOverlap, 2)} < ${thresholds.meanOverlap}`);
    }
  }
  return {
    device: on.device,
    dtype: on.dtype,
    queries: path.queries.length,
    passages: path.passages.length,
    minCosine,
    medianCosine,
    overlapK,
    meanOverlap,
    minOverlap,
    nonFinite,
    nonFiniteReference,
    thresholds,
    passed: failures.length === 0,
    failures,
  };
}

/** The numbers of a report in one line: "min cosine 0.99998, median 1.00000, top-10 overlap 1.00 (8 queries × 32 passages)". */
export function describeAgreement(r: AgreementReport): string {
  const parts: string[] = [];
  if (r.nonFinite > 0) parts.push(`${r.nonFinite} vectors with NaN or ∞`);
  if (r.minCosine !== null && r.medianCosine !== null)
    parts.push(`min cosine ${formatCosine(r.minCosine)}`, `median ${formatCosine(r.medianCosine)}`);
  if (r.meanOverlap !== null) parts.push(`top-${r.overlapK} overlap ${fixed(r.meanOverlap, 2)}`);
  const sample = `${r.queries} ${r.queries === 1 ? 'query' : 'queries'} × ${r.passages} ${r.passages === 1 ? 'passage' : 'passages'}`;
  return `${parts.join(', ')} (${sample})`;
}

/** Thrown when a path disagrees with the reference: the report's numbers ride along as fields (they cross workers). */
export class DisagreementError extends Error {
  override readonly name = 'DisagreementError';
  readonly failure = 'disagreement';
  readonly minCosine: number | null;
  readonly medianCosine: number | null;
  readonly meanOverlap: number | null;
  readonly overlapK: number | null;
  readonly nonFinite: number;
  readonly device: string;
  readonly dtype: string;

  constructor(readonly report: AgreementReport) {
    super(
      `${report.device} ${report.dtype} disagrees with the reference (WASM fp32) on a sample of the collection: ` +
        `${report.failures.join('; ')} — ${describeAgreement(report)}. Nothing was encoded; ` +
        'the reference path (WASM, fp32 weights) gives this encoder’s vectors.',
    );
    this.minCosine = report.minCosine;
    this.medianCosine = report.medianCosine;
    this.meanOverlap = report.meanOverlap;
    this.overlapK = report.overlapK;
    this.nonFinite = report.nonFinite;
    this.device = report.device;
    this.dtype = report.dtype;
  }
}

/**
 * Thrown when a batch of a job yields a vector with NaN or ±∞: the job stops there, before anything of that
 * batch is stored. `batch` counts from 1; `first` is the position (in the job's texts) of the first such vector.
 */
export class NonFiniteVectorError extends Error {
  override readonly name = 'NonFiniteVectorError';
  readonly failure = 'non-finite';

  constructor(
    readonly batch: number,
    readonly bad: number,
    readonly size: number,
    readonly first: number,
    readonly role: 'query' | 'passage',
    readonly device: string,
    readonly dtype: string,
  ) {
    super(
      `batch ${batch} on ${device} ${dtype} gave ${bad} of ${size} vectors with NaN or ∞ (the first: ${role} ${first + 1}), ` +
        'so the job stopped there and stored nothing of that batch: the model overflows on this path ' +
        '(the reference path, WASM with fp32 weights, may not)',
    );
  }
}
