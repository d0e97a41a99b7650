/**
 * trec_eval's ranking of a run's list and the per-query context the kernels read.
 *
 * Order (form_res_rels.c, comp_sim_docno): score descending; equal scores by docid DEScending in
 * strcmp order. The run's rank column is ignored. strcmp compares UTF-8 bytes, which is Unicode code
 * point order; JavaScript's `<` compares UTF-16 code units, which agrees except when a surrogate
 * (U+D800–DFFF, i.e. a character above U+FFFF) meets U+E000–U+FFFF, so `compareUtf8` corrects that case.
 * Docids are ASCII in every TREC collection we know of; the correction only matters beyond that.
 *
 * Judged documents only (`-J`, form_res_rels.c, the same in 10.0 and 9.0.8): after ordering and the `-M`
 * cut, every document with a negative code (not in the qrels, or judged with a negative grade) is dropped
 * and the rest close ranks in their order; num_ret is what is left, and nothing unjudged is counted.
 */
import type { DocId, RankedList } from '../types.ts';
import { grow } from '../grow.ts';
import type { JudgedQuery } from './judged.ts';
import { countAtLeast } from './judged.ts';
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED, type QueryContext } from './measure.ts';
import type { TrecEvalVersion } from './version.ts';

const surrogateFix = (c: number): number => (c < 0xe000 ? c + 0x2000 : c - 0x800);

/** Byte-wise strcmp of the UTF-8 encodings of `a` and `b` (sign only matters). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? surrogateFix(x) - surrogateFix(y) : x - y;
  }
  return a.length - b.length;
}

/** True when `list` already is in trec_eval order (the common case: runs are written by score). */
export function isTrecEvalOrdered(list: RankedList): boolean {
  const { docs, scores } = list;
  for (let i = 1; i < docs.length; i++) {
    const a = scores[i - 1]!;
    const b = scores[i]!;
    if (a > b) continue;
    if (a < b || compareUtf8(docs[i - 1]!, docs[i]!) < 0) return false;
  }
  return true;
}

/**
 * Sort `order` (filled with 0..n−1 here) into trec_eval order: score descending, then docid descending,
 * where `docAfter(x, y)` > 0 when x's docid sorts before y's (so x goes after y). A list already sorted by
 * score (the usual run file) only has its groups of equal scores insertion-sorted (they are short).
 * Shared by the text path (docids as strings) and the byte path (docids as byte ranges).
 */
export function sortScoreThenDoc(order: Uint32Array, scores: Float64Array, docAfter: (x: number, y: number) => number): void {
  const n = order.length;
  for (let i = 0; i < n; i++) order[i] = i;
  let byScore = true;
  for (let i = 1; i < n && byScore; i++) byScore = scores[i - 1]! >= scores[i]!;
  if (!byScore) {
    order.sort((x, y) => {
      const sx = scores[x]!;
      const sy = scores[y]!;
      return sx > sy ? -1 : sx < sy ? 1 : docAfter(x, y);
    });
    return;
  }
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && scores[end] === scores[start]) end++;
    for (let i = start + 1; i < end; i++) {
      const v = order[i]!;
      let j = i - 1;
      while (j >= start && docAfter(order[j]!, v) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = v;
    }
    start = end;
  }
}

/**
 * Positions of `list` in trec_eval order, written into `into` (length ≥ list length) and returned as a
 * view of it, or undefined when the list already is in that order (then nothing is sorted or allocated).
 */
export function trecEvalOrder(list: RankedList, into?: Uint32Array): Uint32Array | undefined {
  if (isTrecEvalOrdered(list)) return undefined;
  const { docs, scores } = list;
  const n = docs.length;
  const order = into && into.length >= n ? into.subarray(0, n) : new Uint32Array(n);
  sortScoreThenDoc(order, scores, (x, y) => compareUtf8(docs[y]!, docs[x]!));
  return order;
}

/** Mutable, reused context: one per evaluate() call, refilled for each query. */
export class ContextBuilder implements QueryContext {
  rels = new Int32Array(1024);
  private order = new Uint32Array(1024);
  private prefix = new Int32Array(1025);
  private prefixValid = false;
  private readonly memos = new Map<(ctx: QueryContext) => unknown, unknown>();
  numRet = 0;
  numRel = 0;
  numRelRet = 0;
  numNonpool = 0;
  numUnjudged = 0;
  judged!: JudgedQuery;

