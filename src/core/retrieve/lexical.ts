/**
 * Term statistics for the "instant" lexical candidates (query likelihood, RM3): raw term frequencies in
 * both directions, from the term–document pass BM25 is built from (`term-docs.ts`), so they see exactly
 * the tokens BM25 sees.
 *
 * - forward: document → (term, tf), terms in first appearance (feedback models read whole documents): the
 *   pass itself;
 * - inverted: term → (document, tf) postings, documents ascending (scoring): a counting sort of its pairs.
 *
 * Unlike the BM25 index there is no tf cap and no impact precomputation: these retrievers need tf itself.
 * Plain typed arrays and one Map, so the index can be built in (or cloned to) a worker. About 16 bytes per
 * (term, document) pair, half of them the pass's.
 */
import type { Corpus, Queries, QueryId, RankedList, Run } from '../types.ts';
import { tokenize } from '../text/tokenize.ts';
import { countTermDocs, type TermDocs, type TermDocsOptions } from './term-docs.ts';

/** The term–document pass (N, |C|, avgdl, lengths, vocabulary, df, forward pairs) plus the inverted side. */
export interface LexicalIndex extends TermDocs {
  /** Collection frequency: occurrences of each term in the collection. */
  readonly cf: Float64Array;
  /** Length termCount + 1; term t's postings are [postStart[t], postStart[t + 1]). */
  readonly postStart: Uint32Array;
  readonly postDocs: Uint32Array;
  readonly postTfs: Uint32Array;
}

export type LexicalBuildOptions = TermDocsOptions;

/** One term–document pass over the corpus, then its inverted side (`lexicalIndexFrom`). */
export function buildLexicalIndex(corpus: Corpus, options: LexicalBuildOptions = {}): LexicalIndex {
  return lexicalIndexFrom(countTermDocs(corpus, options), options);
}

/**
 * The index over an existing term–document pass (shared, not copied): cf, and a counting sort of the
 * (term, document) pairs by term. O(pairs). Reports (N, N) when done.
 */
export function lexicalIndexFrom(pass: TermDocs, options: Pick<LexicalBuildOptions, 'onProgress'> = {}): LexicalIndex {
  const { docCount: n, df, docStart, docTerms, docTfs } = pass;
  const termCount = df.length;
  const pairs = docStart[n]!;
  const cf = new Float64Array(termCount);
  for (let p = 0; p < pairs; p++) cf[docTerms[p]!]! += docTfs[p]!;
  const postStart = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) postStart[t + 1] = postStart[t]! + df[t]!;
  const fill = postStart.slice(0, termCount);
  const postDocs = new Uint32Array(pairs);
  const postTfs = new Uint32Array(pairs);
  for (let d = 0; d < n; d++) {
    for (let p = docStart[d]!; p < docStart[d + 1]!; p++) {
      const at = fill[docTerms[p]!]!++;
      postDocs[at] = d;
      postTfs[at] = docTfs[p]!;
    }
  }
  options.onProgress?.(n, n);
  return { ...pass, cf, postStart, postDocs, postTfs };
}

/** The query's in-vocabulary terms, each once in first appearance, with its count in the query. */
export function queryTermCounts(index: Pick<TermDocs, 'vocabulary'>, queryText: string): { terms: number[]; counts: number[] } {
  const terms: number[] = [];
  const counts: number[] = [];
  for (const tok of tokenize(queryText)) {
    const t = index.vocabulary.get(tok);
    if (t === undefined) continue;
    const i = terms.indexOf(t);
    if (i >= 0) counts[i]!++;
    else {
      terms.push(t);
      counts.push(1);
    }
  }
  return { terms, counts };
}

/** Scored documents, best first: (score desc, corpus index asc), at most `depth`. */
export interface LexicalHits {
  readonly docs: Uint32Array;
  readonly scores: Float64Array;
}

/**
 * Rank the touched documents (those with a non-zero accumulator flag) by (score desc, index asc). A full
 * sort of the touched set: these retrievers are used on lab-sized collections, where it is a few ms.
 */
export function rankTouched(touched: readonly number[], score: (d: number) => number, depth: number): LexicalHits {
  const scored = touched.map((d) => ({ d, s: score(d) }));
  scored.sort((x, y) => y.s - x.s || x.d - y.d);
  const k = Math.min(depth, scored.length);
  const docs = new Uint32Array(k);
  const scores = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    docs[i] = scored[i]!.d;
    scores[i] = scored[i]!.s;
  }
  return { docs, scores };
}

export function checkLexicalDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1 || depth > 1000) throw new RangeError(`depth must be an integer in [1, 1000], got ${depth}`);
}

/** Shared by the lexical retrievers: a Run from a per-query search. */
export function lexicalRun(
  corpus: Corpus,
  queries: Queries,
  queryIndices: readonly number[],
  name: string,
  search: (text: string) => LexicalHits,
): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const qi of queryIndices) {
    const qid = queries.ids[qi];
    if (qid === undefined) throw new RangeError(`query index ${qi} is outside the ${queries.ids.length} queries`);
    const hits = search(queries.texts[qi] ?? '');
    byQuery.set(qid, { docs: Array.from(hits.docs, (d) => corpus.ids[d]!), scores: hits.scores });
  }
  return { name, byQuery };
}
