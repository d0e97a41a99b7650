/**
 * BM25 as Anserini/Pyserini compute it (`SearchCollection -bm25`, the field's standard baseline), exact to
 * the bit, so that `fliplab bm25 --preset anserini` reproduces Anserini's BEIR regressions:
 *
 * - Analysis: `text/lucene/english.ts` (Anserini's DefaultEnglishAnalyzer: StandardTokenizer, possessives,
 *   lowercase, Lucene's 33 stop words, Porter).
 * - Documents: "flat" is `title + "\n" + text` in one field (BeirFlatCollection's `contents`); "multifield"
 *   indexes `text` as `contents` and `title` as its own field (BeirMultifieldCollection), each with its own
 *   statistics, and a query searches both with weight 1 (`-fields contents=1.0 title=1.0`).
 * - Scoring: Lucene's BM25Similarity (k1 = 0.9, b = 0.4, Anserini's defaults) in float arithmetic, operation
 *   for operation:
 *     idf     = (float) ln(1 + (docCount − df + 0.5) / (df + 0.5))        docCount: documents with the field
 *     avgdl   = (float) (sumTotalTermFreq / docCount)
 *     dl      = byte4ToInt(intToByte4(length))                             the lossy one-byte norm (SmallFloat)
 *     cache   = 1f / (k1 · ((1 − b) + b · dl / avgdl))                     every step rounded to float
 *     weight  = boost · idf                                                boost: the term's count in the query
 *     score   = weight − weight / (1 + freq · cache)
 *   A document's score is the float of the double sum of its (field, term) scores (Lucene flattens the
 *   per-field disjunctions into one).
 * - Ranking: score descending, ties by document id ascending in code-point order (Anserini's
 *   BREAK_SCORE_TIES_BY_DOCID sorts the id field's bytes). Internally documents are numbered in that id
 *   order, so "lower number first" is the tie rule.
 * - Output (`runAnserini`): Anserini's ScoreTiesAdjusterReranker (scores rounded to 4 decimals, then each
 *   score within 1e-4 of the previous one lowered by 1e-6 per tie, in float), `-removeQuery` (a document
 *   whose id is the query's id is dropped after the adjustment), and each score as the number Anserini's run
 *   file says (Java's `%f`, 6 decimals). An evaluation of the run therefore sees exactly Anserini's file.
 */
import type { Corpus, DocId, Queries, QueryId, RankedList, Run } from '../types.ts';
import { grow } from '../grow.ts';
import { EnglishAnalyzer } from '../text/lucene/english.ts';
import { BM25_MAX_DEPTH } from './bm25-params.ts';
import { TopKHeap } from './topk.ts';

export type AnseriniFields = 'flat' | 'multifield';

export interface AnseriniParams {
  readonly k1: number;
  readonly b: number;
  readonly fields: AnseriniFields;
}

/** Anserini's BM25 defaults (SearchCollection `-bm25.k1 0.9 -bm25.b 0.4`). */
export const ANSERINI_K1 = 0.9;
export const ANSERINI_B = 0.4;

/** The CLI's `--preset` values and what each sets. */
export const ANSERINI_PRESETS = {
  anserini: { k1: ANSERINI_K1, b: ANSERINI_B, fields: 'flat' },
  'anserini-multifield': { k1: ANSERINI_K1, b: ANSERINI_B, fields: 'multifield' },
} as const satisfies Record<string, AnseriniParams>;
export type AnseriniPreset = keyof typeof ANSERINI_PRESETS;

export function isAnseriniPreset(name: string): name is AnseriniPreset {
  return Object.hasOwn(ANSERINI_PRESETS, name);
}

/**
 * Run names: "bm25-anserini", "bm25-anserini-multifield", and with other k1/b
 * "bm25-anserini-k1=1.2-b=0.75" (both parameters, like `bm25RunName`).
 */
export function anseriniRunName(p: AnseriniParams): string {
  const base = p.fields === 'flat' ? 'bm25-anserini' : 'bm25-anserini-multifield';
  return p.k1 === ANSERINI_K1 && p.b === ANSERINI_B ? base : `${base}-k1=${p.k1}-b=${p.b}`;
}