  constructor(
    readonly relevanceLevel: number,
    private readonly maxRetrieved: number,
    readonly version: TrecEvalVersion,
    /** `-J`: drop unjudged documents from each ranking after the `-M` cut (see the module comment). */
    private readonly judgedOnly = false,
  ) {}

  memo<T>(fn: (ctx: QueryContext) => T): T {
    if (this.memos.has(fn)) return this.memos.get(fn) as T;
    const v = fn(this);
    this.memos.set(fn, v);
    return v;
  }

  relevantPrefix(): Int32Array {
    if (this.prefixValid) return this.prefix;
    const n = this.numRet;
    if (this.prefix.length < n + 1) this.prefix = grow(this.prefix, n + 1);
    const { prefix, rels, relevanceLevel: level } = this;
    let count = 0;
    prefix[0] = 0;
    for (let i = 0; i < n; i++) {
      if (rels[i]! >= level) count++;
      prefix[i + 1] = count;
    }
    this.prefixValid = true;
    return prefix;
  }

  /** Make room for `n` relevance codes in `rels` (callers that write codes themselves, then `commit`). */
  reserve(n: number): Int32Array {
    if (this.rels.length < n) this.rels = grow(this.rels, n);
    return this.rels;
  }

  /**
   * Finish a context whose first `n` codes the caller wrote into `rels` (in trec_eval order, truncated);
   * under `-J` the unjudged ones are removed here, in place.
   */
  commit(n: number, judged: JudgedQuery): QueryContext {
    const rels = this.rels;
    if (this.judgedOnly) n = keepJudged(rels, n);
    const level = this.relevanceLevel;
    let relRet = 0;
    let nonpool = 0;
    let unjudged = 0;
    for (let i = 0; i < n; i++) {
      const g = rels[i]!;
      if (g === RELVALUE_NONPOOL) nonpool++;
      else if (g === RELVALUE_UNJUDGED) unjudged++;
      else if (g >= level) relRet++;
    }
    this.numRet = n;
    this.numRelRet = relRet;
    this.numNonpool = nonpool;
    this.numUnjudged = unjudged;
    this.numRel = countAtLeast(judged, level);
    this.judged = judged;
    this.prefixValid = false;
    this.memos.clear();
    return this;
  }

  /** `-M`: how many of a list's documents are evaluated. */
  depthOf(listLength: number): number {
    return Math.min(listLength, this.maxRetrieved);
  }

  /**
   * trec_eval 10.0's placeholder for a judged query without results under -c: a ranking of one document
   * that is in no qrels ("ceci_nest_pas_un_docno", trec_eval.c); under `-J` that document goes too, so
   * the ranking is empty.
   */
  fillPlaceholder(judged: JudgedQuery): QueryContext {
    const n = this.judgedOnly ? 0 : Math.min(1, this.maxRetrieved);
    this.rels[0] = RELVALUE_NONPOOL;
    this.numRet = n;
    this.numRelRet = 0;
    this.numNonpool = n;
    this.numUnjudged = 0;
    this.numRel = countAtLeast(judged, this.relevanceLevel);
    this.judged = judged;
    this.prefixValid = false;
    this.memos.clear();
    return this;
  }

  /** Fill the context for one query: order the list, truncate to maxRetrieved, look up grades (then `commit`). */
  fill(list: RankedList, grades: ReadonlyMap<DocId, number>, judged: JudgedQuery): QueryContext {
    if (this.order.length < list.docs.length) this.order = grow(this.order, list.docs.length);
    const order = trecEvalOrder(list, this.order);
    const n = Math.min(list.docs.length, this.maxRetrieved);
    const rels = this.reserve(n);
    const docs = list.docs;
    for (let i = 0; i < n; i++) {
      const g = grades.get(docs[order === undefined ? i : order[i]!]!);
      rels[i] = g === undefined ? RELVALUE_NONPOOL : g < 0 ? RELVALUE_UNJUDGED : g;
    }
    return this.commit(n, judged);
  }
}

/** Move the judged codes (≥ 0) of rels[0, n) to its front, in order; returns how many there are. */
function keepJudged(rels: Int32Array, n: number): number {
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const g = rels[i]!;
    if (g >= 0) rels[kept++] = g;
  }
  return kept;
}
