/**
 * The agreement check's numbers (src/encoders/agreement.ts) on hand-made vectors whose cosines and rankings are
 * written out: cosine (dense and sparse), median, top-k with its tie rule, the sample, the verdict against each
 * dtype's thresholds, non-finite vectors; and the SPLADE pooling that keeps a NaN weight instead of dropping it.
 */
import { describe, expect, it } from 'vitest';
import {
  AGREEMENT_SAMPLE,
  AGREEMENT_THRESHOLDS,
  agreementSample,
  compareAgreement,
  cosine,
  describeAgreement,
  DisagreementError,
  evenlySpaced,
  isFiniteVector,
  median,
  NonFiniteVectorError,
  topK,
  type SampleVectors,
} from '../../../src/encoders/agreement.ts';
import { sparsify, spladePool, type StoredVector } from '../../../src/encoders/pooling.ts';

const d = (...v: number[]): StoredVector => ({ dense: Float32Array.from(v), tokens: 1 });
const s = (indices: number[], values: number[]): StoredVector => ({
  sparse: { indices: Uint32Array.from(indices), values: Float32Array.from(values) },
  tokens: 1,
});

describe('cosine, median, top-k', () => {
  it('cosine of dense vectors is a·b / (|a||b|); zero vectors are 1 with each other and 0 with anything else', () => {
    expect(cosine(d(1, 0), d(1, 0))).toBe(1);
    expect(cosine(d(1, 0), d(0, 1))).toBe(0);
    expect(cosine(d(3, 4), d(4, 3))).toBeCloseTo(24 / 25, 12);
    expect(cosine(d(0, 0), d(0, 0))).toBe(1);
    expect(cosine(d(0, 0), d(1, 0))).toBe(0);
  });

  it('cosine of sparse vectors sums over the term ids both hold', () => {
    // a = {1: 1, 5: 2}, b = {5: 2, 9: 1}: a·b = 4, |a| = |b| = √5.
    expect(cosine(s([1, 5], [1, 2]), s([5, 9], [2, 1]))).toBeCloseTo(4 / 5, 12);
    expect(() => cosine(d(1), s([0], [1]))).toThrow(/dense and a sparse/);
  });

  it('median is the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('top-k ranks by inner product, ties to the lower position', () => {
    const passages = [d(1, 0), d(0, 1), d(1, 0), d(2, 0)];
    expect(topK(d(1, 0), passages, 3)).toEqual([3, 0, 2]);
  });
});

describe('the sample', () => {
  it('takes evenly spaced positions from 0, all of them when there are few', () => {
    expect(evenlySpaced(3, 8)).toEqual([0, 1, 2]);
    expect(evenlySpaced(10, 4)).toEqual([0, 2, 5, 7]);
  });

  it('is AGREEMENT_SAMPLE queries and passages of the collection, deterministic', () => {
    const queries = Array.from({ length: 100 }, (_, i) => `q${i}`);
    const passages = Array.from({ length: 1000 }, (_, i) => `p${i}`);
    const sample = agreementSample(queries, passages);
    expect(sample.queries).toHaveLength(AGREEMENT_SAMPLE.queries);
    expect(sample.passages).toHaveLength(AGREEMENT_SAMPLE.passages);
    expect(sample.queries.slice(0, 3)).toEqual(['q0', 'q12', 'q25']);
    expect(agreementSample(queries, passages)).toEqual(sample);
  });
});

/** 2 queries and 4 passages in 2-D; the reference's vectors, and a path that turns every vector by `angle`. */
function turned(angle: number): { path: SampleVectors; reference: SampleVectors } {
  const at = (a: number) => d(Math.cos(a), Math.sin(a));
  const queries = [0, 1.2];
  const passages = [0.1, 0.5, 1.0, 1.5];
  return {
    reference: { queries: queries.map(at), passages: passages.map(at) },
    path: { queries: queries.map((a) => at(a + angle)), passages: passages.map((a) => at(a + angle)) },
  };
}

