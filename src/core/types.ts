/**
 * Shared data types of the pure core. Everything here is plain data: it crosses worker boundaries
 * (structured clone) and is produced only by `core/io` (ids) or by retrievers (runs).
 */

/** External document id, exactly as written in a corpus, qrels or run file. Minted only by `core/io`. */
export type DocId = string & { readonly __brand: 'DocId' };
/** External query id, exactly as written in a queries, qrels or run file. Minted only by `core/io`. */
export type QueryId = string & { readonly __brand: 'QueryId' };
/** Dense 0-based position of a document in corpus file order; indexes typed arrays. */
export type DocIndex = number & { readonly __brand: 'DocIndex' };

/** A BEIR-style corpus held column-wise; position i is DocIndex i (file order). */
export interface Corpus {
  readonly ids: readonly DocId[];
  readonly titles: readonly string[];
  readonly texts: readonly string[];
  /** DocId → DocIndex, for joining runs and qrels back onto the corpus. */
  readonly indexOf: ReadonlyMap<DocId, DocIndex>;
}

/** Queries in file order. */
export interface Queries {
  readonly ids: readonly QueryId[];
  readonly texts: readonly string[];
  readonly indexOf: ReadonlyMap<QueryId, number>;
}

/**
 * Relevance judgments: per query, judged documents and their integer grades (may be 0 or negative).
 * Queries keep file order (Map insertion order).
 */
export interface Qrels {
  readonly byQuery: ReadonlyMap<QueryId, ReadonlyMap<DocId, number>>;
}

/**
 * One query's ranking in the order the retriever returned it (TREC rank column ascending; file order
 * breaks equal ranks). `scores[i]` belongs to `docs[i]`. No document appears twice.
 */
export interface RankedList {
  readonly docs: readonly DocId[];
  readonly scores: Float64Array;
  /**
   * A list kept to a depth (core/io/run-top.ts: large runs keep each query's top D): the judged documents the
   * run ranks below `docs`, with their 1-based positions, so support ranks stay exact at any depth.
   */
  readonly tail?: { readonly docs: readonly DocId[]; readonly positions: Int32Array };
  /** A list kept to a depth: how many documents the run ranks for the query (`docs.length` otherwise). */
  readonly length?: number;
}

/** A run: ranked lists per query (insertion order = first appearance in the file or retrieval order). */
export interface Run {
  /** The run tag (TREC 6th column) or a name given by the user. */
  readonly name: string;
  readonly byQuery: ReadonlyMap<QueryId, RankedList>;
}

/** Something worth telling the user that did not stop the parse. */
export interface Diagnostic {
  readonly severity: 'warning' | 'error';
  readonly file: string;
  /** 1-based line number, when the problem belongs to one line. */
  readonly line?: number;
  readonly message: string;
}
