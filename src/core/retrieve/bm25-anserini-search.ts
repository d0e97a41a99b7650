/**
 * Search over Anserini's BM25 index: the query as Anserini's BagOfWordsQueryGenerator builds it, and the
 * exact top k under Lucene's order (float score descending, then internal number = id order).
 *
 * A document's score is the float of the double sum of its clause scores. Lucene adds the clauses in its
 * scorers' order; both searches here add them in decreasing upper bound. The order can change a double sum
 * in its last bit only, which changes the float only when the sum lies within ~1e-16 of a rounding point
 * between two floats (about one document in 10⁹).
 *
 * Two strategies give identical lists and scores (the tests check it):
 * - 'exhaustive': every posting of every clause into double sums, then selection;
 * - 'maxscore': MaxScore (Turtle & Flood 1995), term at a time. Clauses in decreasing upper bound are read
 *   whole until no unseen document can reach the k-th best lower bound θ; the remaining clauses are then
 *   looked up only for the surviving candidates (by galloping search, or a scan with a mark when a list is
 *   short), and candidates that can no longer reach θ are dropped after each clause. Comparisons are made on
 *   the float a bound rounds to, so a document that could tie the k-th in float (and win on its id) is
 *   never dropped.
 * 'auto' (default) takes the exhaustive search when the query's lists are short for the depth.
 */
import { gallop } from './bm25-search.ts';
import { BM25_MAX_DEPTH } from './bm25-params.ts';
import { termScore, type AnseriniIndex } from './bm25-anserini-index.ts';
import { EnglishAnalyzer } from '../text/lucene/english.ts';
import { kthLargest, TopKHeap } from './topk.ts';

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

export interface AnseriniSearchOptions {
  /** 'auto' (default), 'maxscore' or 'exhaustive': identical results, see the module comment. */
  readonly strategy?: 'auto' | 'maxscore' | 'exhaustive';
}

/** Queries whose lists hold at most this many postings per unit of depth run the exhaustive search. */
const EXHAUSTIVE_POSTINGS_PER_DEPTH = 200;
/** A galloping lookup costs about this many sequential posting reads per log2 of the gap. */
const PROBE_COST_POSTINGS = 3;
/** Relative slack on upper bounds: a double sum of a few floats can exceed the exact sum by far less. */
const BOUND_SLACK = 1 + 1e-12;

/** One clause, resolved against its field: postings [lo, hi) and how to score them. */
interface Clause {
  readonly docs: Uint32Array;
  readonly lo: number;
  readonly hi: number;
  /** Precomputed scores (count 1) or null (computed from freq and norm with `weight`). */
  readonly impacts: Float32Array | null;
  readonly weight: number;
  readonly freqs: Uint32Array;
  readonly norms: Uint8Array;
  readonly normInverse: Float32Array;
  /** No posting scores more than this. */
  readonly bound: number;
  /** The term's dense column (1 + posting position per internal document), if it has one. */
  readonly dense: Uint32Array | null;
}

function clausesOf(index: AnseriniIndex, queryText: string): Clause[] {
  const n = index.docCount;
  const clauses = anseriniQuery(index, queryText).map(({ field: fi, term: t, count }): Clause => {
    const field = index.fields[fi]!;
    const max = field.maxImpact[t]!;
    const column = field.denseColumn[t]!;
    return {
      docs: field.postingDocs,
      lo: field.termStart[t]!,
      hi: field.termStart[t + 1]!,
      impacts: count === 1 ? field.postingImpacts : null,
      weight: f(count * field.idf[t]!),
      freqs: field.postingFreqs,
      norms: field.norms,
      normInverse: field.normInverse,
      // score = weight · (1 − 1/x) with the same x for any count, so count · max bounds it up to rounding
      bound: count === 1 ? max : count * max * (1 + 1e-6),
      dense: column < 0 ? null : field.densePostings.subarray(column * n, (column + 1) * n),
    };
  });
  return clauses.sort((a, b) => b.bound - a.bound);
}

function scoreAt(c: Clause, x: number): number {
  return c.impacts !== null ? c.impacts[x]! : termScore(c.weight, c.freqs[x]!, c.normInverse[c.norms[c.docs[x]!]!]!);
}

