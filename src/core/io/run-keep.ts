/**
 * What a run keeps: each query's first documents, how many the run ranks, and where it ranks the judged
 * documents below the cut (`KeptRun`); the one rule for how deep (`keepRule`); cutting a parsed run the same way
 * the streaming reader (run-top.ts) does (`keepTop`); and a kept run as trec_eval sees the whole file
 * (`forEvaluation`), so every measure of a kept run equals the measure on its file.
 */
import type { DocId, QueryId, RankedList, Run } from '../types.ts';
import { asDocId } from './ids.ts';

/** One query of a kept run: its first documents, and what the cut would otherwise lose. */
export interface KeptList extends RankedList {
  /** Documents the run ranks for this query (kept or not). */
  readonly length: number;
  /** Judged documents ranked below the kept ones, with their positions (1-based, in the run's order). */
  readonly tail?: { readonly docs: readonly DocId[]; readonly positions: Int32Array };
}

export interface KeptRun extends Run {
  readonly byQuery: ReadonlyMap<QueryId, KeptList>;
  /** The depth the lists were cut at (the budget's depth when the budget was exceeded). */
  readonly depth: number;
  /** Whether some query had more documents than `depth` (false: the run is whole). */
  readonly cut: boolean;
  /** Lines read (run lines, not comments or blank lines). */
  readonly lines: number;
}

/** Documents a query kept by default: the depth of an ordinary TREC run (so nothing changes for one). */
export const KEEP_WHOLE = 1000;
/** A run holding more documents than this is kept at the largest depth asked instead (memory, not results). */
export const KEEP_BUDGET_DOCS = 2_000_000;
/** The least depth a large run is kept at. */
export const KEEP_LARGE = 100;

/**
 * The one rule for how deep runs are kept, in the CLI and the lab: `keep` documents a query when the user
 * says so (never fewer than the largest depth asked); else up to KEEP_WHOLE, unless the run holds more than
 * KEEP_BUDGET_DOCS documents in all — then the largest depth asked, at least KEEP_LARGE.
 */
export function keepRule(largest: number, keep?: number): Pick<KeepOptions, 'depth' | 'budget'> {
  if (keep !== undefined) return { depth: Math.max(keep, largest) };
  return { depth: Math.max(KEEP_WHOLE, largest), budget: { docs: KEEP_BUDGET_DOCS, depth: Math.max(largest, KEEP_LARGE) } };
}

export interface KeepOptions {
  /** Documents kept per query (≥ 1). */
  readonly depth: number;
  /**
   * A memory budget: once more than `docs` documents are kept in all, every list is cut to `depth` instead
   * (what was kept beyond it moves to the tails), and so is every later query. Without it `depth` holds.
   */
  readonly budget?: { readonly docs: number; readonly depth: number };
  /**
   * The bytes the run will have in all (a plain file's size), when known: with a budget, the first query's
   * bytes per line then tell whether the run will exceed it, and a run that will is cut from its first query
   * on instead of after `budget.docs` documents were kept (and their ids decoded) for nothing.
   */
  readonly sizeHint?: number;
  /** The run's name (default: its tag, as parseRun). */
  readonly name?: string;
  /** Judged documents of a query (qrels), to record their positions below the cut. */
  readonly judged?: (qid: QueryId) => ReadonlyMap<DocId, number> | undefined;
}

/** One kept list cut shorter: the judged documents between the two depths join the front of its tail. */
export function recut(list: KeptList, depth: number, qid: QueryId, judged: KeepOptions['judged']): KeptList {
  if (list.docs.length <= depth) return list;
  const j = judged?.(qid);
  const moved: DocId[] = [];
  const positions: number[] = [];
  if (j !== undefined)
    for (let p = depth; p < list.docs.length; p++)
      if (j.has(list.docs[p]!)) {
        moved.push(list.docs[p]!);
        positions.push(p + 1);
      }
  const tailDocs = [...moved, ...(list.tail?.docs ?? [])];
  const tailPositions = Int32Array.from([...positions, ...(list.tail?.positions ?? [])]);
  const kept = { docs: list.docs.slice(0, depth), scores: list.scores.slice(0, depth), length: list.length };
  return tailDocs.length > 0 ? { ...kept, tail: { docs: tailDocs, positions: tailPositions } } : kept;
}