/** The parameters behind a name made by `anseriniRunName`; null for any other name. */
export function parseAnseriniRunName(name: string): AnseriniParams | null {
  const m = /^bm25-anserini(-multifield)?(?:-k1=(\d+(?:\.\d+)?)-b=(\d+(?:\.\d+)?))?$/.exec(name);
  if (!m) return null;
  const p: AnseriniParams = {
    fields: m[1] ? 'multifield' : 'flat',
    k1: m[2] === undefined ? ANSERINI_K1 : Number(m[2]),
    b: m[3] === undefined ? ANSERINI_B : Number(m[3]),
  };
  return p.b <= 1 && anseriniRunName(p) === name ? p : null;
}

/** The recipe in words, for reports, exports and the CLI's summary line. */
export function anseriniRecipe(p: AnseriniParams): string {
  const docs = p.fields === 'flat' ? 'title + text in one field' : 'title and text as two fields of weight 1';
  return `Lucene BM25 as Anserini runs it: k1 = ${p.k1}, b = ${p.b}, ${docs}, Anserini's English analyzer (Porter), -removeQuery`;
}

export function checkAnseriniParams(p: AnseriniParams): AnseriniParams {
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${p.k1}`);
  if (!Number.isFinite(p.b) || p.b < 0 || p.b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${p.b}`);
  if (p.fields !== 'flat' && p.fields !== 'multifield')
    throw new RangeError(`fields must be 'flat' or 'multifield', got ${String(p.fields)}`);
  return p;
}

// ---------------------------------------------------------------------------------------------------------
// Lucene's numerics.

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
function termScore(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(freq * normInverse))));
}

// ---------------------------------------------------------------------------------------------------------
// The index.

/** One indexed field: term → postings in internal (id) order, with the field's statistics. */
export interface LuceneField {
  readonly name: 'contents' | 'title';
  readonly vocabulary: ReadonlyMap<string, number>;
  readonly terms: readonly string[];
  readonly df: Uint32Array;
  /** Length termCount + 1: term t's postings are [termStart[t], termStart[t + 1]). */
  readonly termStart: Uint32Array;
  /** Internal document numbers, ascending within a term. */
  readonly postingDocs: Uint32Array;
  readonly postingFreqs: Uint32Array;
  /** The posting's score for a query weight of 1 (a term that occurs once in the query), float. */
  readonly postingImpacts: Float32Array;
  /** Norm byte per internal document (0 where the field is empty). */
  readonly norms: Uint8Array;
  /** Documents with at least one token in the field. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly avgdl: number;
  readonly idf: Float32Array;
  readonly normInverse: Float32Array;
}

export interface AnseriniIndex {
  readonly params: AnseriniParams;
  /** Documents in the corpus. */
  readonly docCount: number;
  /** Internal number → corpus index (internal numbers follow the ids' code-point order). */
  readonly corpusIndexOf: Uint32Array;
  /** Corpus index → internal number. */
  readonly internalOf: Uint32Array;
  readonly fields: readonly LuceneField[];
}

export interface AnseriniBuildOptions {
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
  const text =
    p.fields === 'flat'
      ? [{ name: 'contents' as const, of: (d: number) => `${corpus.titles[d] ?? ''}\n${corpus.texts[d] ?? ''}` }]
      : [
          { name: 'contents' as const, of: (d: number) => corpus.texts[d] ?? '' },
          { name: 'title' as const, of: (d: number) => corpus.titles[d] ?? '' },
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
  const fields = builders.map((b) => b.finish(p));
  options.onProgress?.(n, n);
  return { params: p, docCount: n, corpusIndexOf, internalOf, fields };
}

/** Collects one field's document-major (term, freq) pairs, then turns them into term-major postings. */
class FieldBuilder {
  readonly #vocabulary = new Map<string, number>();
  readonly #terms: string[] = [];
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

