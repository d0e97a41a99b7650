/**
 * What a judge is given, in the order that moves the headline first:
 *   1. the holes behind flips — unjudged passages in the candidate's and the reference's top k of the queries a
 *      candidate breaks or fixes when holes count as misses (a hole may be what broke or fixed them);
 *   2. then every other unjudged passage in any run's top k, query by query, rank by rank;
 * within a budget of pairs. Apart from them, a blind sample of the pairs people judged (stratified by grade) is
 * judged too: half fits a cross-encoder's thresholds, half audits the labels (`auditSample`).
 */
import { analyzeFlips } from '../flips/analyze.ts';
import { mulberry32 } from '../random.ts';
import type { DocId, Qrels, QueryId, Run } from '../types.ts';

export interface PairToJudge {
  readonly qid: QueryId;
  readonly docid: DocId;
  /** 1: a hole behind a flip; 2: another hole in some top k; 'sample': a pair people judged, judged blind. */
  readonly why: 1 | 2 | 'sample';
}

/** The holes in the runs' top k, flips' holes first, at most `budget` (all when undefined). Runs: the reference first. */
export function holesToJudge(qrels: Qrels, runs: readonly Run[], k: number, budget?: number): PairToJudge[] {
  if (runs.length === 0) throw new RangeError('expected at least one run');
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const judged = (qid: QueryId, docid: DocId) => qrels.byQuery.get(qid)?.has(docid) === true;
  const out: PairToJudge[] = [];
  const taken = new Set<string>();
  const take = (qid: QueryId, docs: readonly DocId[] | undefined, why: 1 | 2) => {
    for (const docid of (docs ?? []).slice(0, k)) {
      const key = `${qid}\u0000${docid}`;
      if (judged(qid, docid) || taken.has(key)) continue;
      taken.add(key);
      out.push({ qid, docid, why });
    }
  };
  const [reference, ...candidates] = runs as [Run, ...Run[]];
  // The queries the analysis covers: those people judged relevant something for; with no judgments, every query.
  const queries: QueryId[] = qrels.byQuery.size > 0 ? [...qrels.byQuery.keys()] : [...reference.byQuery.keys()];
  if (candidates.length > 0 && hasPositive(qrels)) {
    const report = analyzeFlips(qrels, reference, candidates, { depths: [k], perQuery: true });
    for (const row of report.per_query ?? []) {
      row.candidates.forEach((c, i) => {
        const state = c.states[0];
        if (state !== 'broken' && state !== 'fixed') return;
        const qid = row.qid as QueryId;
        take(qid, candidates[i]!.byQuery.get(qid)?.docs, 1);
        take(qid, reference.byQuery.get(qid)?.docs, 1);
      });
    }
  }
  for (const qid of queries) for (const run of runs) take(qid, run.byQuery.get(qid)?.docs, 2);
  return budget === undefined ? out : out.slice(0, budget);
}

function hasPositive(qrels: Qrels): boolean {
  for (const docs of qrels.byQuery.values()) for (const g of docs.values()) if (g >= 1) return true;
  return false;
}

/**
 * A blind sample of `size` pairs people judged, stratified by grade (each grade in proportion, at least one of
 * each grade there is), drawn with a seeded shuffle, and split in two alternately: `fit` (a cross-encoder's
 * thresholds) and `audit` (the agreement reported). The judge sees only query and passage, never the grade.
 */
export function auditSample(qrels: Qrels, size: number, seed = 42): { fit: PairToJudge[]; audit: PairToJudge[] } {
  const byGrade = new Map<number, PairToJudge[]>();
  for (const [qid, docs] of qrels.byQuery) {
    for (const [docid, grade] of docs) {
      let list = byGrade.get(grade);
      if (list === undefined) byGrade.set(grade, (list = []));
      list.push({ qid, docid, why: 'sample' });
    }
  }
  const total = [...byGrade.values()].reduce((s, l) => s + l.length, 0);
  const random = mulberry32(seed);
  const picked: PairToJudge[] = [];
  for (const grade of [...byGrade.keys()].sort((a, b) => a - b)) {
    const list = byGrade.get(grade)!;
    // Fisher–Yates on the stratum, then its share of the sample.
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    const share = total <= size ? list.length : Math.max(1, Math.round((size * list.length) / total));
    picked.push(...list.slice(0, share));
  }
  const fit: PairToJudge[] = [];
  const audit: PairToJudge[] = [];
  picked.forEach((p, i) => (i % 2 === 0 ? fit : audit).push(p));
  return { fit, audit };
}
