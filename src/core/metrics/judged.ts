/**
 * Run-independent facts about one query's judgments, computed once per Qrels object and reused by every
 * evaluation against it (trec_eval recomputes them per query in form_res_rels.c; we cache).
 */
import type { Qrels, QueryId } from '../types.ts';

export interface JudgedQuery {
  /** Distinct non-negative grades present, ascending (trec_eval rel_levels with zero counts dropped). */
  readonly levels: Int32Array;
  /** counts[i] = number of judged documents with grade levels[i]. */
  readonly counts: Int32Array;
  /** Highest non-negative grade + 1, or 0 when none (trec_eval num_rel_levels). */
  readonly numRelLevels: number;
  /** Judgments with grade > 0 (what trec_eval's -c summary of num_rel counts, whatever -l says). */
  readonly numPositive: number;
  /** Grades > 0 sorted descending: the ideal ranking's gains for ndcg, ndcg_cut and ncg_cut. */
  readonly idealGains: Float64Array;
  /** idealDcg[k] = Σ_{i<k} idealGains[i] / log2(i + 2), summed in rank order; length idealGains.length + 1. */
  readonly idealDcg: Float64Array;
  /** idealCg[k] = Σ_{i<k} idealGains[i]; length idealGains.length + 1. */
  readonly idealCg: Float64Array;
}

const cache = new WeakMap<Qrels, Map<QueryId, JudgedQuery>>();

/** Judged documents with grade ≥ level (trec_eval num_rel for `-l level`). */
export function countAtLeast(j: JudgedQuery, level: number): number {
  let n = 0;
  for (let i = 0; i < j.levels.length; i++) if (j.levels[i]! >= level) n += j.counts[i]!;
  return n;
}

/** Judged documents with 0 ≤ grade < level (bpref's judged non-relevant pool). */
export function countBelow(j: JudgedQuery, level: number): number {
  let n = 0;
  for (let i = 0; i < j.levels.length; i++) if (j.levels[i]! < level) n += j.counts[i]!;
  return n;
}

/** Summary of one query's judgments; the DCG/CG prefix sums are computed on first use. */
class Judged implements JudgedQuery {
  private dcg: Float64Array | undefined;
  private cg: Float64Array | undefined;

  constructor(
    readonly levels: Int32Array,
    readonly counts: Int32Array,
    readonly numRelLevels: number,
    readonly numPositive: number,
    readonly idealGains: Float64Array,
  ) {}

  get idealDcg(): Float64Array {
    if (!this.dcg) {
      const g = this.idealGains;
      const out = new Float64Array(g.length + 1);
      for (let i = 0; i < g.length; i++) out[i + 1] = out[i]! + g[i]! / Math.log2(i + 2);
      this.dcg = out;
    }
    return this.dcg;
  }

  get idealCg(): Float64Array {
    if (!this.cg) {
      const g = this.idealGains;
      const out = new Float64Array(g.length + 1);
      for (let i = 0; i < g.length; i++) out[i + 1] = out[i]! + g[i]!;
      this.cg = out;
    }
    return this.cg;
  }
}

/** Summary of one query's judgments from its grades (any order; negative grades are not levels). */
export function summarizeJudgments(grades: Iterable<number>): JudgedQuery {
  const values = Int32Array.from(grades);
  return summarizeGrades(values, 0, values.length);
}

/**
 * The same from grades[from, to): levels by counting (judgment grades are small integers), sorting only
 * when a grade is large.
 */
export function summarizeGrades(grades: Int32Array, from: number, to: number): JudgedQuery {
  let max = -1;
  for (let i = from; i < to; i++) if (grades[i]! > max) max = grades[i]!;
  if (max > 4096) return summarizeBySorting(grades.subarray(from, to));
  const histogram = new Int32Array(max + 1);
  for (let i = from; i < to; i++) {
    const g = grades[i]!;
    if (g >= 0) histogram[g]!++;
  }
  let distinct = 0;
  let positive = 0;
  for (let g = 0; g <= max; g++) {
    if (histogram[g]! > 0) distinct++;
    if (g > 0) positive += histogram[g]!;
  }
  const levels = new Int32Array(distinct);
  const counts = new Int32Array(distinct);
  for (let g = 0, k = 0; g <= max; g++) {
    if (histogram[g]! > 0) {
      levels[k] = g;
      counts[k++] = histogram[g]!;
    }
  }
  const idealGains = new Float64Array(positive);
  for (let g = max, i = 0; g > 0; g--) for (let c = histogram[g]!; c > 0; c--) idealGains[i++] = g;
  const numRelLevels = distinct === 0 ? 0 : levels[distinct - 1]! + 1;
  return new Judged(levels, counts, numRelLevels, positive, idealGains);
}

/** The same for large grades (a histogram would be too big): sort the non-negative grades. */
function summarizeBySorting(grades: Int32Array): JudgedQuery {
  const sorted = Array.from(grades)
    .filter((g) => g >= 0)
    .sort((a, b) => a - b);
  const levels: number[] = [];
  const counts: number[] = [];
  for (const g of sorted) {
    if (levels.length > 0 && levels[levels.length - 1] === g) counts[counts.length - 1]!++;
    else {
      levels.push(g);
      counts.push(1);
    }
  }
  const idealGains = Float64Array.from(sorted.filter((g) => g > 0).reverse());
  const numRelLevels = levels.length === 0 ? 0 : levels[levels.length - 1]! + 1;
  return new Judged(Int32Array.from(levels), Int32Array.from(counts), numRelLevels, idealGains.length, idealGains);
}

/** The cached summary of every query in `qrels`. */
export function judgedQueries(qrels: Qrels): Map<QueryId, JudgedQuery> {
  let m = cache.get(qrels);
  if (!m) {
    m = new Map();
    for (const [qid, grades] of qrels.byQuery) m.set(qid, summarizeJudgments(grades.values()));
    cache.set(qrels, m);
  }
  return m;
}