  add(analyzer: EnglishAnalyzer, text: string): void {
    const d = this.#doc++;
    const mark = d + 1;
    this.#docStart[d] = this.#pairs;
    let length = 0;
    analyzer.analyze(text, (term) => {
      length++;
      let t = this.#vocabulary.get(term);
      if (t === undefined) {
        t = this.#terms.length;
        this.#vocabulary.set(term, t);
        this.#terms.push(term);
        if (t >= this.#df.length) {
          this.#df = grow(this.#df, t + 1);
          this.#seenIn = grow(this.#seenIn, t + 1);
          this.#pairOf = grow(this.#pairOf, t + 1);
        }
      }
      if (this.#seenIn[t] !== mark) {
        if (this.#pairs === this.#pairTerms.length) {
          this.#pairTerms = grow(this.#pairTerms, this.#pairs + 1);
          this.#pairFreqs = grow(this.#pairFreqs, this.#pairs + 1);
        }
        this.#seenIn[t] = mark;
        this.#pairOf[t] = this.#pairs;
        this.#pairTerms[this.#pairs] = t;
        this.#pairFreqs[this.#pairs++] = 1;
        this.#df[t]!++;
      } else {
        this.#pairFreqs[this.#pairOf[t]!]!++;
      }
    });
    this.#lengths[d] = length;
  }

