/**
 * The index of Anserini's BM25 (`bm25-anserini.ts` says what it reproduces): Lucene's numerics (SmallFloat
 * norms, BM25Similarity's idf, norm cache and term score, all in float) and the build, one field or two, into
 * the shared BM25 postings (`bm25-postings.ts`): documents numbered in their ids' code-point order (Lucene's
 * tie order), each posting's impact its Lucene score for a query weight of 1, and its term frequency kept
 * beside it (a term repeated in the query is scored with the boost inside the formula). A multifield index
 * holds both fields in one postings: the title field's terms follow the contents field's.
 */
import type { Corpus } from '../types.ts';
import { grow } from '../grow.ts';
import { EnglishAnalyzer } from '../text/lucene/english.ts';
import { checkAnseriniParams, type AnseriniParams } from './bm25-anserini-params.ts';
import { checkLayout, layOutPostings, type Bm25LayoutOptions, type Bm25Postings } from './bm25-postings.ts';

const f = Math.fround;

/** Values below this are stored exactly in the one-byte norm (SmallFloat's NUM_FREE_VALUES). */
const NUM_FREE_VALUES = 24;

/** SmallFloat.longToInt4: 4 significant bits, order-preserving. */
function longToInt4(i: number): number {
  const bits = 32 - Math.clz32(i);
  if (bits < 4) return i;
  const shift = bits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

/** SmallFloat.intToByte4 (as an unsigned byte): the norm Lucene stores for a field of `length` tokens. */
export function intToByte4(length: number): number {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`a length must be an integer ≥ 0, got ${length}`);
  return length < NUM_FREE_VALUES ? length : NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

/** SmallFloat.byte4ToInt: the length a stored norm stands for. */
export function byte4ToInt(norm: number): number {
  if (norm < NUM_FREE_VALUES) return norm;
  const i = norm - NUM_FREE_VALUES;
  const shift = (i >>> 3) - 1;
  return NUM_FREE_VALUES + (shift === -1 ? i & 0x07 : ((i & 0x07) | 0x08) * 2 ** shift);
}

/** BM25Similarity.idf, rounded to float. */
export function luceneIdf(df: number, docCount: number): number {
  return f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
}

/** BM25Similarity's per-norm cache: 1f / (k1 · ((1 − b) + b · dl / avgdl)) in float. */
function normCache(k1: number, b: number, avgdl: number): Float32Array {
  const k = f(k1);
  const bb = f(b);
  const oneMinusB = f(1 - bb);
  const cache = new Float32Array(256);
  for (let i = 0; i < 256; i++) cache[i] = f(1 / f(k * f(oneMinusB + f(f(bb * byte4ToInt(i)) / avgdl))));
  return cache;
}

/** BM25Scorer.score: weight − weight / (1 + freq · cache), in float. */
export function termScore(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(freq * normInverse))));
}

// ---------------------------------------------------------------------------------------------------------
// The index.

/** One indexed field's statistics; its postings are the index's terms [termBase, termBase + termCount). */
export interface LuceneField {
  readonly name: 'contents' | 'title';
  /** Term → id, shared by the fields (a term absent from this field has df 0 here). */
  readonly vocabulary: ReadonlyMap<string, number>;
  readonly terms: readonly string[];
  readonly df: Uint32Array;
  /** Term t of this field is term termBase + t of the index's postings. */
  readonly termBase: number;
  /** The largest posting score per term (for a query weight of 1): the order in which clauses are added. */
  readonly maxImpact: Float32Array;
  /** The smallest posting score of the field (Infinity when it has none). */
  readonly minImpact: number;
  /** Norm byte per internal document (0 where the field is empty). */
  readonly norms: Uint8Array;
  /** Documents with at least one token in the field. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly avgdl: number;
  readonly idf: Float32Array;
  readonly normInverse: Float32Array;
  /** The least `normInverse` of the field's documents (Infinity without any): how near 1 a score's denominator comes. */
  readonly minNormInverse: number;
}

/**
 * The shared postings over internal document numbers (N = the documents in the corpus), impacts the float
 * term scores for a query weight of 1, plus what the scorer needs beside them.
 */
export interface AnseriniIndex extends Bm25Postings {
  readonly params: AnseriniParams;
  /** Internal number → corpus index (internal numbers follow the ids' code-point order). */
  readonly corpusIndexOf: Uint32Array;
  /** Corpus index → internal number. */
  readonly internalOf: Uint32Array;
  readonly fields: readonly LuceneField[];
  /** The term frequency of each posting (parallel to `postingDocs`). */
  readonly postingFreqs: Uint32Array;
  /**
   * Every posting scores above 0 (true unless k1 is so large that 1 + freq · cache rounds to 1): a zero sum
   * then means an unmatched document, which the exhaustive search uses to skip bookkeeping.
   */
  readonly positiveScores: boolean;
}

