/**
 * The term–document pass both lexical indexes are built from (src/core/retrieve/term-docs.ts): its counts
 * against a literal oracle over `tokenize(passageText(...))`, the indexes built on one pass equal to those
 * built from the corpus (and sharing its arrays), the empty-corpus avgdl, and the tf cap that BM25 alone
 * applies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Idf, bm25IndexFrom, buildBm25Index, BM25_MAX_TF, searchBm25 } from '../../../src/core/retrieve/bm25.ts';
import { buildLexicalIndex, lexicalIndexFrom } from '../../../src/core/retrieve/lexical.ts';
import { searchQl } from '../../../src/core/retrieve/ql.ts';
import { countTermDocs } from '../../../src/core/retrieve/term-docs.ts';
import { makeCorpus, oracleCorpus } from './bm25-oracle.ts';

const WORDS = ['alpha', 'beta', 'gamma', 'Delta', 'the', 'and', 'café', 'x1', 'İstanbul'];
const text = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(' ', ', ', '. ', '-', '\n')), { maxLength: 12 })
  .map((ws) => ws.map(([w, s]) => w + s).join(''));
const doc = fc.oneof(text, fc.tuple(fc.oneof(fc.constant(''), text), text));

describe('countTermDocs', () => {
  it('counts what the tokenizer yields: lengths, df, tf per document (first appearance), vocabulary order, avgdl', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 5 }), (docs, every) => {
        const corpus = makeCorpus(docs);
        const oc = oracleCorpus(corpus);
        const pass = countTermDocs(corpus, { progressEveryDocs: every });
        const firstSeen = [...new Set(oc.tokens.flat())];
        expect(pass.terms).toEqual(firstSeen);
        expect([...pass.vocabulary]).toEqual(firstSeen.map((t, i) => [t, i]));
        expect(Array.from(pass.df)).toEqual(firstSeen.map((t) => oc.df.get(t)));
        expect(Array.from(pass.docLengths)).toEqual(oc.tokens.map((ts) => ts.length));
        expect(pass.totalTokens).toBe(oc.tokens.flat().length);
        expect(pass.avgdl).toBe(oc.avgdl);
        oc.tf.forEach((tf, d) => {
          const pairs = Array.from(pass.docTerms.subarray(pass.docStart[d]!, pass.docStart[d + 1]!), (t, i) => [
            pass.terms[t],
            pass.docTfs[pass.docStart[d]! + i],
          ]);
          expect(pairs).toEqual([...tf]);
        });
        expect(pass.docStart[docs.length]).toBe(pass.docTerms.length);
      }),
      { numRuns: 200 },
    );
  });

  it('reports progress between documents and honours an abort signal before the first', () => {
    const corpus = makeCorpus(Array.from({ length: 10 }, (_, i) => `doc ${i}`));
    const seen: Array<[number, number]> = [];
    buildLexicalIndex(corpus, { onProgress: (done, total) => seen.push([done, total]), progressEveryDocs: 4 });
    expect(seen).toEqual([
      [4, 10],
      [8, 10],
      [10, 10],
    ]);
    const ac = new AbortController();
    ac.abort();
    expect(() => countTermDocs(makeCorpus(['alpha']), { signal: ac.signal })).toThrow();
  });
});

describe('one pass, two indexes', () => {
  const corpus = makeCorpus(['alpha beta alpha', '', ['Gamma', 'beta of delta'], 'delta delta alpha']);

  it('builds the same indexes as the corpus does, sharing the pass instead of copying it', () => {
    const pass = countTermDocs(corpus);
    const lex = lexicalIndexFrom(pass);
    const bm25 = bm25IndexFrom(pass, { k1: 1.2 });
    expect(lex).toEqual(buildLexicalIndex(corpus));
    expect(bm25).toEqual(buildBm25Index(corpus, { k1: 1.2 }));
    expect(lex.docTerms).toBe(pass.docTerms);
    expect(bm25.vocabulary).toBe(pass.vocabulary);
    expect(bm25.df).toBe(lex.df);
    // a BM25 index straight from the lexical index (a pass too): the lab's path once both are needed
    expect(bm25IndexFrom(lex)).toEqual(buildBm25Index(corpus));
  });

  it('gives an empty corpus avgdl 0 in both indexes, and nothing to rank', () => {
    for (const docs of [[], ['', 'the and of', '!!!']]) {
      const pass = countTermDocs(makeCorpus(docs));
      expect(pass.avgdl).toBe(0);
      const bm25 = bm25IndexFrom(pass);
      const lex = lexicalIndexFrom(pass);
      expect([bm25.avgdl, lex.avgdl]).toEqual([0, 0]);
      expect(searchBm25(bm25, 'alpha', 10).docs).toHaveLength(0);
      expect(searchQl(lex, 'alpha', 10, 1000).docs).toHaveLength(0);
    }
  });

  it('caps tf at 65,535 in BM25 impacts only (the reference caps; query likelihood needs tf itself)', () => {
    const big = makeCorpus([Array.from({ length: 70_000 }, () => 'alpha').join(' '), 'alpha beta']);
    const pass = countTermDocs(big);
    expect(lexicalIndexFrom(pass).postTfs[0]).toBe(70_000);
    const index = bm25IndexFrom(pass);
    const idf = Math.fround(bm25Idf(2, 2));
    const norm = 1.5 * (1 - 0.75 + (0.75 * 70_000) / index.avgdl);
    const d0 = searchBm25(index, 'alpha', 2).scores[0];
    expect(d0).toBe(Math.fround((idf * BM25_MAX_TF * 2.5) / (BM25_MAX_TF + norm)));
  });
});