  finish(p: AnseriniParams): LuceneField {
    const docs = this.#doc;
    this.#docStart[docs] = this.#pairs;
    const termCount = this.#terms.length;
    const df = this.#df.slice(0, termCount);
    const termStart = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) termStart[t + 1] = termStart[t]! + df[t]!;
    const fill = termStart.slice(0, termCount);
    const postingDocs = new Uint32Array(this.#pairs);
    const postingFreqs = new Uint32Array(this.#pairs);
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
    const idf = new Float32Array(termCount);
    for (let t = 0; t < termCount; t++) idf[t] = luceneIdf(df[t]!, docCount);
    const postingImpacts = new Float32Array(this.#pairs);
    for (let t = 0; t < termCount; t++) {
      const w = idf[t]!;
      for (let x = termStart[t]!; x < termStart[t + 1]!; x++)
        postingImpacts[x] = termScore(w, postingFreqs[x]!, normInverse[norms[postingDocs[x]!]!]!);
    }
    return {
      name: this.name,
      vocabulary: this.#vocabulary,
      terms: this.#terms,
      df,
      termStart,
      postingDocs,
      postingFreqs,
      postingImpacts,
      norms,
      docCount,
      sumTotalTermFreq,
      avgdl,
      idf,
      normInverse,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Search.

/** A query as Anserini's BagOfWordsQueryGenerator builds it: each distinct analyzed term, boosted by its count. */
export interface AnseriniQueryTerm {
  readonly field: number;
  readonly term: number;
  /** Occurrences of the term in the analyzed query (Lucene's boost). */
  readonly count: number;
}

const queryAnalyzers = new WeakMap<AnseriniIndex, EnglishAnalyzer>();

/** The query's (field, term, count) clauses, in first-occurrence order; terms no document has are left out. */
export function anseriniQuery(index: AnseriniIndex, queryText: string): AnseriniQueryTerm[] {
  let analyzer = queryAnalyzers.get(index);
  if (!analyzer) queryAnalyzers.set(index, (analyzer = new EnglishAnalyzer()));
  const counts = new Map<string, number>();
  analyzer.analyze(queryText, (t) => counts.set(t, (counts.get(t) ?? 0) + 1));
  const out: AnseriniQueryTerm[] = [];
  index.fields.forEach((field, fi) => {
    for (const [term, count] of counts) {
      const t = field.vocabulary.get(term);
      if (t !== undefined) out.push({ field: fi, term: t, count });
    }
  });
  return out;
}

/** One query's top documents: corpus indices best first and Lucene's float scores. */
export interface AnseriniHits {
  readonly docs: Uint32Array;
  readonly scores: Float32Array;
}

interface Scratch {
  readonly sums: Float64Array;
  readonly seen: Uint8Array;
  readonly touched: Uint32Array;
  readonly heap: TopKHeap;
}

const scratchOf = new WeakMap<AnseriniIndex, Scratch>();

function scratchFor(index: AnseriniIndex): Scratch {
  let s = scratchOf.get(index);
  if (!s) {
    s = {
      sums: new Float64Array(index.docCount),
      seen: new Uint8Array(index.docCount),
      touched: new Uint32Array(index.docCount),
      heap: new TopKHeap(BM25_MAX_DEPTH),
    };
    scratchOf.set(index, s);
  }
  return s;
}

/**
 * The top `depth` (1..1000) documents for `queryText`, as Lucene's IndexSearcher returns them under
 * Anserini's sort (score, then id). Every posting of every query term is read (term at a time into double
 * sums); only documents sharing a term are ranked.
 */
export function searchAnserini(index: AnseriniIndex, queryText: string, depth: number): AnseriniHits {
  if (!Number.isInteger(depth) || depth < 1 || depth > BM25_MAX_DEPTH) {
    throw new RangeError(`BM25 depth must be an integer in [1, ${BM25_MAX_DEPTH}], got ${depth}`);
  }
  const query = anseriniQuery(index, queryText);
  const { sums, seen, touched, heap } = scratchFor(index);
  let nTouched = 0;
  for (const { field: fi, term: t, count } of query) {
    const field = index.fields[fi]!;
    const lo = field.termStart[t]!;
    const hi = field.termStart[t + 1]!;
    const docs = field.postingDocs;
    if (count === 1) {
      const impacts = field.postingImpacts;
      for (let x = lo; x < hi; x++) {
        const d = docs[x]!;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched[nTouched++] = d;
        }
        sums[d] = sums[d]! + impacts[x]!;
      }
    } else {
      const weight = f(count * field.idf[t]!);
      const { postingFreqs, norms, normInverse } = field;
      for (let x = lo; x < hi; x++) {
        const d = docs[x]!;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched[nTouched++] = d;
        }
        sums[d] = sums[d]! + termScore(weight, postingFreqs[x]!, normInverse[norms[d]!]!);
      }
    }
  }
  heap.reset(Math.min(depth, Math.max(1, nTouched)));
  for (let i = 0; i < nTouched; i++) {
    const d = touched[i]!;
    const score = f(sums[d]!);
    sums[d] = 0;
    seen[d] = 0;
    if (score >= heap.threshold()) heap.push(d, score);
  }
  if (nTouched === 0) return { docs: new Uint32Array(0), scores: new Float32Array(0) };
  const top = heap.drain((k) => new Float32Array(k));
  const docs = top.indices.map((d) => index.corpusIndexOf[d]!);
  return { docs, scores: top.scores };
}

/**
 * Anserini's ScoreTiesAdjusterReranker, in Java's float arithmetic: each score rounded to 4 decimals, then
 * a score within 1e-4 of the (adjusted) previous one is lowered by 1e-6 times its position in the tie.
 */
export function adjustScoreTies(scores: Float32Array): Float32Array {
  const out = new Float32Array(scores.length);
  const step = f(1e-6);
  const gap = f(1e-4);
  let dup = 0;
  for (let i = 0; i < scores.length; i++) {
    let s = f(Math.round(scores[i]! * 1e4) / 1e4);
    if (i === 0 || f(out[i - 1]! - s) > gap) dup = 0;
    else {
      dup++;
      s = f(s - f(step * dup));
    }
    out[i] = s;
  }
  return out;
}

/**
 * A float as Java's `String.format("%f", x)` writes it (6 decimals, half-up on the shortest decimal form),
 * the score column of Anserini's run files.
 */
export function javaFixed6(x: number): string {
  const s = String(x);
  if (s.includes('e') || x < 0) return x.toFixed(6);
  const dot = s.indexOf('.');
  if (dot < 0) return `${s}.000000`;
  const frac = s.slice(dot + 1);
  if (frac.length <= 6) return `${s.slice(0, dot)}.${frac.padEnd(6, '0')}`;
  const digits = (s.slice(0, dot) + frac.slice(0, 6)).split('');
  if (frac.charCodeAt(6) >= 0x35) {
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === '9') digits[i--] = '0';
    if (i >= 0) digits[i] = String.fromCharCode(digits[i]!.charCodeAt(0) + 1);
    else digits.unshift('1');
  }
  const whole = digits.slice(0, digits.length - 6).join('');
  return `${whole}.${digits.slice(digits.length - 6).join('')}`;
}

export interface AnseriniRunOptions {
  /** Drop a document whose id equals the query's id (Anserini's `-removeQuery`; the regressions set it). Default true. */
  readonly removeQuery?: boolean;
}

/**
 * The run Anserini's SearchCollection writes for the selected queries (indices into `queries`), in that
 * order: top `depth`, tie-adjusted scores, `-removeQuery`, each score the number its run file holds.
 */
export function runAnserini(
  index: AnseriniIndex,
  corpus: Corpus,
  queries: Queries,
  queryIndices: readonly number[],
  depth: number,
  name = anseriniRunName(index.params),
  options: AnseriniRunOptions = {},
): Run {
  if (corpus.ids.length !== index.docCount) {
    throw new RangeError(`the corpus has ${corpus.ids.length} documents but the BM25 index was built over ${index.docCount}`);
  }
  const removeQuery = options.removeQuery ?? true;
  const byQuery = new Map<QueryId, RankedList>();
  for (const qi of queryIndices) {
    const qid = queries.ids[qi];
    if (qid === undefined) throw new RangeError(`query index ${qi} is outside the ${queries.ids.length} queries`);
    const hits = searchAnserini(index, queries.texts[qi] ?? '', depth);
    const adjusted = adjustScoreTies(hits.scores);
    const docs: DocId[] = [];
    const scores: number[] = [];
    for (let i = 0; i < hits.docs.length; i++) {
      const id = corpus.ids[hits.docs[i]!]!;
      if (removeQuery && (id as string) === (qid as string)) continue;
      docs.push(id);
      scores.push(Number(javaFixed6(adjusted[i]!)));
    }
    byQuery.set(qid, { docs, scores: Float64Array.from(scores) });
  }
  return { name, byQuery };
}

// ---------------------------------------------------------------------------------------------------------
// Explanation.

export interface AnseriniTermExplanation {
  /** The analyzed term; "title:term" for the title field of the multifield index. */
  readonly term: string;
  readonly count: number;
  readonly tf: number;
  readonly df: number;
  readonly idf: number;
  /** What the clause adds to the document's score (Lucene's float term score, boost included). */
  readonly weight: number;
}

/**
 * Why the index scored corpus document `d` as it did for `queryText`: one row per (field, term) clause, in
 * query order, computed as the search computes it; the rows' double sum, rounded to float, is the score.
 */
export function explainAnserini(index: AnseriniIndex, queryText: string, d: number): { terms: AnseriniTermExplanation[]; total: number } {
  const internal = index.internalOf[d];
  if (internal === undefined) throw new RangeError(`document index ${d} is outside the ${index.docCount} documents`);
  let sum = 0;
  const terms = anseriniQuery(index, queryText).map(({ field: fi, term: t, count }) => {
    const field = index.fields[fi]!;
    const lo = field.termStart[t]!;
    const hi = field.termStart[t + 1]!;
    let tf = 0;
    let a = lo;
    let z = hi;
    while (a < z) {
      const mid = (a + z) >>> 1;
      if (field.postingDocs[mid]! < internal) a = mid + 1;
      else z = mid;
    }
    if (a < hi && field.postingDocs[a] === internal) tf = field.postingFreqs[a]!;
    const weight = tf === 0 ? 0 : termScore(f(count * field.idf[t]!), tf, field.normInverse[field.norms[internal]!]!);
    sum += weight;
    const name = field.name === 'contents' ? field.terms[t]! : `${field.name}:${field.terms[t]!}`;
    return { term: name, count, tf, df: field.df[t]!, idf: field.idf[t]!, weight };
  });
  return { terms, total: f(sum) };
}