/** Progress and abort, and the shared postings' layout knobs (speed and memory only, never results). */
export interface AnseriniBuildOptions extends Bm25LayoutOptions {
  readonly onProgress?: (done: number, total: number) => void;
  readonly signal?: AbortSignal;
}

const PROGRESS_EVERY_DOCS = 1024;

/** Code-point order of two strings (UTF-16 code-unit order differs only around surrogates). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Indexes `corpus` as Anserini's IndexCollection would (flat or multifield); O(total tokens). */
export function buildAnseriniIndex(corpus: Corpus, params: AnseriniParams, options: AnseriniBuildOptions = {}): AnseriniIndex {
  const p = checkAnseriniParams(params);
  checkLayout(options);
  const n = corpus.ids.length;
  options.signal?.throwIfAborted();
  const corpusIndexOf = Uint32Array.from({ length: n }, (_, i) => i);
  const ids = corpus.ids;
  const asciiIds = ids.every((id) => !/[\ud800-\uffff]/.test(id));
  corpusIndexOf.sort(
    asciiIds ? (x, y) => (ids[x]! < ids[y]! ? -1 : ids[x]! > ids[y]! ? 1 : 0) : (x, y) => compareCodePoints(ids[x]!, ids[y]!),
  );
  const internalOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) internalOf[corpusIndexOf[i]!] = i;

  const analyzer = new EnglishAnalyzer();
  // Flat: BeirFlatCollection's `title + "\n" + text`, scanned as title then text (a line break is never
  // part of a token, so no token spans the two). Multifield: text in `contents`, title in its own field.
  const { titles, texts } = corpus;
  const text =
    p.fields === 'flat'
      ? [{ name: 'contents' as const, of: (d: number) => [titles[d] ?? '', texts[d] ?? ''] as const }]
      : [
          { name: 'contents' as const, of: (d: number) => [texts[d] ?? ''] as const },
          { name: 'title' as const, of: (d: number) => [titles[d] ?? ''] as const },
        ];
  const builders = text.map((t) => new FieldBuilder(t.name, n));
  for (let i = 0; i < n; i++) {
    const d = corpusIndexOf[i]!;
    for (let fi = 0; fi < text.length; fi++) builders[fi]!.add(analyzer, text[fi]!.of(d));
    if ((i + 1) % PROGRESS_EVERY_DOCS === 0) {
      options.signal?.throwIfAborted();
      options.onProgress?.(i + 1, n);
    }
  }
  // One postings for the fields: the title field's terms after the contents field's, each field written
  // straight into its part of the arrays.
  const termCount = analyzer.terms.length;
  const pairs = builders.reduce((sum, b) => sum + b.pairs, 0);
  const into = { postingDocs: new Uint32Array(pairs), postingFreqs: new Uint32Array(pairs), postingImpacts: new Float64Array(pairs) };
  const termOffsets = new Uint32Array(builders.length * termCount + 1);
  let at = 0;
  const fields = builders.map((b, fi) => {
    const field = b.finish(p, analyzer, fi * termCount, into, at, termOffsets);
    at += b.pairs;
    return field;
  });
  const { postingDocs, postingFreqs, postingImpacts } = into;
  const postings = layOutPostings(n, termOffsets, postingDocs, postingImpacts, options, postingFreqs);
  options.onProgress?.(n, n);
  const positiveScores = fields.every((field) => field.minImpact > 0);
  return { ...postings, params: p, corpusIndexOf, internalOf, fields, postingFreqs, positiveScores };
}

/** Collects one field's document-major (term, freq) pairs, then turns them into term-major postings. */
class FieldBuilder {
  #df = new Uint32Array(1024);
  #seenIn = new Uint32Array(1024);
  #pairOf = new Uint32Array(1024);
  #pairTerms = new Uint32Array(4096);
  #pairFreqs = new Uint32Array(4096);
  #pairs = 0;
  readonly #docStart: Uint32Array;
  readonly #lengths: Uint32Array;
  #doc = 0;

  constructor(
    readonly name: 'contents' | 'title',
    docs: number,
  ) {
    this.#docStart = new Uint32Array(docs + 1);
    this.#lengths = new Uint32Array(docs);
  }

  /** (term, document) pairs collected so far: the field's postings. */
  get pairs(): number {
    return this.#pairs;
  }

