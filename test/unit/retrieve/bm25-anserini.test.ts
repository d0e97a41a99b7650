import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Corpus, DocId, DocIndex, Queries, QueryId } from '../../../src/core/types.ts';
import { asDocId, asDocIndex, asQueryId } from '../../../src/core/io/ids.ts';
import { analyzeEnglish } from '../../../src/core/text/lucene/english.ts';
import {
  ANSERINI_B,
  ANSERINI_K1,
  adjustScoreTies,
  anseriniRunName,
  buildAnseriniIndex,
  byte4ToInt,
  compareCodePoints,
  explainAnserini,
  intToByte4,
  javaFixed6,
  javaFixed6Value,
  luceneIdf,
  parseAnseriniRunName,
  runAnserini,
  searchAnserini,
  type AnseriniParams,
} from '../../../src/core/retrieve/bm25-anserini.ts';

const f = Math.fround;

// ---------------------------------------------------------------------------------------------------------
// SmallFloat (org.apache.lucene.util.SmallFloat): intToByte4 / byte4ToInt

/**
 * The length a norm byte stands for, from SmallFloat's definition rather than its bit tricks: lengths below
 * NUM_FREE_VALUES = 255 − longToInt4(Integer.MAX_VALUE) = 255 − 231 = 24 are stored as they are; above, the
 * value − 24 keeps its 4 most significant bits (it is rounded down to m · 2^e with 8 ≤ m ≤ 15).
 */
function smallFloatLength(n: number): number {
  if (n < 24) return n;
  const i = n - 24;
  if (i < 8) return n;
  const e = Math.floor(Math.log2(i)) - 3;
  return 24 + Math.floor(i / 2 ** e) * 2 ** e;
}

describe('SmallFloat: intToByte4 and byte4ToInt', () => {
  it('lengths 0..39 are exact (24 free values, then 16 with 4 exact bits)', () => {
    for (let n = 0; n <= 39; n++) {
      expect(byte4ToInt(intToByte4(n))).toBe(n);
      expect(intToByte4(n)).toBe(n);
    }
    // 40 = 24 + 16 is the first value with a dropped bit: 41 reads back as 40
    expect(intToByte4(40)).toBe(40);
    expect(intToByte4(41)).toBe(40);
    expect(byte4ToInt(40)).toBe(40);
  });

  it('spot values worked by hand from SmallFloat', () => {
    // byte 255: 24 + int4ToLong(231) = 24 + ((7 | 8) << 27) = 24 + 15 · 2^27
    expect(byte4ToInt(255)).toBe(2013265944);
    // Integer.MAX_VALUE − 24 has 31 bits: shift 27, top bits 1111 → (7 | 28 << 3) = 231 → byte 255
    expect(intToByte4(2 ** 31 - 1)).toBe(255);
    // 100 − 24 = 76 = 1001100b: 7 bits, shift 3, 76 >>> 3 = 9 → (1 | 4 << 3) = 33 → byte 57, read back 24 + 9·8 = 96
    expect(intToByte4(100)).toBe(57);
    expect(byte4ToInt(57)).toBe(96);
    // 1000 − 24 = 976: 10 bits, shift 6, 976 >>> 6 = 15 → (7 | 7 << 3) = 63 → byte 87, read back 24 + 15·64 = 984
    expect(intToByte4(1000)).toBe(87);
    expect(byte4ToInt(87)).toBe(984);
    expect(byte4ToInt(0)).toBe(0);
    expect(byte4ToInt(23)).toBe(23);
  });

  it('every byte survives a round trip, and byte4ToInt is strictly increasing', () => {
    for (let b = 0; b < 256; b++) {
      expect(intToByte4(byte4ToInt(b))).toBe(b);
      if (b > 0) expect(byte4ToInt(b)).toBeGreaterThan(byte4ToInt(b - 1));
    }
  });

  it('intToByte4 is non-decreasing and reads back as the largest storable length ≤ n', () => {
    const wrong: number[] = [];
    let prev = 0;
    for (let n = 0; n <= 200_000; n++) {
      const b = intToByte4(n);
      const back = byte4ToInt(b);
      if (b < prev || back !== smallFloatLength(n) || back > n || (b < 255 && n >= byte4ToInt(b + 1))) wrong.push(n);
      prev = b;
    }
    expect(wrong).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (x, y) => {
        const [lo, hi] = x <= y ? [x, y] : [y, x];
        expect(intToByte4(lo)).toBeLessThanOrEqual(intToByte4(hi));
        expect(byte4ToInt(intToByte4(hi))).toBe(smallFloatLength(hi));
      }),
      { numRuns: 2000, seed: 4 },
    );
  });

  it('rejects lengths that are not integers ≥ 0', () => {
    expect(() => intToByte4(-1)).toThrow(RangeError);
    expect(() => intToByte4(1.5)).toThrow(RangeError);
    expect(() => intToByte4(Number.NaN)).toThrow(RangeError);
  });
});

