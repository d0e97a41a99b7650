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
import { termScore, type AnseriniIndex } from './bm25-anserini-index.ts';
import { anseriniRunName } from './bm25-anserini-params.ts';
import { anseriniQuery, searchAnserini } from './bm25-anserini-search.ts';
import type { Bm25ScoreExplanation } from './bm25-explain.ts';
import { findPosting } from './bm25-postings.ts';

export * from './bm25-anserini-params.ts';
export {
  buildAnseriniIndex,
  byte4ToInt,
  compareCodePoints,
  intToByte4,
  luceneIdf,
  type AnseriniBuildOptions,
  type AnseriniIndex,
  type LuceneField,
} from './bm25-anserini-index.ts';
export {
  anseriniQuery,
  searchAnserini,
  type AnseriniHits,
  type AnseriniQueryTerm,
  type AnseriniSearchOptions,
} from './bm25-anserini-search.ts';
export type { Bm25ScoreExplanation, Bm25TermExplanation } from './bm25-explain.ts';

const f = Math.fround;

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
  if (!Number.isFinite(x) || x < 0) return x.toFixed(6);
  const s = plainDecimal(String(x));
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

/** "5e-7" → "0.0000005", "1.5e+21" → "1500000000000000000000": the shortest digits without an exponent. */
function plainDecimal(s: string): string {
  const e = s.indexOf('e');
  if (e < 0) return s;
  const exp = Number(s.slice(e + 1));
  const mantissa = s.slice(0, e);
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot < 0 ? mantissa.length : dot) + exp;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * The number a `%f` score column holds: `Number(javaFixed6(x))`, without building the string when x·10⁶ is
 * clearly not a half (n / 10⁶ with an exact integer n is the double nearest the decimal, as parsing gives).
 */
export function javaFixed6Value(x: number): number {
  const y = x * 1e6;
  const floor = Math.floor(y);
  const frac = y - floor;
  if (x >= 0 && y < 2 ** 52 && Math.abs(frac - 0.5) > 1e-3) return (frac > 0.5 ? floor + 1 : floor) / 1e6;
  return Number(javaFixed6(x));
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
    const scores = new Float64Array(hits.docs.length);
    for (let i = 0; i < hits.docs.length; i++) {
      const id = corpus.ids[hits.docs[i]!]!;
      if (removeQuery && (id as string) === (qid as string)) continue;
      scores[docs.length] = javaFixed6Value(adjusted[i]!);
      docs.push(id);
    }
    byQuery.set(qid, { docs, scores: docs.length === scores.length ? scores : scores.slice(0, docs.length) });
  }
  return { name, byQuery };
}

// ---------------------------------------------------------------------------------------------------------
// Explanation.

/**
 * Why the index scored corpus document `d` as it did for `queryText`: one row per (field, term) clause, in
 * query order, computed as the search computes it (the row type is the paper's BM25's, `bm25-explain.ts`);
 * the rows' double sum, rounded to float, is the score.
 */
export function explainAnserini(index: AnseriniIndex, queryText: string, d: number): Bm25ScoreExplanation {
  const internal = index.internalOf[d];
  if (internal === undefined) throw new RangeError(`document index ${d} is outside the ${index.docCount} documents`);
  let sum = 0;
  const terms = anseriniQuery(index, queryText).map(({ field: fi, term: t, count }) => {
    const field = index.fields[fi]!;
    const at = findPosting(index, field.termBase + t, internal);
    const tf = at < 0 ? 0 : index.postingFreqs[at]!;
    const weight = tf === 0 ? 0 : termScore(f(count * field.idf[t]!), tf, field.normInverse[field.norms[internal]!]!);
    sum += weight;
    const name = field.name === 'contents' ? field.terms[t]! : `${field.name}:${field.terms[t]!}`;
    return { term: name, count, tf, df: field.df[t]!, idf: field.idf[t]!, weight };
  });
  return { terms, total: f(sum) };
}
