/**
 * Term statistics for the "instant" lexical candidates (query likelihood, RM3): raw term frequencies in
 * both directions, on the paper's text and tokenizer (`passageText`, `tokenize`: lowercase alphanumeric
 * runs, 43 stop words out), so they see exactly the tokens BM25 sees.
 *
 * - inverted: term → (document, tf) postings, documents ascending (scoring);
 * - forward: document → (term, tf), terms in first appearance (feedback models read whole documents).
 *
 * Unlike the BM25 index there is no tf cap and no impact precomputation: these retrievers need tf itself.
 * Plain typed arrays and one Map, so the index can be built in (or cloned to) a worker. About 16 bytes per
 * (term, document) pair.
 */
import type { Corpus, Queries, QueryId, RankedList, Run } from '../types.ts';
import { TermTable } from '../text/term-table.ts';
import { tokenize } from '../text/tokenize.ts';

export interface LexicalIndex {
  /** N: documents, empty ones included. */
  readonly docCount: number;
  /** Tokens in the whole collection, |C| (after stop-word removal). */
  readonly totalTokens: number;
  /** Mean document length over all N documents. */
  readonly avgdl: number;
  readonly docLengths: Uint32Array;
  /** Token → term id; `terms[id]` is the token. Ids follow first appearance in the corpus. */
  readonly vocabulary: ReadonlyMap<string, number>;
  readonly terms: readonly string[];
  /** Documents containing each term. */
  readonly df: Uint32Array;
  /** Collection frequency: occurrences of each term in the collection. */
  readonly cf: Float64Array;
  /** Length termCount + 1; term t's postings are [postStart[t], postStart[t + 1]). */
  readonly postStart: Uint32Array;
  readonly postDocs: Uint32Array;
  readonly postTfs: Uint32Array;
  /** Length N + 1; document d's terms are [docStart[d], docStart[d + 1]). */
  readonly docStart: Uint32Array;
  readonly docTerms: Uint32Array;
  readonly docTfs: Uint32Array;
}

export interface LexicalBuildOptions {
  readonly onProgress?: (done: number, total: number) => void;
  readonly signal?: AbortSignal;
}

const PROGRESS_EVERY_DOCS = 2048;

function grown(a: Uint32Array, need: number): Uint32Array {
  if (need <= a.length) return a;
  const out = new Uint32Array(Math.max(need, Math.ceil(a.length * 1.5)));
  out.set(a);
  return out;
}

/** One pass over the corpus's tokens, then a counting sort of the (term, document) pairs by term. */
export function buildLexicalIndex(corpus: Corpus, options: LexicalBuildOptions = {}): LexicalIndex {
  const n = corpus.ids.length;
  const table = new TermTable();
  let tokens: Uint32Array = new Uint32Array(1024);
  let lastDoc: Int32Array = new Int32Array(1024).fill(-1);
  let slot: Uint32Array = new Uint32Array(1024);
  let docTerms: Uint32Array = new Uint32Array(Math.max(1024, n * 16));
  let docTfs: Uint32Array = new Uint32Array(docTerms.length);
  const docStart = new Uint32Array(n + 1);
  const docLengths = new Uint32Array(n);
  let pairs = 0;
  let total = 0;
  for (let d = 0; d < n; d++) {
    if (d % PROGRESS_EVERY_DOCS === 0) {
      options.signal?.throwIfAborted();
      if (d > 0) options.onProgress?.(d, n);
    }
    // `${title}. ${text}`: ". " is not alphanumeric, so the tokens are the title's then the text's.
    const title = corpus.titles[d] ?? '';
    const text = corpus.texts[d] ?? '';
    tokens = grown(tokens, ((title.length + 1) >> 1) + ((text.length + 1) >> 1));
    const length = table.scanInto(text, tokens, table.scanInto(title, tokens, 0));
    if (table.size > lastDoc.length) {
      const next = new Int32Array(Math.max(table.size, lastDoc.length * 2)).fill(-1);
      next.set(lastDoc);
      lastDoc = next;
      slot = grown(slot, next.length);
    }
    docTerms = grown(docTerms, pairs + length);
    docTfs = grown(docTfs, pairs + length);
    const start = pairs;
    for (let i = 0; i < length; i++) {
      const t = tokens[i]!;
      if (lastDoc[t] !== d) {
        lastDoc[t] = d;
        slot[t] = pairs;
        docTerms[pairs] = t;
        docTfs[pairs++] = 1;
      } else {
        docTfs[slot[t]!]!++;
      }
    }
    docStart[d] = start;
    docLengths[d] = length;
    total += length;
  }
  docStart[n] = pairs;
  const termCount = table.size;
  const df = new Uint32Array(termCount);
  const cf = new Float64Array(termCount);
  for (let p = 0; p < pairs; p++) {
    df[docTerms[p]!]!++;
    cf[docTerms[p]!]! += docTfs[p]!;
  }
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
  return {
    docCount: n,
    totalTokens: total,
    avgdl: n === 0 ? 0 : total / n,
    docLengths,
    vocabulary: table.toMap(),
    terms: table.terms.slice(),
    df,
    cf,
    postStart,
    postDocs,
    postTfs,
    docStart,
    docTerms: docTerms.slice(0, pairs),
    docTfs: docTfs.slice(0, pairs),
  };
}

/** The query's in-vocabulary terms, each once in first appearance, with its count in the query. */
export function queryTermCounts(index: LexicalIndex, queryText: string): { terms: number[]; counts: number[] } {
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
