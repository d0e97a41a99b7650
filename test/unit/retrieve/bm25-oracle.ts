/**
 * The naive BM25 oracle — the reference script's loop written out over token arrays with no index at all —
 * and a literal nDCG@10: the independent computations the BM25 and lab tests compare against.
 */
import type { Corpus, DocId, DocIndex, Qrels, Queries, QueryId } from '../../../src/core/types.ts';
import { asDocId, asDocIndex, asQueryId } from '../../../src/core/io/ids.ts';
import { passageText } from '../../../src/core/io/beir.ts';
import { tokenize } from '../../../src/core/text/tokenize.ts';
import type { Bm25Params } from '../../../src/core/retrieve/bm25.ts';

export interface OracleCorpus {
  readonly tokens: readonly (readonly string[])[];
  readonly tf: readonly ReadonlyMap<string, number>[];
  readonly df: ReadonlyMap<string, number>;
  readonly avgdl: number;
}

export function oracleCorpus(corpus: Corpus): OracleCorpus {
  const tokens = corpus.ids.map((_, i) => tokenize(passageText(corpus, i)));
  const tf = tokens.map((ts) => {
    const m = new Map<string, number>();
    for (const t of ts) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of tf) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avgdl = tokens.reduce((s, ts) => s + ts.length, 0) / tokens.length;
  return { tokens, tf, df, avgdl };
}

/**
 * For each document: start at 0 and, for every query token in order (repeats included), add
 *   w = idf · tf · (k1 + 1) / (tf + k1 · ((1 − b) + b · dl / avgdl))
 * with idf = ln(1 + (N − df + 0.5)/(df + 0.5)) rounded to float32 and each sum rounded to float32 under
 * 'float32' (the reference's float32 score array), all in the reference's operation order. Rank documents
 * that contain at least one query token by (score desc, index asc).
 */
export function oracleSearch(oc: OracleCorpus, query: string, depth: number, p: Bm25Params): { docs: number[]; scores: number[] } {
  const f32 = p.precision === 'float32';
  const round = f32 ? Math.fround : (x: number) => x;
  const N = oc.tokens.length;
  const q = tokenize(query).filter((t) => oc.df.has(t));
  const hits: { doc: number; score: number }[] = [];
  for (let d = 0; d < N; d++) {
    let score = 0;
    let matched = false;
    for (const t of q) {
      const tf = Math.min(oc.tf[d]!.get(t) ?? 0, 65535);
      if (tf === 0) continue;
      matched = true;
      const df = oc.df.get(t)!;
      const idf = round(Math.log(1 + (N - df + 0.5) / (df + 0.5)));
      const dl = oc.tokens[d]!.length;
      const w = (idf * tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + (p.b * dl) / oc.avgdl));
      score = round(score + w);
    }
    if (matched) hits.push({ doc: d, score });
  }
  hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
  const top = hits.slice(0, depth);
  return { docs: top.map((h) => h.doc), scores: top.map((h) => h.score) };
}

/** nDCG@10 with linear gains (trec_eval ndcg_cut.10): ideal ranking from the judged grades. */
export function ndcgAt10(ranked: readonly string[], judged: ReadonlyMap<DocId, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((d, i) => {
    dcg += Math.max(0, judged.get(d as DocId) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, 10);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Mean nDCG@10 over the queries of a run (each must be judged). */
export function meanNdcgAt10(byQuery: ReadonlyMap<QueryId, { readonly docs: readonly DocId[] }>, qrels: Qrels): number {
  let sum = 0;
  for (const [qid, list] of byQuery) sum += ndcgAt10(list.docs, qrels.byQuery.get(qid)!);
  return sum / byQuery.size;
}

/** A corpus from texts (or [title, text] pairs), ids d0, d1, …. */
export function makeCorpus(docs: readonly (string | readonly [string, string])[]): Corpus {
  const ids: DocId[] = [];
  const titles: string[] = [];
  const texts: string[] = [];
  const indexOf = new Map<DocId, DocIndex>();
  docs.forEach((doc, i) => {
    const id = asDocId(`d${i}`);
    ids.push(id);
    indexOf.set(id, asDocIndex(i));
    titles.push(typeof doc === 'string' ? '' : doc[0]);
    texts.push(typeof doc === 'string' ? doc : doc[1]);
  });
  return { ids, titles, texts, indexOf };
}

export function makeQueries(texts: readonly string[]): Queries {
  const ids: QueryId[] = texts.map((_, i) => asQueryId(`q${i}`));
  return { ids, texts: [...texts], indexOf: new Map(ids.map((id, i) => [id, i])) };
}
