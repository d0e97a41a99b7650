/**
 * Search over Anserini's BM25 index: the query as Anserini's BagOfWordsQueryGenerator builds it, run by the
 * shared BM25 engine (`bm25-engine.ts`) under Lucene's rule, and the exact top k under Lucene's order (float
 * score descending, then internal number = id order), mapped back to corpus indices. What this scorer plugs
 * into the engine:
 * - slots: one per (field, term) clause, its multiplier the term's count in the query. A step adds the
 *   posting's float score for a query weight of 1 (the index's impact), or, for a term repeated in the query,
 *   BM25Scorer's score with the boost inside the formula (weight = (float) (count · idf)), computed from the
 *   posting's frequency: Lucene does not multiply a score by the count. The pruned search's partial sums
 *   take count × impact instead, and the rule's slack (`boostSlack`) says how far apart the two can be;
 * - steps: each clause once, in decreasing clause bound (the clause's largest score, times a hair over its
 *   count for a repeated term), the order in which both strategies add a document's clause scores;
 * - rule: a document's score is the float of the double sum of its clause scores.
 *
 * Lucene adds the clauses in its scorers' order. The order can change a double sum in its last bit only,
 * which changes the float only when the sum lies within ~1e-16 of a rounding point between two floats
 * (about one document in 10⁹).
 */
import { termScore, type AnseriniIndex, type LuceneField } from './bm25-anserini-index.ts';
import { searchPostings, type Bm25Query, type Bm25ScoreRule, type Bm25SearchOptions } from './bm25-engine.ts';
import { checkDepth } from './bm25-scoring.ts';
import { EnglishAnalyzer } from '../text/lucene/english.ts';

const f = Math.fround;

/** A query as Anserini's BagOfWordsQueryGenerator builds it: each distinct analyzed term, boosted by its count. */
export interface AnseriniQueryTerm {
  readonly field: number;
  readonly term: number;
  /** Occurrences of the term in the analyzed query (Lucene's boost). */
  readonly count: number;
}

const queryAnalyzers = new WeakMap<AnseriniIndex, EnglishAnalyzer>();

/** The query's (field, term, count) clauses, in first-occurrence order; terms the field lacks are left out. */
export function anseriniQuery(index: AnseriniIndex, queryText: string): AnseriniQueryTerm[] {
  let analyzer = queryAnalyzers.get(index);
  if (!analyzer) queryAnalyzers.set(index, (analyzer = new EnglishAnalyzer()));
  const counts = new Map<string, number>();
  for (const t of analyzer.analyze(queryText)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const out: AnseriniQueryTerm[] = [];
  index.fields.forEach((field, fi) => {
    for (const [term, count] of counts) {
      const t = field.vocabulary.get(term);
      if (t !== undefined && field.df[t]! > 0) out.push({ field: fi, term: t, count });
    }
  });
  return out;
}

/** One query's top documents: corpus indices best first and Lucene's float scores. */
export interface AnseriniHits {
  readonly docs: Uint32Array;
  readonly scores: Float32Array;
}

/** 'auto' (default), 'maxscore' or 'exhaustive': identical results (`Bm25SearchOptions`). */
export type AnseriniSearchOptions = Bm25SearchOptions;

/**
 * The query for the engine, and Lucene's rule: the float of the double sum, scores positive unless an extreme
 * k1 rounds some to 0 (then, as when the slack is unbounded, the engine runs the exhaustive search).
 */
function anseriniPlan(index: AnseriniIndex, queryText: string): { query: Bm25Query; rule: Bm25ScoreRule } {
  const clauses = anseriniQuery(index, queryText);
  const slotTerm: number[] = [];
  const slotMult: number[] = [];
  const slotWeight: (((position: number) => number) | null)[] = [];
  const bound: number[] = [];
  let slack = 0;
  for (const { field: fi, term: t, count } of clauses) {
    const field = index.fields[fi]!;
    slotTerm.push(field.termBase + t);
    slotMult.push(count);
    const max = field.maxImpact[t]!;
    // score = weight · (1 − 1/x) with the same x for any count, so count · max bounds it up to rounding
    bound.push(count === 1 ? max : count * max * (1 + 1e-6));
    slotWeight.push(count === 1 ? null : boostedScore(index, field, f(count * field.idf[t]!)));
    if (count > 1) slack = Math.max(slack, boostSlack(field));
  }
  const steps = Int32Array.from(clauses.map((_, i) => i).sort((a, b) => bound[b]! - bound[a]!));
  const positive = index.positiveScores && slack < Infinity;
  return { query: { slotTerm, slotMult, steps, slotWeight }, rule: { accumulate: 'float64', roundFinal: true, positive, slack } };
}

/** BM25Scorer's score of the posting at a position for a clause of weight `weight` (boost · idf, in float). */
function boostedScore(index: AnseriniIndex, field: LuceneField, weight: number): (position: number) => number {
  const { postingDocs, postingFreqs } = index;
  const { norms, normInverse } = field;
  return (x) => termScore(weight, postingFreqs[x]!, normInverse[norms[postingDocs[x]!]!]!);
}

/**
 * How far, relatively, a repeated term's score s_c = f(w − f(w/D)), w = f(c · idf), can lie from c × s_1,
 * its score for c = 1 (D = f(1 + f(freq · cache)), the same for both). With u = 2⁻²⁴, g = D − 1 and
 * w − f(w/D) = (w/D)·(g − e) for the division's rounding |e| ≤ u(1 + 2⁻²⁸): s_c / (c · s_1) lies within
 * 1 ± (4u + 2.3u/g) when g ≥ 2⁻²⁰ (the rounding of w and of the two scores give the 4u; the divisions',
 * amplified by 1/g, the rest). g is least for freq = 1 and the field's least cache; the bound is taken
 * generously as (8 + 4/g)·u. Below that g, unbounded: such a query is not pruned. A test with large k1 (small
 * g) fails without this slack.
 */
function boostSlack(field: LuceneField): number {
  const g = f(1 + field.minNormInverse) - 1;
  return g >= 2 ** -20 ? (8 + 4 / g) * 2 ** -24 : Infinity;
}

/**
 * The top `depth` (1..1000) documents for `queryText`, as Lucene's IndexSearcher returns them under
 * Anserini's sort (score, then id). Only documents sharing a term are ranked.
 */
export function searchAnserini(index: AnseriniIndex, queryText: string, depth: number, options: AnseriniSearchOptions = {}): AnseriniHits {
  checkDepth(depth);
  const { query, rule } = anseriniPlan(index, queryText);
  const hits = searchPostings(index, query, rule, depth, options);
  const corpusIndexOf = index.corpusIndexOf;
  return { docs: hits.docs.map((d) => corpusIndexOf[d]!), scores: hits.scores as Float32Array };
}