interface Scratch {
  /** Double partial sums per internal document; zero between queries. */
  readonly sums: Float64Array;
  /** 1 when touched by this query (2: a live candidate of the pruned phase); zero between queries. */
  readonly state: Uint8Array;
  readonly touched: Uint32Array;
  readonly candidates: Uint32Array;
  readonly histogram: Int32Array;
  readonly work: Float64Array;
  readonly heap: TopKHeap;
}

const scratchOf = new WeakMap<AnseriniIndex, Scratch>();

function scratchFor(index: AnseriniIndex): Scratch {
  let s = scratchOf.get(index);
  if (!s) {
    const n = index.docCount;
    s = {
      sums: new Float64Array(n),
      state: new Uint8Array(n),
      touched: new Uint32Array(n),
      candidates: new Uint32Array(n),
      histogram: new Int32Array(HIST_BUCKETS),
      work: new Float64Array(n),
      heap: new TopKHeap(BM25_MAX_DEPTH),
    };
    scratchOf.set(index, s);
  }
  return s;
}

/**
 * Adds a whole clause into the sums; returns the new touched count. When every score is positive a zero sum
 * marks an untouched document (no separate state to read); otherwise `state` does.
 */
function accumulate(c: Clause, s: Scratch, nTouched: number, positive: boolean): number {
  const { sums, state, touched } = s;
  const docs = c.docs;
  const impacts = c.impacts;
  if (positive && impacts !== null) {
    for (let x = c.lo; x < c.hi; x++) {
      const d = docs[x]!;
      const v = sums[d]!;
      if (v === 0) touched[nTouched++] = d;
      sums[d] = v + impacts[x]!;
    }
  } else {
    for (let x = c.lo; x < c.hi; x++) {
      const d = docs[x]!;
      const v = sums[d]!;
      if (positive ? v === 0 : state[d] === 0) {
        state[d] = 1;
        touched[nTouched++] = d;
      }
      sums[d] = v + scoreAt(c, x);
    }
  }
  return nTouched;
}

/** Buckets of the θ histogram. */
const HIST_BUCKETS = 1024;

/**
 * The k-th largest of sums over `list[0, n)` (k ≤ n; `max` bounds every sum): a histogram finds the bucket
 * that holds it, and a selection among that bucket's sums only gives the exact value. Two passes, no sort.
 */
function kthOf(s: Scratch, list: Uint32Array, n: number, k: number, max: number): number {
  const { sums, histogram, work } = s;
  histogram.fill(0);
  const scale = (HIST_BUCKETS - 1) / max;
  for (let i = 0; i < n; i++) histogram[Math.min(HIST_BUCKETS - 1, Math.floor(sums[list[i]!]! * scale))]!++;
  let above = 0;
  let b = HIST_BUCKETS - 1;
  while (b > 0 && above + histogram[b]! < k) above += histogram[b--]!;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = sums[list[i]!]!;
    if (Math.min(HIST_BUCKETS - 1, Math.floor(v * scale)) === b) work[m++] = v;
  }
  return kthLargest(work, m, k - above);
}

/**
 * The top `depth` (1..1000) documents for `queryText`, as Lucene's IndexSearcher returns them under
 * Anserini's sort (score, then id). Only documents sharing a term are ranked.
 */
