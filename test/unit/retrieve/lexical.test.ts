/**
 * Query likelihood (Dirichlet) and BM25 + RM3 against naive oracles that work on token arrays and Maps (no
 * index), written from the definitions in src/core/retrieve/{ql,rm3}.ts; plus hand-computed cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BM25_VARIANTS, buildBm25Index, searchBm25 } from '../../../src/core/retrieve/bm25.ts';
import { buildLexicalIndex } from '../../../src/core/retrieve/lexical.ts';
import { explainQl, parseQlRunName, qlRunName, runQl, searchQl } from '../../../src/core/retrieve/ql.ts';
import {
  DEFAULT_RM3_PARAMS,
  parseRm3RunName,
  resolveRm3Params,
  rm3Expand,
  rm3RunName,
  runRm3,
  searchRm3,
  type Rm3Params,
} from '../../../src/core/retrieve/rm3.ts';
import { tokenize } from '../../../src/core/text/tokenize.ts';
import { makeCorpus, makeQueries, oracleCorpus, oracleSearch, type OracleCorpus } from './bm25-oracle.ts';

function rank(scores: Map<number, number>, depth: number): { docs: number[]; scores: number[] } {
  const hits = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, depth);
  return { docs: hits.map((h) => h[0]), scores: hits.map((h) => h[1]) };
}

/** QL, literally: every document, every distinct in-vocabulary query term in first appearance. */
function oracleQl(oc: OracleCorpus, query: string, depth: number, mu: number) {
  const total = oc.tokens.reduce((s, t) => s + t.length, 0);
  const cf = new Map<string, number>();
  for (const ts of oc.tokens) for (const t of ts) cf.set(t, (cf.get(t) ?? 0) + 1);
  const q = tokenize(query).filter((t) => cf.has(t));
  const distinct = [...new Set(q)];
  const scores = new Map<number, number>();
  oc.tokens.forEach((ts, d) => {
    if (!distinct.some((t) => (oc.tf[d]!.get(t) ?? 0) > 0)) return;
    let s = 0;
    for (const t of distinct) {
      const tf = oc.tf[d]!.get(t) ?? 0;
      if (tf > 0) s += q.filter((x) => x === t).length * Math.log1p(tf / (mu * (cf.get(t)! / total)));
    }
    scores.set(d, s + q.length * Math.log(mu / (ts.length + mu)));
  });
  return rank(scores, depth);
}

/** RM3, literally, from the first stage the oracle BM25 gives. */
function oracleRm3(oc: OracleCorpus, query: string, depth: number, p: Rm3Params) {
  const N = oc.tokens.length;
  const first = oracleSearch(oc, query, p.fbDocs, { k1: p.k1, b: p.b, precision: 'float32' });
  const order = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const vectors = first.docs.map((d, i) => {
    const kept = [...oc.tf[d]!]
      .filter(([t]) => /^[a-z0-9]{2,20}$/.test(t) && oc.df.get(t)! / N <= 0.1)
      .sort(order)
      .slice(0, p.fbTerms);
    return { tf: new Map(kept), norm: kept.reduce((s, [, v]) => s + v, 0), score: first.scores[i]! };
  });
  const vocab = new Set(vectors.flatMap((v) => [...v.tf.keys()]));
  const rm = [...vocab]
    .map((t): [string, number] => [t, vectors.reduce((s, v) => (v.norm > 0.001 ? s + ((v.tf.get(t) ?? 0) / v.norm) * v.score : s), 0)])
    .sort(order)
    .slice(0, p.fbTerms);
  const l1 = rm.reduce((s, [, w]) => s + Math.abs(w), 0);
  const q = tokenize(query);
  const w = new Map<string, number>();
  for (const t of new Set(q)) w.set(t, p.originalQueryWeight * (q.filter((x) => x === t).length / q.length));
  for (const [t, r] of rm) w.set(t, (w.get(t) ?? 0) + (1 - p.originalQueryWeight) * (l1 > 0 ? r / l1 : 0));
  const terms = [...w.keys()].sort();
  const scores = new Map<number, number>();
  oc.tokens.forEach((ts, d) => {
    let s = 0;
    let matched = false;
    for (const t of terms) {
      const tf = oc.tf[d]!.get(t) ?? 0;
      if (tf === 0 || w.get(t) === 0) continue;
      matched = true;
      const df = oc.df.get(t)!;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      s += w.get(t)! * ((idf * tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + (p.b * ts.length) / oc.avgdl)));
    }
    if (matched) scores.set(d, s);
  });
  return { expanded: { terms, weights: terms.map((t) => w.get(t)!) }, ...rank(scores, depth) };
}

