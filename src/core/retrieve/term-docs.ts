/**
 * The term–document pass every lexical index is built from: each passage tokenized once, on the paper's
 * text and tokenizer (`passageText`, `tokenize`: lowercase alphanumeric runs, 43 stop words out), into
 * document-major (term, tf) pairs plus the collection statistics. BM25 (`bm25-index.ts`) turns it into
 * impact postings; the instant candidates' index (`lexical.ts`) into raw-tf postings. One pass, so the two
 * see the same tokens, lengths, df and avgdl by construction, and the lab tokenizes a collection once for
 * both (and for every BM25 k1/b it tries).
 *
 * tf is raw (no cap): BM25 applies the reference's 65,535 cap when it computes impacts. Plain typed arrays
 * and one Map, so it can be built in (or cloned to) a worker. 8 bytes per (term, document) pair (up to a
 * quarter more: the pair arrays may be views of their growth buffers, see `fitted`).
 */
import type { Corpus } from '../types.ts';
import { grow } from '../grow.ts';
import { TermTable } from '../text/term-table.ts';

export interface TermDocs {
  /** N: documents, empty ones included. */
  readonly docCount: number;
  /** Tokens in the whole collection, |C| (after stop-word removal). */
  readonly totalTokens: number;
  /**
   * Mean document length over all N documents, empty ones included (the reference's `doc_len.mean()`);
   * 0 for an empty corpus, where no weight ever reads it (see DESIGN.md, BM25).
   */
  readonly avgdl: number;
  /** Tokens per document after stop-word removal. */
  readonly docLengths: Uint32Array;
  /** Token → term id; `terms[id]` is the token. Ids follow first appearance in the corpus. */
  readonly vocabulary: ReadonlyMap<string, number>;
  readonly terms: readonly string[];
  /** Documents containing each term. */
  readonly df: Uint32Array;
  /** Length N + 1; document d's (term, tf) pairs are [docStart[d], docStart[d + 1]), terms in first appearance. */
  readonly docStart: Uint32Array;
  readonly docTerms: Uint32Array;
  readonly docTfs: Uint32Array;
}

export interface TermDocsOptions {
  /** Called every `progressEveryDocs` documents with (done, total); the index built on top reports the end. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Default 2048. */
  readonly progressEveryDocs?: number;
  /** Checked before the first document and at each progress point. */
  readonly signal?: AbortSignal;
}

const PROGRESS_EVERY_DOCS = 2048;
/** About one distinct term per 12 characters of English prose: the first guess at the pair count. */
const CHARS_PER_PAIR = 12;

/** Tokenizes every passage once: O(total tokens), with no string built per token or per passage. */
export function countTermDocs(corpus: Corpus, options: TermDocsOptions = {}): TermDocs {
  const n = corpus.ids.length;
  const every = Math.max(1, options.progressEveryDocs ?? PROGRESS_EVERY_DOCS);
  options.signal?.throwIfAborted();
  const table = new TermTable();
  let chars = 0;
  for (let d = 0; d < n; d++) chars += (corpus.titles[d]?.length ?? 0) + (corpus.texts[d]?.length ?? 0);
  let docTerms: Uint32Array = new Uint32Array(Math.max(1024, Math.ceil(chars / CHARS_PER_PAIR)));
  let docTfs: Uint32Array = new Uint32Array(docTerms.length);
  // Per term: 1 + the last document it was seen in (0: none yet), and where that document's pair is.
  let seenIn: Uint32Array = new Uint32Array(1024);
  let pairOf: Uint32Array = new Uint32Array(1024);
  let df: Uint32Array = new Uint32Array(1024);
  let tokens: Uint32Array = new Uint32Array(1024);
  const docStart = new Uint32Array(n + 1);
  const docLengths = new Uint32Array(n);
  let pairs = 0;
  let total = 0;
  for (let d = 0; d < n; d++) {
    // The passage is `${title}. ${text}`.trim() (passageText); ". " and the trimmed whitespace are not
    // alphanumeric, so its tokens are the title's followed by the text's, without building the string.
    const title = corpus.titles[d] ?? '';
    const text = corpus.texts[d] ?? '';
    const room = ((title.length + 1) >> 1) + ((text.length + 1) >> 1);
    if (tokens.length < room) tokens = grow(tokens, room);
    const length = table.scanInto(text, tokens, table.scanInto(title, tokens, 0));
    if (table.size > seenIn.length) {
      seenIn = grow(seenIn, table.size);
      pairOf = grow(pairOf, table.size);
      df = grow(df, table.size);
    }
    if (pairs + length > docTerms.length) {
      docTerms = grow(docTerms, pairs + length);
      docTfs = grow(docTfs, pairs + length);
    }
    docStart[d] = pairs;
    const mark = d + 1;
    for (let i = 0; i < length; i++) {
      const t = tokens[i]!;
      if (seenIn[t] !== mark) {
        seenIn[t] = mark;
        pairOf[t] = pairs;
        docTerms[pairs] = t;
        docTfs[pairs++] = 1;
        df[t]!++;
      } else {
        docTfs[pairOf[t]!]!++;
      }
    }
    docLengths[d] = length;
    total += length;
    if ((d + 1) % every === 0) {
      options.signal?.throwIfAborted();
      options.onProgress?.(d + 1, n);
    }
  }
  docStart[n] = pairs;
  const termCount = table.size;
  return {
    docCount: n,
    totalTokens: total,
    // Integer sums are exact in float64: the reference's float(doc_len.mean()).
    avgdl: n === 0 ? 0 : total / n,
    docLengths,
    vocabulary: table.toMap(),
    terms: table.terms,
    df: fitted(df, termCount),
    docStart,
    docTerms: fitted(docTerms, pairs),
    docTfs: fitted(docTfs, pairs),
  };
}

/**
 * The first `length` elements: a view when the array is at most a quarter longer, else a trimmed copy.
 * Copying every pair to free so few bytes costs more than it saves: 4% of a FiQA-sized BM25 build (2%
 * slack after doubling), 4–7% of a SciFact one (16%: the first size, one pair per 12 characters, is an
 * overestimate for its prose).
 */
function fitted(array: Uint32Array, length: number): Uint32Array {
  return array.length - length <= array.length >> 2 ? array.subarray(0, length) : array.slice(0, length);
}
