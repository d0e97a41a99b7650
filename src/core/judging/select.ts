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
import type { Corpus, DocId, Qrels, Queries, QueryId, Run } from '../types.ts';

export interface PairToJudge {
  readonly qid: QueryId;
  readonly docid: DocId;
  /** 1: a hole behind a flip; 2: another hole in some top k; 'fit' / 'audit': a pair people judged, judged blind. */
  readonly why: 1 | 2 | 'fit' | 'audit';
}

/**
 * The holes in the runs' top k, flips' holes first, at most `budget` (all when undefined). Runs: the reference first.
 * `among`: the queries whose holes count (default: those people judged; with no judgments, the reference's); made
 * queries pass all of theirs, typed ones having no judgment until the model's.
 */
export function holesToJudge(qrels: Qrels, runs: readonly Run[], k: number, budget?: number, among?: readonly QueryId[]): PairToJudge[] {
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
  const queries: readonly QueryId[] = among ?? (qrels.byQuery.size > 0 ? [...qrels.byQuery.keys()] : [...reference.byQuery.keys()]);
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
      list.push({ qid, docid, why: 'fit' });
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
  picked.forEach((p, i) => (i % 2 === 0 ? fit.push(p) : audit.push({ ...p, why: 'audit' })));
  return { fit, audit };
}

/** A pair with the texts a judge reads (the passage as title and text, as a reader of a result page sees it). */
export interface JudgingTask extends PairToJudge {
  readonly query: string;
  readonly passage: string;
}

/** What a judging job is given, and what its grades are held to. */
export interface JudgingPlan {
  /** The blind sample first (fit, then audit), then the holes (flips' first). */
  readonly tasks: JudgingTask[];
  /** People's grade of each sampled pair, by `${qid}\u0000${docid}`. */
  readonly peopleGrades: ReadonlyMap<string, number>;
  /** Pairs sampled to fit thresholds and to audit (some may be unknown to the collection, so not in `tasks`). */
  readonly fit: number;
  readonly audit: number;
  readonly holes: number;
  readonly holesBehindFlips: number;
  /** Pairs naming a query or passage the collection does not have: not judged. */
  readonly unknown: number;
}

export const pairKeyOf = (p: { readonly qid: string; readonly docid: string }): string => `${p.qid}\u0000${p.docid}`;

/**
 * The judging job for a collection, the same in the lab and `fliplab judge`: the audit sample of people's pairs
 * (`audit` pairs: half fit, half audit) and the holes in the runs' top k within `budget`, with their texts.
 */
export function judgingPlan(
  qrels: Qrels,
  runs: readonly Run[],
  corpus: Corpus,
  queries: Queries,
  options: {
    readonly k: number;
    readonly budget?: number;
    readonly audit: number;
    readonly seed?: number;
    /** The queries whose holes count (holesToJudge's `among`). */
    readonly among?: readonly QueryId[];
  },
): JudgingPlan {
  const sample = options.audit > 0 ? auditSample(qrels, options.audit, options.seed) : { fit: [], audit: [] };
  const holes = holesToJudge(qrels, runs, options.k, options.budget, options.among);
  let unknown = 0;
  const task = (p: PairToJudge): JudgingTask | null => {
    const q = queries.indexOf.get(p.qid);
    const at = corpus.indexOf.get(p.docid);
    if (q === undefined || at === undefined) {
      unknown++;
      return null;
    }
    const title = corpus.titles[at] ?? '';
    const text = corpus.texts[at] ?? '';
    return { ...p, query: queries.texts[q] ?? '', passage: title === '' ? text : `${title}. ${text}` };
  };
  const tasks = [...sample.fit, ...sample.audit, ...holes].map(task).filter((t): t is JudgingTask => t !== null);
  const peopleGrades = new Map([...sample.fit, ...sample.audit].map((p) => [pairKeyOf(p), qrels.byQuery.get(p.qid)!.get(p.docid)!]));
  return {
    tasks,
    peopleGrades,
    fit: sample.fit.length,
    audit: sample.audit.length,
    holes: holes.length,
    holesBehindFlips: holes.filter((h) => h.why === 1).length,
    unknown,
  };
}