describe('luceneIdf', () => {
  it('is BM25Similarity.idf rounded to float, positive, and falls as df grows', () => {
    expect(luceneIdf(1, 1)).toBe(f(Math.log(4 / 3)));
    expect(luceneIdf(1, 5)).toBe(f(Math.log(1 + 4.5 / 1.5)));
    let prev = Infinity;
    for (let df = 1; df <= 100; df++) {
      const idf = luceneIdf(df, 100);
      expect(idf).toBeGreaterThan(0);
      expect(idf).toBeLessThan(prev);
      expect(f(idf)).toBe(idf);
      prev = idf;
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// ScoreTiesAdjusterReranker and Java's %f

/**
 * Anserini's ScoreTiesAdjusterReranker.rerank (castorini/anserini main, Lucene 10), with Java's types:
 * `scores` is a float[], and the rounding is done in double ("otherwise we might run into overflow issues"):
 *   scores[i] = (float) (Math.round(scores[i] * 1e4d) / 1e4d);
 *   if (i == 0 || scores[i-1] - scores[i] > 1e-4f) dup = 0; else { dup++; scores[i] -= 1e-6f * dup; }
 * (Older Anserini releases multiplied by 1e4f in float; the regressions fliplab reproduces come from the
 * double form.)
 */
function javaAdjustScoreTies(scores: readonly number[]): number[] {
  const out: number[] = [];
  let dup = 0;
  for (let i = 0; i < scores.length; i++) {
    let s = f(Math.round(f(scores[i]!) * 1e4) / 1e4);
    if (i === 0 || f(out[i - 1]! - s) > f(1e-4)) dup = 0;
    else {
      dup++;
      s = f(s - f(f(1e-6) * dup));
    }
    out.push(s);
  }
  return out;
}

describe('adjustScoreTies', () => {
  it("the example in ScoreTiesAdjusterReranker's comment", () => {
    const got = adjustScoreTies(Float32Array.of(23.439316, 22.087432, 22.087432, 21.602508));
    expect(Array.from(got)).toEqual([f(23.4393), f(22.0874), f(f(22.0874) - f(1e-6)), f(21.6025)]);
    // and as the run file prints them
    expect(Array.from(got, javaFixed6)).toEqual(['23.439301', '22.087400', '22.087399', '21.602501']);
  });

  it('counts a run of ties, and scores within 1e-4 of the adjusted previous one join it', () => {
    // 4.99996 rounds to 5.0000, so it is the fourth of the tie
    const got = adjustScoreTies(Float32Array.of(5, 5, 5, 4.99996, 4.9));
    expect(Array.from(got)).toEqual([5, f(5 - f(1e-6)), f(5 - f(2e-6)), f(5 - f(f(1e-6) * 3)), f(4.9)]);
    // the tie counter restarts after a gap
    expect(Array.from(adjustScoreTies(Float32Array.of(3, 3, 2, 2, 2)))).toEqual([3, f(3 - f(1e-6)), 2, f(2 - f(1e-6)), f(2 - f(2e-6))]);
    expect(adjustScoreTies(new Float32Array(0)).length).toBe(0);
  });

  it('matches a Java-typed oracle on descending runs with many ties', () => {
    const score = fc.oneof(
      fc.integer({ min: 0, max: 400_000 }).map((k) => f(k / 1e4)),
      fc.float({ min: 0, max: 40, noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(fc.array(score, { maxLength: 40 }), fc.array(fc.nat(3), { maxLength: 40 }), (raw, repeats) => {
        const list: number[] = [];
        raw.forEach((s, i) => {
          for (let r = 0; r <= (repeats[i] ?? 0); r++) list.push(s);
        });
        list.sort((a, b) => b - a);
        expect(Array.from(adjustScoreTies(Float32Array.from(list)))).toEqual(javaAdjustScoreTies(list));
      }),
      { numRuns: 1000, seed: 1234 },
    );
  });

  // Where a float product would round the other way: the double product decides, as in Anserini's code.
  it('rounds score · 1e4 in double, not in float (1.3077499866485596 → 1.3077)', () => {
    const s = f(1.3077499866485596);
    expect(s).toBe(1.3077499866485596);
    expect(f(s * 1e4)).toBe(13077.5); // a float product would round up to 1.3078
    expect(adjustScoreTies(Float32Array.of(s))[0]).toBe(f(1.3077));
    // 4.99995f is 4.99994993…: 4.9999 in double, so it starts no tie with 5
    expect(Array.from(adjustScoreTies(Float32Array.of(5, 4.99995)))).toEqual([5, f(4.9999)]);
  });
});

describe('javaFixed6 (Java String.format("%f", float))', () => {
  it('the documented values', () => {
    expect(javaFixed6(0.5)).toBe('0.500000');
    expect(javaFixed6(f(23.4393))).toBe('23.439301');
    expect(javaFixed6(1e-7)).toBe('0.000000');
    // below 1e-6 JavaScript writes an exponent; Java rounds the same shortest digits ("5.0E-7") half up
    expect(javaFixed6(5e-7)).toBe('0.000001');
    expect(javaFixed6(4.9e-7)).toBe('0.000000');
    expect(javaFixed6(0)).toBe('0.000000');
    expect(javaFixed6(12)).toBe('12.000000');
    expect(javaFixed6(1234.5)).toBe('1234.500000');
  });

  it('rounds half up on the shortest decimal form of the (double) value, carrying through nines', () => {
    // the double 9.9999995 prints as "9.9999995": its 7th decimal is 5, so Java rounds up
    expect(javaFixed6(9.9999995)).toBe('10.000000');
    expect(javaFixed6(999999.9999995)).toBe('1000000.000000');
    expect(javaFixed6(0.0000015)).toBe('0.000002');
    // as a float, 9.9999995 is 9.99999904632568…
    expect(javaFixed6(f(9.9999995))).toBe('9.999999');
    // 2^-7 = 0.0078125 exactly: half up
    expect(javaFixed6(2 ** -7)).toBe('0.007813');
  });

  it('for every float, equals the correctly rounded (half-up) decimal of its exact value', () => {
    // a float's exact value is never within a double ulp of a 7th-decimal half without being on it, so
    // Java's half-up on the shortest digits is toFixed(6)'s correct rounding
    fc.assert(
      fc.property(fc.float({ min: 0, max: 1e9, noNaN: true }), (x) => {
        expect(javaFixed6(x)).toBe(x.toFixed(6));
      }),
      { numRuns: 5000, seed: 6 },
    );
  });

  it('javaFixed6Value is the number the %f column holds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.float({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true })), (x) => {
        expect(javaFixed6Value(x)).toBe(Number(javaFixed6(x)));
      }),
      { numRuns: 5000, seed: 8 },
    );
    for (const x of [9.9999995, 0.0000015, 0.5, 2 ** -7, f(22.0874) - f(1e-6)]) expect(javaFixed6Value(x)).toBe(Number(javaFixed6(x)));
  });
});

// ---------------------------------------------------------------------------------------------------------
// Ids in code-point (UTF-8 byte) order

describe('compareCodePoints', () => {
  const sign = (x: number): number => Math.sign(x);
  const utf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

  it('orders U+FF21 before U+1F600 (UTF-16 code units would not), and prefixes first', () => {
    expect(compareCodePoints('\uFF21', '\u{1F600}')).toBeLessThan(0);
    expect('\uFF21' < '\u{1F600}').toBe(false);
    expect(compareCodePoints('\uE000', '\u{10000}')).toBeLessThan(0);
    expect(compareCodePoints('\uD7FF', '\uE000')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('abc', 'abc')).toBe(0);
    expect(compareCodePoints('b', 'abc')).toBeGreaterThan(0);
  });

  it('agrees with the order of UTF-8 bytes on random well-formed strings', () => {
    const char = fc.oneof(
      fc.constantFrom('a', 'z', '\u007F', '\u0080', '\u07FF', '\u0800', '\uD7FF', '\uE000', '\uFF21', '\uFFFF'),
      fc.constantFrom('\u{10000}', '\u{1F600}', '\u{1F601}', '\u{10FFFF}', '\u{20000}'),
    );
    const str = fc.oneof(
      fc.array(char, { maxLength: 6 }).map((cs) => cs.join('')),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    fc.assert(
      fc.property(str, str, (a, b) => {
        expect(sign(compareCodePoints(a, b))).toBe(sign(utf8(a, b)));
        expect(sign(compareCodePoints(b, a))).toBe(sign(utf8(b, a)));
      }),
      { numRuns: 5000, seed: 9 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Run names

describe('anseriniRunName / parseAnseriniRunName', () => {
  it('names the defaults briefly and other parameters in full', () => {
    expect(anseriniRunName({ k1: ANSERINI_K1, b: ANSERINI_B, fields: 'flat' })).toBe('bm25-anserini');
    expect(anseriniRunName({ k1: ANSERINI_K1, b: ANSERINI_B, fields: 'multifield' })).toBe('bm25-anserini-multifield');
    expect(anseriniRunName({ k1: 1.2, b: 0.75, fields: 'flat' })).toBe('bm25-anserini-k1=1.2-b=0.75');
    expect(parseAnseriniRunName('bm25-anserini')).toEqual({ k1: 0.9, b: 0.4, fields: 'flat' });
    expect(parseAnseriniRunName('bm25-anserini-multifield-k1=1.2-b=0.75')).toEqual({ k1: 1.2, b: 0.75, fields: 'multifield' });
  });

  it('round-trips every name it makes for parameters with up to three decimals', () => {
    const params = fc.record({
      k1: fc.integer({ min: 0, max: 5000 }).map((i) => i / 1000),
      b: fc.integer({ min: 0, max: 1000 }).map((i) => i / 1000),
      fields: fc.constantFrom<AnseriniParams['fields']>('flat', 'multifield'),
    });
    fc.assert(
      fc.property(params, (p) => {
        expect(parseAnseriniRunName(anseriniRunName(p))).toEqual(p);
      }),
      { numRuns: 2000, seed: 10 },
    );
  });

  it('round-trips parameters JavaScript writes with an exponent', () => {
    for (const p of [
      { k1: 1e-7, b: 0.5, fields: 'flat' as const },
      { k1: 2e21, b: 5e-7, fields: 'multifield' as const },
    ]) {
      expect(anseriniRunName(p)).toMatch(/e[-+]\d/);
      expect(parseAnseriniRunName(anseriniRunName(p))).toEqual(p);
    }
  });

  it('rejects malformed and non-canonical names', () => {
    for (const name of [
      '',
      'bm25',
      'BM25-anserini',
      'bm25-anserini-',
      'bm25-anserini-flat',
      'bm25-anserini-k1=1.2',
      'bm25-anserini-b=0.5',
      'bm25-anserini-b=0.5-k1=1.2',
      'bm25-anserini-k1=1.2-b=0.75-multifield',
      'bm25-anserini-k1=1.2-b=1.5',
      'bm25-anserini-k1=-1-b=0.5',
      'bm25-anserini-k1=1E-7-b=0.5',
      'bm25-anserini-k1=1e-07-b=0.5',
      'bm25-anserini-k1=01.2-b=0.5',
      'bm25-anserini-k1=1.20-b=0.5',
      'bm25-anserini-k1=.5-b=0.5',
      // the defaults spelled out are not the name anseriniRunName gives them
      'bm25-anserini-k1=0.9-b=0.4',
      ' bm25-anserini',
      'bm25-anserini ',
    ]) {
      expect(parseAnseriniRunName(name), name).toBeNull();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Search and run on a toy corpus, against a naive oracle

function corpusOf(docs: readonly (readonly [id: string, title: string, text: string])[]): Corpus {
  const ids: DocId[] = docs.map(([id]) => asDocId(id));
  return {
    ids,
    titles: docs.map(([, title]) => title),
    texts: docs.map(([, , text]) => text),
    indexOf: new Map<DocId, DocIndex>(ids.map((id, i) => [id, asDocIndex(i)])),
  };
}

function queriesOf(qs: readonly (readonly [id: string, text: string])[]): Queries {
  const ids: QueryId[] = qs.map(([id]) => asQueryId(id));
  return { ids, texts: qs.map(([, t]) => t), indexOf: new Map(ids.map((id, i) => [id, i])) };
}

/**
 * Lucene's BM25 as a plain loop over analyzed token lists: for every document and every distinct query term
 * (boost = its count in the query), weight = boost · idf and
 *   score += weight − weight / (1 + tf · 1 / (k1 · ((1 − b) + b · dl / avgdl)))
 * every operation in float, the per-document sum in double then rounded to float; dl from smallFloatLength.
 * Fields are searched in order (contents, then title), each with its own statistics. Ranked by score, then id
 * in UTF-8 byte order.
 */
function oracleSearch(corpus: Corpus, fields: 'flat' | 'multifield', query: string, depth: number, k1 = 0.9, b = 0.4) {
  const n = corpus.ids.length;
  const fieldTexts: string[][] =
    fields === 'flat'
      ? [corpus.ids.map((_, d) => `${corpus.titles[d]}\n${corpus.texts[d]}`)]
      : [corpus.ids.map((_, d) => corpus.texts[d]!), corpus.ids.map((_, d) => corpus.titles[d]!)];
  const counts = new Map<string, number>();
  for (const t of analyzeEnglish(query)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const sums = new Float64Array(n);
  const matched = new Uint8Array(n);
  for (const texts of fieldTexts) {
    const tokens = texts.map(analyzeEnglish);
    const docCount = tokens.filter((ts) => ts.length > 0).length;
    const avgdl = f(tokens.reduce((s, ts) => s + ts.length, 0) / docCount);
    for (const [term, count] of counts) {
      const df = tokens.filter((ts) => ts.includes(term)).length;
      if (df === 0) continue;
      const idf = f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
      const weight = f(count * idf);
      for (let d = 0; d < n; d++) {
        const tf = tokens[d]!.filter((t) => t === term).length;
        if (tf === 0) continue;
        const dl = smallFloatLength(tokens[d]!.length);
        const cache = f(1 / f(f(k1) * f(f(1 - f(b)) + f(f(f(b) * dl) / avgdl))));
        sums[d] = sums[d]! + f(weight - f(weight / f(1 + f(tf * cache))));
        matched[d] = 1;
      }
    }
  }
  const hits: { doc: number; score: number }[] = [];
  for (let d = 0; d < n; d++) if (matched[d]) hits.push({ doc: d, score: f(sums[d]!) });
  hits.sort(
    (x, y) => y.score - x.score || Buffer.compare(Buffer.from(corpus.ids[x.doc]!, 'utf8'), Buffer.from(corpus.ids[y.doc]!, 'utf8')),
  );
  return hits.slice(0, depth);
}

describe('searchAnserini and runAnserini on a toy corpus', () => {
  // Two identical documents tie; their ids sort differently in UTF-16 and in code points. One document is
  // long enough (> 40 terms) for its norm to be lossy. "d1" is also a query id.
  const filler = Array.from({ length: 45 }, (_, i) => `filler${String.fromCharCode(97 + (i % 26))}${i}`).join(' ');
  const CORPUS = corpusOf([
    ['d3', 'Lucene scoring', 'BM25 scoring in Lucene uses float arithmetic; the scores are floats.'],
    ['d1', '', 'Anserini runs BM25 with k1 0.9 and b 0.4 over Lucene indexes.'],
    ['\u{1F600}', 'Ties', 'Identical documents tie on their score.'],
    ['\uFF21', 'Ties', 'Identical documents tie on their score.'],
    ['d2', 'Long', `Scoring a long document: ${filler} scoring lucene.`],
  ]);
  const QUERIES = queriesOf([
    ['q1', 'lucene scoring'],
    ['q2', 'identical ties score'],
    ['d1', 'Anserini BM25 Lucene'],
    ['q4', 'scoring scoring Lucene floats'],
    ['q5', 'zebra'],
    ['q6', 'the of and'],
    ['q7', "document's ties, Lucene's runs"],
  ]);
  const STRATEGIES = [{}, { strategy: 'exhaustive' }, { strategy: 'maxscore' }] as const;

  for (const fields of ['flat', 'multifield'] as const) {
    describe(fields, () => {
      const index = buildAnseriniIndex(CORPUS, { k1: ANSERINI_K1, b: ANSERINI_B, fields });

      it('ranks and scores every query as the oracle does, at every depth and with every strategy', () => {
        for (const query of QUERIES.texts) {
          for (let depth = 1; depth <= 6; depth++) {
            const want = oracleSearch(CORPUS, fields, query, depth);
            for (const options of STRATEGIES) {
              const got = searchAnserini(index, query, depth, options);
              expect(Array.from(got.docs), `${query} @${depth}`).toEqual(want.map((h) => h.doc));
              expect(Array.from(got.scores), `${query} @${depth}`).toEqual(want.map((h) => h.score));
            }
          }
        }
      });

      it('breaks the tie between identical documents by code point: U+FF21 before U+1F600', () => {
        const got = searchAnserini(index, 'identical ties score', 10);
        const ids = Array.from(got.docs, (d) => CORPUS.ids[d]);
        expect(ids.slice(0, 2)).toEqual(['\uFF21', '\u{1F600}']);
        expect(got.scores[0]).toBe(got.scores[1]);
      });

      it('explainAnserini adds up to the search score', () => {
        for (const query of QUERIES.texts) {
          const got = searchAnserini(index, query, 10);
          got.docs.forEach((d, i) => expect(explainAnserini(index, query, d).total, query).toBe(got.scores[i]));
        }
        // a repeated query term carries its count and a doubled weight
        const e = explainAnserini(index, 'scoring scoring', 0);
        const row = e.terms.find((t) => t.term === 'score')!;
        expect(row.count).toBe(2);
        expect(row.tf).toBeGreaterThan(0);
      });

      it('runAnserini: oracle top depth, tie adjustment, %f values, and -removeQuery', () => {
        const run = runAnserini(index, CORPUS, QUERIES, [0, 1, 2, 3, 4, 5, 6], 5);
        expect(run.name).toBe(fields === 'flat' ? 'bm25-anserini' : 'bm25-anserini-multifield');
        QUERIES.ids.forEach((qid, qi) => {
          const hits = oracleSearch(CORPUS, fields, QUERIES.texts[qi]!, 5);
          const adjusted = javaAdjustScoreTies(hits.map((h) => h.score));
          const want = hits
            .map((h, i) => ({ id: CORPUS.ids[h.doc]!, score: Number(adjusted[i]!.toFixed(6)) }))
            .filter((h) => (h.id as string) !== (qid as string));
          const list = run.byQuery.get(qid)!;
          expect(list.docs, qid).toEqual(want.map((h) => h.id));
          expect(Array.from(list.scores), qid).toEqual(want.map((h) => h.score));
        });
        // the query "d1" finds document d1, which -removeQuery drops (and keeps without it)
        expect(oracleSearch(CORPUS, fields, 'Anserini BM25 Lucene', 5).some((h) => CORPUS.ids[h.doc] === 'd1')).toBe(true);
        expect(run.byQuery.get(asQueryId('d1'))!.docs).not.toContain('d1');
        const kept = runAnserini(index, CORPUS, QUERIES, [2], 5, 'x', { removeQuery: false });
        expect(kept.byQuery.get(asQueryId('d1'))!.docs).toContain('d1');
        // a tie in the run: the second of the two identical documents is 1e-6 lower
        const ties = run.byQuery.get(asQueryId('q2'))!;
        expect(ties.scores[0]! - ties.scores[1]!).toBeCloseTo(1e-6, 9);
        expect(run.byQuery.get(asQueryId('q5'))!.docs).toEqual([]);
        expect(run.byQuery.get(asQueryId('q6'))!.docs).toEqual([]);
      });
    });
  }

  it('the long document really has a lossy norm, and other k1 and b change the scores as the oracle says', () => {
    const longLength = analyzeEnglish(`${CORPUS.titles[4]}\n${CORPUS.texts[4]}`).length;
    expect(longLength).toBeGreaterThan(40);
    expect(smallFloatLength(longLength)).toBeLessThan(longLength);
    const index = buildAnseriniIndex(CORPUS, { k1: 1.2, b: 0.75, fields: 'flat' });
    const want = oracleSearch(CORPUS, 'flat', 'lucene scoring', 5, 1.2, 0.75);
    const got = searchAnserini(index, 'lucene scoring', 5);
    expect(Array.from(got.docs)).toEqual(want.map((h) => h.doc));
    expect(Array.from(got.scores)).toEqual(want.map((h) => h.score));
  });

  it('with a k1 so large that every score rounds to 0, still ranks every matching document, by id', () => {
    // 1 + freq · cache rounds to 1 in float, so weight − weight / 1 = 0: Lucene still returns the matches
    const index = buildAnseriniIndex(CORPUS, { k1: 1e30, b: 0.4, fields: 'flat' });
    expect(index.positiveScores).toBe(false);
    for (const query of ['lucene scoring', 'scoring scoring Lucene floats', 'identical ties score']) {
      const want = oracleSearch(CORPUS, 'flat', query, 5, 1e30, 0.4);
      expect(want.length).toBeGreaterThan(1);
      expect(want.every((h) => h.score === 0)).toBe(true);
      for (const options of STRATEGIES) {
        const got = searchAnserini(index, query, 5, options);
        expect(Array.from(got.docs)).toEqual(want.map((h) => h.doc));
        expect(Array.from(got.scores)).toEqual(want.map((h) => h.score));
      }
    }
  });

  it('random corpora and queries match the oracle', () => {
    const word = fc.constantFrom('lucene', 'scoring', 'score', 'scores', 'the', 'Anserini', 'bm25', 'float', 'Ties', 'tie', "doc's", 'x');
    const text = fc.array(word, { maxLength: 60 }).map((ws) => ws.join(' '));
    const doc = fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), text, text);
    fc.assert(
      fc.property(fc.uniqueArray(doc, { minLength: 1, maxLength: 12, selector: (d) => d[0] }), text, (docs, query) => {
        const corpus = corpusOf(docs);
        for (const fields of ['flat', 'multifield'] as const) {
          const index = buildAnseriniIndex(corpus, { k1: ANSERINI_K1, b: ANSERINI_B, fields });
          const want = oracleSearch(corpus, fields, query, 10);
          for (const options of STRATEGIES) {
            const got = searchAnserini(index, query, 10, options);
            expect(Array.from(got.docs)).toEqual(want.map((h) => h.doc));
            expect(Array.from(got.scores)).toEqual(want.map((h) => h.score));
          }
        }
      }),
      { numRuns: 300, seed: 2024 },
    );
  });
});