/** A parsed run's lists cut at `depth`, with the same tails `RunTopReader` records. */
export function keepTop(run: Run, options: KeepOptions): KeptRun {
  const byQuery = new Map<QueryId, KeptList>();
  let cut = false;
  let lines = 0;
  for (const [qid, list] of run.byQuery) {
    const n = list.docs.length;
    lines += n;
    if (n <= options.depth) {
      byQuery.set(qid, { docs: list.docs, scores: list.scores, length: n });
      continue;
    }
    cut = true;
    const judged = options.judged?.(qid);
    const tailDocs: DocId[] = [];
    const positions: number[] = [];
    if (judged !== undefined)
      for (let p = options.depth; p < n; p++)
        if (judged.has(list.docs[p]!)) {
          tailDocs.push(list.docs[p]!);
          positions.push(p + 1);
        }
    const kept = { docs: list.docs.slice(0, options.depth), scores: list.scores.slice(0, options.depth), length: n };
    byQuery.set(qid, tailDocs.length > 0 ? { ...kept, tail: { docs: tailDocs, positions: Int32Array.from(positions) } } : kept);
  }
  const budget = options.budget;
  let kept = 0;
  for (const l of byQuery.values()) kept += l.docs.length;
  if (budget === undefined || kept <= budget.docs || budget.depth >= options.depth)
    return { name: options.name ?? run.name, byQuery, depth: options.depth, cut, lines };
  // Over budget: the whole run at the budget's depth (the streaming reader ends up there too).
  const { budget: _over, ...whole } = options;
  return keepTop(run, { ...whole, depth: budget.depth });
}

/**
 * An id no judgment can name: stands for an unjudged document a cut dropped (a control character leads it).
 * Ids need only differ within a query, so every query shares one string per position (an MS MARCO run
 * would otherwise make 6M strings for one measurement).
 */
const STAND_INS: DocId[] = [];
const standIn = (position: number): DocId => (STAND_INS[position] ??= asDocId(`\u0001cut:${position}`));

/**
 * A kept run as trec_eval sees the whole file, up to `maxRetrieved` documents a query (its -M, 1,000 by
 * default): the kept documents, then down to the list's length the judged documents of its tail at their
 * positions and, between them, stand-ins for the unjudged documents the cut dropped, scored below every kept
 * document in the run's order. So every measure — MAP, recall@1000, bpref, num_ret — equals the measure on the
 * file whenever the run's scores follow its ranks (as runs written by retrievers do). Lists that were not cut
 * are returned as they are.
 */
export function forEvaluation(run: Run, maxRetrieved = 1000): Run {
  let cut = false;
  for (const l of run.byQuery.values()) if ((l.length ?? l.docs.length) > l.docs.length && l.docs.length < maxRetrieved) cut = true;
  if (!cut) return run;
  const byQuery = new Map<QueryId, RankedList>();
  for (const [qid, list] of run.byQuery) {
    const kept = list.docs.length;
    const n = Math.min(list.length ?? kept, maxRetrieved);
    if (n <= kept) {
      byQuery.set(qid, list);
      continue;
    }
    const docs = new Array<DocId>(n);
    for (let i = 0; i < kept; i++) docs[i] = list.docs[i]!;
    const scores = new Float64Array(n);
    scores.set(list.scores);
    let low = Infinity;
    for (let i = 0; i < kept; i++) low = Math.min(low, list.scores[i]!);
    if (!Number.isFinite(low)) low = 0;
    const step = (Math.abs(low) + 1) * 1e-9;
    for (let p = kept + 1; p <= n; p++) {
      docs[p - 1] = standIn(p);
      scores[p - 1] = low - (p - kept) * step;
    }
    const tail = list.tail;
    if (tail)
      for (let j = 0; j < tail.docs.length; j++) {
        const p = tail.positions[j]!;
        if (p > kept && p <= n) docs[p - 1] = tail.docs[j]!;
      }
    byQuery.set(qid, { docs, scores });
  }
  return { name: run.name, byQuery };
}