// A small vocabulary so ties, repeats and the 10% document-frequency filter all occur.
const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'Alpha',
  'eps',
  'zeta',
  'eta',
  'theta',
  'x1',
  'café',
  'the',
  'q',
  'omega',
  'kappa',
  'rho',
];
const word = fc.constantFrom(...WORDS);
const text = fc.array(word, { maxLength: 14 }).map((ws) => ws.join(' '));
const queryText = fc.array(fc.oneof(word, fc.constantFrom('unknown', 'alpha alpha')), { maxLength: 6 }).map((ws) => ws.join(' '));
// Corpora large enough that some terms stay under 10% of the documents (feedback terms exist).
const rareWord = fc.integer({ min: 0, max: 200 }).map((i) => `w${i}`);
const rareText = fc.array(fc.oneof(word, rareWord, rareWord), { minLength: 0, maxLength: 20 }).map((ws) => ws.join(' '));

describe('query likelihood, Dirichlet smoothing', () => {
  it('equals the naive oracle: lists and scores, any μ', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 25 }),
        fc.array(queryText, { minLength: 1, maxLength: 5 }),
        fc.oneof(fc.constant(1000), fc.double({ min: 0.5, max: 5000, noNaN: true })),
        fc.integer({ min: 1, max: 30 }),
        (docs, queries, mu, depth) => {
          const corpus = makeCorpus(docs);
          const index = buildLexicalIndex(corpus);
          const oc = oracleCorpus(corpus);
          for (const q of queries) {
            const got = searchQl(index, q, depth, mu);
            const want = oracleQl(oc, q, depth, mu);
            expect(Array.from(got.docs), q).toEqual(want.docs);
            expect(Array.from(got.scores), q).toEqual(want.scores);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('differs from the full log query likelihood by one constant per query (rank-equivalent)', () => {
    const corpus = makeCorpus(['alpha beta beta', 'alpha gamma', 'beta beta beta delta', 'gamma']);
    const index = buildLexicalIndex(corpus);
    const hits = searchQl(index, 'alpha beta', 10, 1000);
    const total = 10;
    const cf: Record<string, number> = { alpha: 2, beta: 5 };
    const tf: Record<number, Record<string, number>> = { 0: { alpha: 1, beta: 2 }, 1: { alpha: 1 }, 2: { beta: 3 } };
    const dl = [3, 2, 4];
    const full = (d: number) =>
      ['alpha', 'beta'].reduce((s, t) => s + Math.log(((tf[d]![t] ?? 0) + 1000 * (cf[t]! / total)) / (dl[d]! + 1000)), 0);
    const offsets = Array.from(hits.docs, (d, i) => full(d) - hits.scores[i]!);
    expect(Array.from(hits.docs).sort()).toEqual([0, 1, 2]); // document 3 shares no term
    for (const o of offsets) expect(o).toBeCloseTo(offsets[0]!, 12);
    // The constant is Σ log p(t|C): log(2/10) + log(5/10).
    expect(offsets[0]).toBeCloseTo(Math.log(0.2) + Math.log(0.5), 12);
  });

  it("explainQl takes each ranked score apart: term weights and the length term sum to exactly the ranker's score", () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 25 }),
        fc.array(queryText, { minLength: 1, maxLength: 5 }),
        fc.oneof(fc.constant(1000), fc.double({ min: 0.5, max: 5000, noNaN: true })),
        (docs, queries, mu) => {
          const corpus = makeCorpus(docs);
          const index = buildLexicalIndex(corpus);
          const oc = oracleCorpus(corpus);
          for (const q of queries) {
            const hits = searchQl(index, q, 1000, mu);
            const inVocabulary = tokenize(q).filter((t) => index.vocabulary.has(t));
            hits.docs.forEach((d, i) => {
              const why = explainQl(index, q, d, mu);
              expect(why.total, `${q} / d${d}`).toBe(hits.scores[i]);
              // The rows, summed in order with the length term last, are the score (the scorer's additions).
              expect(why.terms.reduce((s, t) => s + t.weight, 0) + why.lengthWeight).toBe(why.total);
              expect(why.terms.map((t) => t.term)).toEqual([...new Set(inVocabulary)]);
              expect(why.queryLength).toBe(inVocabulary.length);
              expect(why.docLength).toBe(oc.tokens[d]!.length);
              for (const t of why.terms) {
                expect(t.tf).toBe(oc.tf[d]!.get(t.term) ?? 0);
                expect(t.count).toBe(inVocabulary.filter((x) => x === t.term).length);
                if (t.tf === 0) expect(t.weight).toBe(0);
                else expect(t.weight).toBeGreaterThan(0);
              }
            });
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('explainQl by hand: log1p(tf / (μ·p(t|C))) per term, |q|·log(μ/(dl+μ)) for the length', () => {
    const corpus = makeCorpus(['alpha beta beta', 'alpha gamma', 'beta beta beta delta', 'gamma']);
    const index = buildLexicalIndex(corpus);
    const why = explainQl(index, 'alpha beta alpha', 0, 1000);
    // |C| = 10, cf(alpha) = 2, cf(beta) = 5; document 0 has alpha once, beta twice, 3 tokens.
    expect(why.terms).toEqual([
      { term: 'alpha', count: 2, tf: 1, cf: 2, weight: 2 * Math.log1p(1 / (1000 * 0.2)) },
      { term: 'beta', count: 1, tf: 2, cf: 5, weight: Math.log1p(2 / (1000 * 0.5)) },
    ]);
    expect(why.lengthWeight).toBe(3 * Math.log(1000 / 1003));
    expect(explainQl(index, 'delta', 1, 1000).terms[0]).toEqual({ term: 'delta', count: 1, tf: 0, cf: 1, weight: 0 });
    expect(() => explainQl(index, 'alpha', 4)).toThrow(/outside the 4 documents/);
  });

  it('names runs, rejects bad μ, and runs a query set', () => {
    expect(qlRunName(1000)).toBe('ql');
    expect(qlRunName(2000)).toBe('ql-mu=2000');
    expect(parseQlRunName('ql-mu=2000')).toEqual({ mu: 2000 });
    expect(parseQlRunName('ql-mu=0')).toBeNull();
    expect(parseQlRunName('qlx')).toBeNull();
    const corpus = makeCorpus(['alpha', 'beta']);
    const index = buildLexicalIndex(corpus);
    expect(() => searchQl(index, 'alpha', 10, 0)).toThrow(/μ must be/);
    expect(() => searchQl(index, 'alpha', 0)).toThrow(RangeError);
    const run = runQl(index, corpus, makeQueries(['alpha', 'nothing here']), [0, 1], 10);
    expect(run.name).toBe('ql');
    expect(run.byQuery.get('q0' as never)?.docs).toEqual(['d0']);
    expect(run.byQuery.get('q1' as never)?.docs).toEqual([]);
  });
});

describe('BM25 + RM3', () => {
  it('expands and ranks as the naive oracle, any feedback settings', () => {
    fc.assert(
      fc.property(
        fc.array(rareText, { minLength: 12, maxLength: 40 }),
        fc.array(queryText, { minLength: 1, maxLength: 4 }),
        fc.record({
          fbDocs: fc.integer({ min: 1, max: 12 }),
          fbTerms: fc.integer({ min: 1, max: 12 }),
          originalQueryWeight: fc.constantFrom(0, 0.5, 0.3, 1),
          k1: fc.constantFrom(1.5, 1.2),
          b: fc.constantFrom(0.75, 0.65),
        }),
        fc.integer({ min: 1, max: 30 }),
        (docs, queries, params, depth) => {
          const corpus = makeCorpus(docs);
          const lex = buildLexicalIndex(corpus);
          const bm25 = buildBm25Index(corpus, { k1: params.k1, b: params.b });
          const oc = oracleCorpus(corpus);
          for (const q of queries) {
            const want = oracleRm3(oc, q, depth, params);
            const feedback = searchBm25(bm25, q, params.fbDocs);
            expect(rm3Expand(lex, q, feedback, params), q).toEqual(want.expanded);
            const got = searchRm3(lex, q, feedback, depth, params);
            expect(Array.from(got.docs), q).toEqual(want.docs);
            expect(Array.from(got.scores), q).toEqual(want.scores);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('adds the feedback documents’ rare terms, hand-checked', () => {
    // 12 documents: "zeta" and "omega" occur in 1 of 12 (< 10%), "alpha" in 12 of 12 (filtered).
    const docs = ['alpha zeta zeta omega', ...Array.from({ length: 11 }, (_, i) => `alpha filler${i} filler${i}`)];
    docs[11] = 'alpha';
    const corpus = makeCorpus(docs);
    const lex = buildLexicalIndex(corpus);
    // One feedback document with score 2: its kept terms zeta (2), omega (1), n = 3.
    const e = rm3Expand(lex, 'alpha', { docs: [0], scores: [2] }, { fbDocs: 1 });
    // rm: zeta 4/3, omega 2/3 → L1 2 → 2/3, 1/3; interpolated with α = 0.5 and qm(alpha) = 1.
    expect(e.terms).toEqual(['alpha', 'omega', 'zeta']);
    expect(e.weights[0]).toBe(0.5);
    expect(e.weights[1]).toBeCloseTo(1 / 6, 15);
    expect(e.weights[2]).toBeCloseTo(1 / 3, 15);
  });

  it('names runs after their settings and rejects bad ones', () => {
    expect(rm3RunName()).toBe('bm25-rm3');
    expect(rm3RunName({ k1: 1.2 })).toBe('bm25-k1=1.2-b=0.75-rm3');
    expect(rm3RunName({ fbDocs: 5 })).toBe('bm25-rm3-fb_docs=5-fb_terms=10-w=0.5');
    expect(parseRm3RunName('bm25-rm3')).toEqual(DEFAULT_RM3_PARAMS);
    expect(parseRm3RunName('bm25-k1=1.2-b=0.75-rm3-fb_docs=5-fb_terms=20-w=0.3')).toEqual({
      k1: 1.2,
      b: 0.75,
      fbDocs: 5,
      fbTerms: 20,
      originalQueryWeight: 0.3,
    });
    expect(parseRm3RunName('bm25-rm3-fb_docs=10-fb_terms=10-w=0.5')).toBeNull(); // the defaults have one name
    expect(parseRm3RunName('bm25-rm3-fb_docs=0-fb_terms=10-w=0.5')).toBeNull();
    expect(() => resolveRm3Params({ fbDocs: 0 })).toThrow(/fb_docs/);
    expect(() => resolveRm3Params({ originalQueryWeight: 1.5 })).toThrow(/original query weight/);
    const corpus = makeCorpus(['alpha beta', 'beta gamma']);
    const lex = buildLexicalIndex(corpus);
    const bm25 = buildBm25Index(corpus, BM25_VARIANTS.ragflip);
    const run = runRm3(lex, corpus, makeQueries(['alpha']), [0], 10, (t, n) => searchBm25(bm25, t, n));
    expect(run.name).toBe('bm25-rm3');
    expect(run.byQuery.get('q0' as never)?.docs[0]).toBe('d0');
  });
});
