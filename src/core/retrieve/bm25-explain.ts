/**
 * Why a BM25 run scored a document, term by term: one row type for both scorers (the lab's explorer shows
 * either, and the CLI could print either), and the paper's explanation. Anserini's (`explainAnserini` in
 * `bm25-anserini.ts`) returns the same rows, one per Lucene clause.
 */
import { bm25Idf } from './bm25-params.ts';
import { queryTermCounts } from './lexical.ts';
import type { TermDocs } from './term-docs.ts';

/** One query term's (for Anserini: one clause's) part in a document's BM25 score. */
export interface Bm25TermExplanation {
  /** The term as the scorer's analyzer wrote it; "title:term" for the title field of Anserini's multifield documents. */
  readonly term: string;
  /** Occurrences in the analyzed query. */
  readonly count: number;
  /** Occurrences in the document (in the clause's field); 0 when the document lacks the term. */
  readonly tf: number;
  readonly df: number;
  /** As the scorer weighs with it: the paper's rounded to float32, Lucene's float. */
  readonly idf: number;
  /**
   * What the term adds to the score, its count in the query included: count × w(t, d) in float64 for the
   * paper's BM25; Lucene's float clause score (the count is the boost) for Anserini's.
   */
  readonly weight: number;
}

/** A document's score explained: its rows in query order, and the total they make. */
export interface Bm25ScoreExplanation {
  readonly terms: readonly Bm25TermExplanation[];
  /**
   * The paper's: the rows' float64 sum, the run's score up to the reference's float32 rounding of its running
   * total. Anserini's: the rows' double sum rounded to float, Lucene's score (before Anserini's tie adjustment).
   */
  readonly total: number;
}

/**
 * The paper's BM25 of corpus document `d` for `queryText`, per distinct query term in first appearance, from
 * the term–document pass the index is built from: tf, df, the float32 idf and count × w(t, d), the weight
 * computed in the index's operation order.
 */
export function explainBm25(
  pass: TermDocs,
  params: { readonly k1: number; readonly b: number },
  queryText: string,
  d: number,
): Bm25ScoreExplanation {
  if (!Number.isInteger(d) || d < 0 || d >= pass.docCount)
    throw new RangeError(`document index ${d} is outside the ${pass.docCount} documents`);
  const { terms, counts } = queryTermCounts(pass, queryText);
  const tfOf = new Map<number, number>();
  for (let x = pass.docStart[d]!; x < pass.docStart[d + 1]!; x++) tfOf.set(pass.docTerms[x]!, pass.docTfs[x]!);
  const { k1, b } = params;
  const norm = k1 * (1 - b + (b * pass.docLengths[d]!) / pass.avgdl);
  const rows = terms.map((t, i): Bm25TermExplanation => {
    const df = pass.df[t]!;
    const tf = tfOf.get(t) ?? 0;
    const idf = Math.fround(bm25Idf(pass.docCount, df));
    const weight = tf === 0 ? 0 : (idf * tf * (k1 + 1)) / (tf + norm);
    return { term: pass.terms[t]!, count: counts[i]!, tf, df, idf, weight: counts[i]! * weight };
  });
  return { terms: rows, total: rows.reduce((s, r) => s + r.weight, 0) };
}