export function searchAnserini(index: AnseriniIndex, queryText: string, depth: number, options: AnseriniSearchOptions = {}): AnseriniHits {
  if (!Number.isInteger(depth) || depth < 1 || depth > BM25_MAX_DEPTH) {
    throw new RangeError(`BM25 depth must be an integer in [1, ${BM25_MAX_DEPTH}], got ${depth}`);
  }
  const clauses = clausesOf(index, queryText);
  const s = scratchFor(index);
  const strategy = options.strategy ?? 'auto';
  let postings = 0;
  for (const c of clauses) postings += c.hi - c.lo;
  const pruned = strategy === 'maxscore' || (strategy === 'auto' && postings > EXHAUSTIVE_POSTINGS_PER_DEPTH * depth);

  const positive = index.positiveScores;
  let nTouched = 0;
  let final = s.touched;
  let nFinal: number;
  let next = 0;
  if (!pruned) {
    for (const c of clauses) nTouched = accumulate(c, s, nTouched, positive);
    nFinal = nTouched;
  } else {
    // rest[j]: what clauses j.. can add at most
    const rest = new Float64Array(clauses.length + 1);
    for (let j = clauses.length - 1; j >= 0; j--) rest[j] = rest[j + 1]! + clauses[j]!.bound;
    let theta = -Infinity;
    while (next < clauses.length) {
      nTouched = accumulate(clauses[next]!, s, nTouched, positive);
      next++;
      // θ ≤ what the clauses read so far add at most: no use selecting it while the rest bounds more
      if (next < clauses.length && nTouched >= depth && rest[next]! < rest[0]! - rest[next]!) {
        theta = kthOf(s, s.touched, nTouched, depth, (rest[0]! - rest[next]!) * BOUND_SLACK);
        if (f(rest[next]! * BOUND_SLACK) < f(theta)) break;
      }
    }
    nFinal = nTouched;
    if (next < clauses.length) {
      // Only touched documents can reach the top k now: keep those that still can, in id order.
      const { sums, state, candidates } = s;
      let n = 0;
      const need = f(theta);
      for (let i = 0; i < nTouched; i++) {
        const d = s.touched[i]!;
        if (f((sums[d]! + rest[next]!) * BOUND_SLACK) >= need) candidates[n++] = d;
      }
      let sorted = false;
      for (let j = next; j < clauses.length; j++) {
        const c = clauses[j]!;
        const length = c.hi - c.lo;
        if (c.dense !== null && n < length) {
          const dense = c.dense;
          for (let i = 0; i < n; i++) {
            const d = candidates[i]!;
            const x = dense[d]!;
            if (x !== 0) sums[d] = sums[d]! + scoreAt(c, x - 1);
          }
        } else if (n * PROBE_COST_POSTINGS * Math.max(1, Math.log2(length / n + 1)) < length) {
          if (!sorted) {
            candidates.subarray(0, n).sort();
            sorted = true;
          }
          let x = c.lo;
          for (let i = 0; i < n; i++) {
            const d = candidates[i]!;
            x = gallop(c.docs, x, c.hi, d);
            if (x === c.hi) break;
            if (c.docs[x] === d) sums[d] = sums[d]! + scoreAt(c, x);
          }
        } else {
          for (let i = 0; i < n; i++) state[candidates[i]!] = 2;
          for (let x = c.lo; x < c.hi; x++) {
            const d = c.docs[x]!;
            if (state[d] === 2) sums[d] = sums[d]! + scoreAt(c, x);
          }
          for (let i = 0; i < n; i++) state[candidates[i]!] = 1;
        }
        // Re-prune when the candidates are many and the next list is long enough for it to pay.
        const nextClause = clauses[j + 1];
        if (nextClause !== undefined && n > 2 * depth && nextClause.hi - nextClause.lo > n) {
          const bar = f(kthOf(s, candidates, n, depth, rest[0]! * BOUND_SLACK));
          let kept = 0;
          for (let i = 0; i < n; i++) {
            const d = candidates[i]!;
            if (f((sums[d]! + rest[j + 1]!) * BOUND_SLACK) >= bar) candidates[kept++] = d;
          }
          n = kept;
        }
      }
      final = candidates;
      nFinal = n;
    }
  }

  const heap = s.heap;
  heap.reset(Math.min(depth, Math.max(1, nFinal)));
  let bar = heap.threshold();
  for (let i = 0; i < nFinal; i++) {
    const d = final[i]!;
    const score = f(s.sums[d]!);
    if (score >= bar) {
      heap.push(d, score);
      bar = heap.threshold();
    }
  }
  for (let i = 0; i < nTouched; i++) {
    const d = s.touched[i]!;
    s.sums[d] = 0;
    s.state[d] = 0;
  }
  if (nFinal === 0) return { docs: new Uint32Array(0), scores: new Float32Array(0) };
  const top = heap.drain((k) => new Float32Array(k));
  return { docs: top.indices.map((d) => index.corpusIndexOf[d]!), scores: top.scores };
}
