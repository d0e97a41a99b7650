/**
 * The lexical indexes of the open collection, built on first use and kept: the retrievers rank with them and
 * the explorer's explanations read the same ones, so an explanation is of the index the run used.
 */
import {
  anseriniRunName,
  buildAnseriniIndex,
  checkAnseriniParams,
  type AnseriniIndex,
  type AnseriniParams,
} from '../../core/retrieve/bm25-anserini.ts';
import { bm25IndexFrom, resolveBm25Params, type Bm25Index, type Bm25Params } from '../../core/retrieve/bm25.ts';
import { lexicalIndexFrom, type LexicalIndex } from '../../core/retrieve/lexical.ts';
import { countTermDocs, type TermDocs } from '../../core/retrieve/term-docs.ts';
import type { OpenCollection } from './collection.ts';

type Progress = (done: number, total: number) => void;

export class LexicalIndexes {
  readonly #collection: OpenCollection;
  /** The term–document pass the BM25 and lexical indexes are built from: the collection is tokenized once. */
  #terms: TermDocs | null = null;
  /** The last BM25 index (kept while k1/b do not change). */
  #bm25: { key: string; index: Bm25Index } | null = null;
  /** RM3's and QL's index. */
  #lexical: LexicalIndex | null = null;
  /**
   * Lucene/Anserini BM25 indexes (core/retrieve/bm25-anserini.ts: its own analyzer and documents, so nothing is
   * shared with the indexes above), one per parameters, keyed by the run name they make (`anseriniRunName`):
   * built once, kept while a run of theirs is (the explorer's explanations read them).
   */
  readonly #anserini = new Map<string, AnseriniIndex>();

  constructor(collection: OpenCollection) {
    this.#collection = collection;
  }

  /** Forget every index (another collection was opened). */
  clear(): void {
    this.#terms = null;
    this.#bm25 = null;
    this.#lexical = null;
    this.#anserini.clear();
  }

  termDocs(onProgress?: Progress): TermDocs {
    this.#terms ??= countTermDocs(this.#collection.current.corpus, onProgress ? { onProgress } : {});
    return this.#terms;
  }

  /** The BM25 index for these parameters (the last one is kept while k1/b do not change). */
  bm25(params: Partial<Bm25Params>, onProgress?: Progress): Bm25Index {
    const resolved = resolveBm25Params(params);
    const key = JSON.stringify(resolved);
    if (this.#bm25?.key !== key)
      this.#bm25 = { key, index: bm25IndexFrom(this.termDocs(onProgress), resolved, onProgress ? { onProgress } : {}) };
    return this.#bm25.index;
  }

  /** The index RM3 and query likelihood read. */
  lexical(onProgress?: Progress): LexicalIndex {
    this.#lexical ??= lexicalIndexFrom(this.termDocs(onProgress), onProgress ? { onProgress } : {});
    return this.#lexical;
  }

  /** The Lucene/Anserini index for these parameters, built on first use (refused with a RangeError when out of range). */
  anserini(params: AnseriniParams, onProgress?: Progress): AnseriniIndex {
    const p = checkAnseriniParams(params);
    const key = anseriniRunName(p);
    let index = this.#anserini.get(key);
    if (index === undefined) {
      index = buildAnseriniIndex(this.#collection.current.corpus, p, onProgress ? { onProgress } : {});
      this.#anserini.set(key, index);
    }
    return index;
  }

  /** Drop the Anserini index keyed `name` (its run was removed); nothing when there is none. */
  dropAnserini(name: string): void {
    this.#anserini.delete(name);
  }
}