  add(analyzer: EnglishAnalyzer, parts: readonly string[]): void {
    const d = this.#doc++;
    const mark = d + 1;
    this.#docStart[d] = this.#pairs;
    let count = 0;
    for (const part of parts) count = analyzer.scanInto(part, count);
    const ids = analyzer.ids;
    this.#lengths[d] = count;
    if (analyzer.terms.length > this.#df.length) {
      this.#df = grow(this.#df, analyzer.terms.length);
      this.#seenIn = grow(this.#seenIn, analyzer.terms.length);
      this.#pairOf = grow(this.#pairOf, analyzer.terms.length);
    }
    if (this.#pairs + count > this.#pairTerms.length) {
      this.#pairTerms = grow(this.#pairTerms, this.#pairs + count);
      this.#pairFreqs = grow(this.#pairFreqs, this.#pairs + count);
    }
    const seenIn = this.#seenIn;
    const pairOf = this.#pairOf;
    const pairTerms = this.#pairTerms;
    const pairFreqs = this.#pairFreqs;
    const df = this.#df;
    let pairs = this.#pairs;
    for (let i = 0; i < count; i++) {
      const t = ids[i]!;
      if (seenIn[t] !== mark) {
        seenIn[t] = mark;
        pairOf[t] = pairs;
        pairTerms[pairs] = t;
        pairFreqs[pairs++] = 1;
        df[t]!++;
      } else {
        pairFreqs[pairOf[t]!]!++;
      }
    }
    this.#pairs = pairs;
  }

  /**
   * The field's statistics; its term-major postings (internal numbers ascending within a term) go to `into`
   * from position `at`, as the index's terms termBase.. (their starts to `termOffsets`).
   */
  finish(
    p: AnseriniParams,
    analyzer: EnglishAnalyzer,
    termBase: number,
    into: { readonly postingDocs: Uint32Array; readonly postingFreqs: Uint32Array; readonly postingImpacts: Float64Array },
    at: number,
    termOffsets: Uint32Array,
  ): LuceneField {
    const docs = this.#doc;
    this.#docStart[docs] = this.#pairs;
    const termCount = analyzer.terms.length;
    const df = new Uint32Array(termCount);
    df.set(this.#df.subarray(0, Math.min(termCount, this.#df.length)));
    const termStart = termOffsets.subarray(termBase, termBase + termCount + 1);
    termStart[0] = at;
    for (let t = 0; t < termCount; t++) termStart[t + 1] = termStart[t]! + df[t]!;
    const fill = termStart.slice(0, termCount);
    const { postingDocs, postingFreqs, postingImpacts } = into;
    const norms = new Uint8Array(docs);
    let docCount = 0;
    let sumTotalTermFreq = 0;
    for (let d = 0; d < docs; d++) {
      const length = this.#lengths[d]!;
      norms[d] = intToByte4(length);
      if (length > 0) docCount++;
      sumTotalTermFreq += length;
      for (let x = this.#docStart[d]!; x < this.#docStart[d + 1]!; x++) {
        const at = fill[this.#pairTerms[x]!]!++;
        postingDocs[at] = d;
        postingFreqs[at] = this.#pairFreqs[x]!;
      }
    }
    const avgdl = docCount === 0 ? 0 : f(sumTotalTermFreq / docCount);
    const normInverse = normCache(p.k1, p.b, avgdl);
    let minNormInverse = Infinity;
    for (let d = 0; d < docs; d++)
      if (this.#lengths[d]! > 0 && normInverse[norms[d]!]! < minNormInverse) minNormInverse = normInverse[norms[d]!]!;
    const idf = new Float32Array(termCount);
    for (let t = 0; t < termCount; t++) idf[t] = luceneIdf(df[t]!, docCount);
    const maxImpact = new Float32Array(termCount);
    let minImpact = Infinity;
    for (let t = 0; t < termCount; t++) {
      const w = idf[t]!;
      let max = 0;
      for (let x = termStart[t]!; x < termStart[t + 1]!; x++) {
        const score = termScore(w, postingFreqs[x]!, normInverse[norms[postingDocs[x]!]!]!);
        postingImpacts[x] = score;
        if (score > max) max = score;
        if (score < minImpact) minImpact = score;
      }
      maxImpact[t] = max;
    }
    const field: LuceneField = {
      name: this.name,
      vocabulary: analyzer.vocabulary,
      terms: analyzer.terms,
      df,
      termBase,
      maxImpact,
      minImpact,
      norms,
      docCount,
      sumTotalTermFreq,
      avgdl,
      idf,
      normInverse,
      minNormInverse,
    };
    return field;
  }
}
