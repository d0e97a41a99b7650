/**
 * The engine's explorer: one query side by side (its judgments and each run's top k, with titles and grades),
 * why a lexical run scored a passage, and what RM3 searched for. The explanations read the retrievers'
 * lexical indexes, so they explain the index the run was ranked with. No state of its own.
 */
import { explainAnserini, parseAnseriniRunName } from '../../core/retrieve/bm25-anserini.ts';
import { explainBm25, parseBm25RunName, searchBm25 } from '../../core/retrieve/bm25.ts';
import { explainQl, parseQlRunName } from '../../core/retrieve/ql.ts';
import { parseRm3RunName, rm3Expand, type ExpandedQuery } from '../../core/retrieve/rm3.ts';
import type { DocId, QueryId } from '../../core/types.ts';
import type { AnseriniExplanation, Bm25Explanation, QlExplanation, QueryDetail, RankedDoc, TermExplanation } from '../../lab/types.ts';
import type { OpenCollection } from './collection.ts';
import type { Judgments } from './judgments.ts';
import type { Retrievers } from './retrievers.ts';

export class Explorer {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = ['detail', 'explain', 'explainBm25', 'rm3Expansion'] as const satisfies readonly (keyof Explorer)[];

  readonly #collection: OpenCollection;
  readonly #judgments: Judgments;
  readonly #retrievers: Retrievers;

  constructor(collection: OpenCollection, judgments: Judgments, retrievers: Retrievers) {
    this.#collection = collection;
    this.#judgments = judgments;
    this.#retrievers = retrievers;
  }

  /** One query: its judgments and the top-k of each named run, with titles and grades. */
  detail(qid: string, runs: readonly string[], k: number): QueryDetail {
    const c = this.#collection.current;
    const q = c.queries.indexOf.get(qid as QueryId);
    const judgments = this.#judgments.qrels()?.byQuery.get(qid as QueryId);
    const added = this.#judgments.addedFor(qid as QueryId);
    const model = this.#judgments.modelFor(qid as QueryId);
    const gradeOf = (d: DocId): number | null => judgments?.get(d) ?? null;
    const lists = runs.map((name) => {
      const list = this.#retrievers.run(name).byQuery.get(qid as QueryId);
      const docs: RankedDoc[] = [];
      let firstRelevant: number | null = null;
      const n = Math.min(k, list?.docs.length ?? 0);
      for (let r = 0; r < (list?.docs.length ?? 0); r++) {
        const docId = list!.docs[r]!;
        const grade = gradeOf(docId);
        if (firstRelevant === null && grade !== null && grade > 0) firstRelevant = r + 1;
        if (r < n) {
          const i = c.corpus.indexOf.get(docId);
          const title = i === undefined ? '' : (c.corpus.titles[i] ?? '');
          docs.push({
            docId,
            rank: r + 1,
            score: list!.scores[r]!,
            title,
            grade,
            added: added?.has(docId) === true,
            ...(model?.has(docId) === true ? { model: true } : {}),
          });
        }
      }
      return { run: name, docs, firstRelevant };
    });
    return {
      qid,
      text: q === undefined ? '' : (c.queries.texts[q] ?? ''),
      judged: [...(judgments ?? new Map<DocId, number>())].map(([docId, grade]) => ({ docId, grade })),
      lists,
    };
  }

  /** The per-term explanation of `run`'s score (BM25, BM25 (Anserini) or query likelihood); null for other runs. */
  explain(qid: string, docId: string, run: string): TermExplanation | null {
    return this.explainBm25(qid, docId, run) ?? this.explainAnserini(qid, docId, run) ?? this.explainQl(qid, docId, run);
  }

  /** The query's text and the passage's corpus index; null when either is unknown. */
  #find(qid: string, docId: string): { text: string; doc: number } | null {
    const c = this.#collection.current;
    const qi = c.queries.indexOf.get(qid as QueryId);
    const doc = c.corpus.indexOf.get(docId as DocId);
    return qi === undefined || doc === undefined ? null : { text: c.queries.texts[qi] ?? '', doc };
  }

  /**
   * Why a BM25 run scored a document: each distinct query term's tf, df, idf and weight (times its count in
   * the query), for the explorer (core/retrieve/bm25-explain.ts `explainBm25`, from the term–document pass).
   * Null when `run` is not a BM25 run or the query or document is unknown. Weights follow the paper's formula
   * with the float32 idf; their sum equals the run's score up to the reference's float32 rounding of the
   * running total.
   */
  explainBm25(qid: string, docId: string, run: string): Bm25Explanation | null {
    const params = parseBm25RunName(run);
    const found = this.#find(qid, docId);
    if (params === null || found === null) return null;
    return { kind: 'bm25', run, ...explainBm25(this.#retrievers.indexes.termDocs(), params, found.text, found.doc) };
  }

  /**
   * Why a query-likelihood run scored a document: each distinct query term's share and the length term,
   * computed as the ranker computes them (core/retrieve/ql.ts `explainQl`: they sum to the run's score).
   * Null when `run` is not a QL run or the query or document is unknown.
   */
  explainQl(qid: string, docId: string, run: string): QlExplanation | null {
    const params = parseQlRunName(run);
    const found = this.#find(qid, docId);
    if (params === null || found === null) return null;
    return { kind: 'ql', run, ...explainQl(this.#retrievers.indexes.lexical(), found.text, found.doc, params.mu) };
  }

  /**
   * Why a BM25 (Anserini) run scored a document: one row per (field, term) clause of the Lucene query, with
   * Lucene's float score of each (core/retrieve/bm25-anserini.ts `explainAnserini`). `total` is Lucene's score,
   * before Anserini's tie adjustment (4 decimals) that the run's scores went through. Null when `run` is not a
   * BM25 (Anserini) run of this lab or the query or document is unknown.
   */
  explainAnserini(qid: string, docId: string, run: string): AnseriniExplanation | null {
    const params = parseAnseriniRunName(run);
    const found = this.#find(qid, docId);
    if (params === null || found === null || !this.#retrievers.has(run)) return null;
    const { terms, total } = explainAnserini(this.#retrievers.indexes.anserini(params), found.text, found.doc);
    return { kind: 'anserini', run, fields: params.fields, terms, total };
  }

  /**
   * What RM3 searched for one query: the expanded query's terms and weights (token order), for the explorer.
   * Null when `run` is not an RM3 run or the query is unknown.
   */
  rm3Expansion(qid: string, run: string): ExpandedQuery | null {
    const params = parseRm3RunName(run);
    const c = this.#collection.current;
    const qi = c.queries.indexOf.get(qid as QueryId);
    if (params === null || qi === undefined) return null;
    const lexical = this.#retrievers.indexes.lexical();
    const text = c.queries.texts[qi] ?? '';
    const first = searchBm25(this.#retrievers.indexes.bm25({ k1: params.k1, b: params.b }), text, params.fbDocs);
    return rm3Expand(lexical, text, first, params);
  }
}