describe('compareAgreement', () => {
  it('passes a path whose vectors are the reference’s: every cosine 1, every top-k the same', () => {
    const { path, reference } = turned(0);
    const r = compareAgreement(path, reference, { device: 'webgpu', dtype: 'fp32' });
    expect(r).toMatchObject({ passed: true, failures: [], minCosine: 1, medianCosine: 1, overlapK: 2, meanOverlap: 1, minOverlap: 1 });
    expect(r.thresholds).toEqual(AGREEMENT_THRESHOLDS.fp32);
    expect(describeAgreement(r)).toBe('min cosine 1.00000, median 1.00000, top-2 overlap 1.00 (2 queries × 4 passages)');
  });

  it('fails a path turned by 0.2 rad: every cosine is cos 0.2 = 0.980, below fp16’s 0.99', () => {
    const { path, reference } = turned(0.2);
    const r = compareAgreement(path, reference, { device: 'webgpu', dtype: 'fp16' });
    expect(r.minCosine).toBeCloseTo(Math.cos(0.2), 6);
    expect(r.passed).toBe(false);
    expect(r.failures).toEqual(['min cosine 0.980 < 0.99', 'median cosine 0.980 < 0.999']);
    // A rigid turn keeps every ranking: the overlap alone would not have caught it.
    expect(r.meanOverlap).toBe(1);
    // q8's thresholds (0.95, 0.98) let the same numbers through.
    expect(compareAgreement(path, reference, { device: 'wasm', dtype: 'q8' }).passed).toBe(true);
  });

  it('fails on the overlap when rankings change though cosines stay high', () => {
    const at = (a: number) => d(Math.cos(a), Math.sin(a));
    // Scores are the cosines of the passages' angles to the query's (0): the reference's top 2 are 0.1 and 0.2 rad.
    const reference: SampleVectors = { queries: [at(0)], passages: [0.1, 0.2, -0.3, -0.4].map(at) };
    // The path moves two passages by 0.25 and 0.15 rad: its top 2 (0.1 and −0.15) share one with the reference's.
    const path: SampleVectors = { queries: [at(0)], passages: [0.1, 0.45, -0.15, -0.4].map(at) };
    const r = compareAgreement(path, reference, { device: 'webgpu', dtype: 'q8' }, { minCosine: 0.9, medianCosine: 0.9, meanOverlap: 0.7 });
    expect(r.minCosine).toBeGreaterThan(0.9);
    expect(r).toMatchObject({ overlapK: 2, meanOverlap: 0.5, passed: false, failures: ['top-2 overlap 0.50 < 0.7'] });
  });

  it('fails on any NaN or ∞, on either side, whatever the numbers', () => {
    const { path, reference } = turned(0);
    const broken: SampleVectors = { queries: path.queries, passages: [d(NaN, 0), d(Infinity, 1), ...path.passages.slice(2)] };
    const r = compareAgreement(broken, reference, { device: 'wasm', dtype: 'fp16' });
    expect(r).toMatchObject({ passed: false, nonFinite: 2, nonFiniteReference: 0, minCosine: null, meanOverlap: null });
    expect(r.failures).toEqual(['2 of 6 vectors hold NaN or ∞']);
    expect(compareAgreement(reference, broken, { device: 'wasm', dtype: 'fp16' }).failures).toEqual([
      '2 of 6 reference vectors hold NaN or ∞',
    ]);
  });

  it('refuses to compare samples of different sizes', () => {
    const { path, reference } = turned(0);
    expect(() => compareAgreement({ ...path, queries: [] }, reference, { device: 'wasm', dtype: 'fp16' })).toThrow(RangeError);
  });

  it('carries its numbers as fields of the error the worker throws (they cross to the page)', () => {
    const { path, reference } = turned(0.2);
    const e = new DisagreementError(compareAgreement(path, reference, { device: 'webgpu', dtype: 'fp16' }));
    expect(e).toMatchObject({
      name: 'DisagreementError',
      failure: 'disagreement',
      device: 'webgpu',
      dtype: 'fp16',
      overlapK: 2,
      nonFinite: 0,
    });
    expect(e.minCosine).toBeCloseTo(Math.cos(0.2), 6);
    expect(e.message).toMatch(/^webgpu fp16 disagrees with the reference \(WASM fp32\).*min cosine 0\.980 < 0\.99.*Nothing was encoded/);
  });
});

describe('non-finite vectors are never dropped', () => {
  it('isFiniteVector looks at every value, dense or sparse', () => {
    expect(isFiniteVector(d(1, 2))).toBe(true);
    expect(isFiniteVector(d(1, NaN))).toBe(false);
    expect(isFiniteVector(s([3], [-Infinity]))).toBe(false);
  });

  it('SPLADE pooling keeps a NaN weight (as the largest) where it used to drop it as "not positive"', () => {
    // One text, two positions, four terms: term 2's logit is NaN at the second position.
    const logits = Float32Array.of(1, 0, 2, -1, 3, 0, NaN, -1);
    const [v] = spladePool(logits, [1, 1], { batch: 1, seq: 2, width: 4 }, 2);
    expect(Array.from(v!.indices)).toEqual([0, 2]);
    expect(Number.isNaN(v!.values[1]!)).toBe(true);
    expect(isFiniteVector({ sparse: v!, tokens: 2 })).toBe(false);
    expect(Array.from(sparsify(Float32Array.of(0.5, NaN, 0), null).indices)).toEqual([0, 1]);
  });

  it('the job’s error names the batch, how many, the first text and the path', () => {
    const e = new NonFiniteVectorError(1, 3, 32, 16, 'passage', 'wasm', 'fp16');
    expect(e).toMatchObject({ name: 'NonFiniteVectorError', failure: 'non-finite', batch: 1, bad: 3, size: 32, first: 16 });
    expect(e.message).toMatch(/^batch 1 on wasm fp16 gave 3 of 32 vectors with NaN or ∞ \(the first: passage 17\)/);
  });
});
