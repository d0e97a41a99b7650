/**
 * `fliplab eval`'s fast path: evaluate a TREC run straight from its bytes, without turning a million lines
 * into strings and Maps. Same numbers as `evaluate(qrels, parseRun(bytes))` — it drives the same EvalPlan
 * and kernels; only the way a query's relevance codes are found differs (byte-input.ts).
 *
 * One pass per byte range: lines are scanned in place; when the query id changes, the finished query's
 * list is put in trec_eval order and evaluated at once, so memory is the bytes plus one query. A run file
 * can be cut into ranges at query boundaries (`splitRun`) and the ranges evaluated on different threads;
 * `assembleRanges` puts the rows in print order (strcmp of ids), adds 10.0's -c placeholders and sums the
 * summary in that order, as trec_eval does.
 *
 * Anything unusual — a malformed line, a duplicate document, more than six columns, invalid UTF-8, a score
 * the byte parser does not take, a query whose lines are not together — makes it return undefined: the
 * caller then runs the validating text parser on the same bytes, which reports the problem with file and
 * line (or evaluates the rare file this path declines). So bad input gets exactly the messages it always got.
 */
import type { QueryId } from '../types.ts';
import { grow } from '../grow.ts';
import { asQueryId } from '../io/ids.ts';
import { MAX_LINE_BYTES } from '../io/lines.ts';
import { SCORE, scoreBytes } from '../io/score-bytes.ts';
import { fnv1a } from '../fnv.ts';
import {
  compareBytes,
  decode,
  DOCID,
  FIELD_END,
  FIELD_START,
  HASH_SIGN,
  NL,
  QueryLines,
  sameQueryDocid,
  scanLine,
  type ByteQrels,
} from './byte-input.ts';
import { makeResult, type EvalPlan, type EvalResult } from './evaluate.ts';
import { RELVALUE_NONPOOL } from './measure.ts';
import { compareUtf8, ContextBuilder } from './ranking.ts';
import type { TrecEvalVersion } from './version.ts';

export { parseQrelsBytes, type ByteQrels } from './byte-input.ts';

export interface ByteEvalOptions {
  readonly relevanceLevel: number;
  readonly complete: boolean;
  readonly maxRetrieved: number;
  /** `-J`: drop unjudged documents from each ranking (EvaluateOptions.judgedOnly). Default false. */
  readonly judgedOnly?: boolean;
  readonly version: TrecEvalVersion;
  /** Called for every printed query, in print order, with its row of `plan.slots` values (reused: copy what you keep). */
  readonly onQuery?: (qid: QueryId, row: Float64Array, texts: Readonly<Record<string, string>> | undefined) => void;
}

export interface ByteEvalResult {
  readonly result: EvalResult;
  /** Lines whose run tag differs from the first line's (the text parser warns about them). */
  readonly otherTags: number;
  /** The first line's tag: the run's name. */
  readonly tag: string;
  /** Documents per query of the run (before -M). */
  readonly lengths: number[];
}

/** Scratch of `fastLine`: 1 when the tag differs. The docid is in DOCID, the score in SCORE. */
const FAST_OTHER_TAG = new Int32Array(1);

/**
 * The common run line read in one go: `sameQueryDocid` (with Q0), an integer rank, a score, a tag, nothing
 * else. Returns the position after the line, or -1 for any other line (the general scanner then decides).
 */
function fastLine(bytes: Uint8Array, pos: number, end: number, qs: number, ql: number, tag: Uint8Array): number {
  let p = sameQueryDocid(bytes, pos, end, qs, ql, 1);
  if (p < 0) return -1;
  // rank: optional sign, 1..15 digits
  let c = bytes[p];
  let r = p;
  if (c === 45 || c === 43) r++;
  const digits = r;
  while (r < end && (c = bytes[r]!) >= 48 && c <= 57) r++;
  if (r === digits || r - digits > 15 || (c !== 32 && c !== 9)) return -1;
  p = r;
  while (p < end && ((c = bytes[p]!) === 32 || c === 9)) p++;
  const ss = p;
  while (p < end && bytes[p]! > 32) p++;
  if (p === ss || p >= end) return -1;
  if (!scoreBytes(bytes, ss, p)) return -1;
  while (p < end && ((c = bytes[p]!) === 32 || c === 9)) p++;
  const ts = p;
  while (p < end && bytes[p]! > 32) p++;
  if (p === ts) return -1;
  let other = p - ts !== tag.length ? 1 : 0;
  for (let t = 0; other === 0 && t < tag.length; t++) if (bytes[ts + t] !== tag[t]) other = 1;
  if (other === 1) for (let t = ts; t < p; t++) if (bytes[t]! >= 0x80) return -1; // compare decoded tags: the general path
  while (p < end && ((c = bytes[p]!) === 32 || c === 9 || c === 13)) p++;
  if (p < end && c !== NL) return -1; // a seventh column
  FAST_OTHER_TAG[0] = other;
  return p + 1;
}

/** What evaluating one byte range of a run gives (plain data: it crosses threads). */
export interface RangeResult {
  /** Judged queries evaluated in this range, file order. */
  readonly qids: string[];
  /** qids.length rows of plan.slots values. */
  readonly rows: Float64Array;
  /** Text values (relstring) per evaluated query, when the plan has any. */
  readonly texts: (Record<string, string> | undefined)[];
  /** Every query id of the range, judged or not (to tell whether two ranges share a query). */
  readonly seen: string[];
  /** Lines whose tag is not the run's tag. */
  readonly otherTags: number;
  /** Documents per query of the range, `seen` order (before -M). */
  readonly lengths: number[];
}

const BOM = (bytes: Uint8Array): number => (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);

/** The 6th field of the first run line: the run's name. Undefined when the first line is not a run line. */
export function firstRunTag(bytes: Uint8Array): string | undefined {
  const line = { count: 0, high: 0 };
  let pos = BOM(bytes);
  while (pos < bytes.length) {
    if (bytes[pos] === HASH_SIGN) {
      const nl = bytes.indexOf(NL, pos);
      pos = nl < 0 ? bytes.length : nl + 1;
      continue;
    }
    pos = scanLine(bytes, pos, bytes.length, 6, line);
    if (line.count === 0) continue;
    return line.count === 6 ? decode(bytes, FIELD_START[5]!, FIELD_END[5]!) : undefined;
  }
  return undefined;
}

/** Start of the first line at or after `from` whose query id differs from the line before it (bytes.length if none). */
export function splitRun(bytes: Uint8Array, from: number): number {
  const n = bytes.length;
  let pos = from > 0 ? bytes.indexOf(NL, from - 1) + 1 : 0;
  if (pos <= 0) return n;
  let prevStart = -1;
  let prevLen = 0;
  while (pos < n) {
    const lineStart = pos;
    let i = pos;
    while (i < n && (bytes[i] === 32 || bytes[i] === 9)) i++;
    const qs = i;
    while (i < n && bytes[i]! > 32) i++;
    const ql = i - qs;
    if (ql > 0 && bytes[qs] !== HASH_SIGN) {
      if (prevStart >= 0 && compareBytes(bytes, qs, ql, prevStart, prevLen) !== 0) return lineStart;
      prevStart = qs;
      prevLen = ql;
    }
    const nl = bytes.indexOf(NL, i);
    pos = nl < 0 ? n : nl + 1;
  }
  return n;
}

/**
 * Parses and evaluates run lines fed to it in pieces (`feed`), each piece whole queries: one range of a
 * file, or the successive chunks a reader fills (`evaluateChunks`). Its state (ids seen, rows) spans the
 * pieces, so a query whose lines are split between two pieces is caught like any other scattered query.
 */
export class RangeEvaluator {
  readonly #qrels: ByteQrels;
  readonly #plan: EvalPlan;
  readonly #tag: Uint8Array;
  readonly #ctx: ContextBuilder;
  readonly #lines = new QueryLines();
  readonly #qids: string[] = [];
  readonly #texts: (Record<string, string> | undefined)[] = [];
  readonly #seen: string[] = [];
  readonly #seenSet = new Set<string>();
  readonly #lengths: number[] = [];
  #rows: Float64Array;
  #otherTags = 0;

  /** `tag` is the run's tag (its first line's), for counting lines with another one. */
  constructor(qrels: ByteQrels, plan: EvalPlan, opts: Omit<ByteEvalOptions, 'onQuery'>, tag: Uint8Array) {
    this.#qrels = qrels;
    this.#plan = plan;
    this.#tag = tag;
    this.#ctx = new ContextBuilder(opts.relevanceLevel, opts.maxRetrieved, opts.version, opts.judgedOnly === true);
    this.#rows = new Float64Array(64 * plan.slots);
  }

  /**
   * Order and evaluate the finished query (its lines are in #lines); false when its list holds a document
   * twice. A method, not a closure made per feed: optimised code that inlined one closure was thrown
   * away ("wrong call target") at every chunk's new one.
   */
  #finish(bytes: Uint8Array, qid: string, table: ReturnType<ByteQrels['queries']['get']>): boolean {
    const lines = this.#lines;
    this.#lengths.push(lines.n);
    if (!lines.distinct(bytes)) return false;
    if (table === undefined) return true;
    const ctx = this.#ctx;
    const slots = this.#plan.slots;
    const depth = ctx.depthOf(lines.n);
    lines.ordered(bytes, ctx.reserve(depth), depth);
    const base = this.#qids.length * slots;
    if (this.#rows.length < base + slots) this.#rows = grow(this.#rows, base + slots);
    this.#texts.push(this.#plan.compute(ctx.commit(depth, table.judged), this.#rows, base));
    this.#qids.push(qid);
    return true;
  }

  /**
   * Parse and evaluate the lines of bytes[start, end) (line boundaries; the last query ends at `end`).
   * `fileStart`: the range begins the file (a byte-order mark is skipped). False when the text parser must
   * take over; then the evaluator is spent.
   */
  feed(bytes: Uint8Array, start: number, end: number, fileStart = start === 0): boolean {
    const lines = this.#lines;
    const seen = this.#seen;
    const seenSet = this.#seenSet;
    const tag = this.#tag;
    const tagLen = tag.length;
    const qrels = this.#qrels;
    let otherTags = 0;
    let curStart = -1;
    let curLen = 0;
    let curQid = '';
    let table: ReturnType<ByteQrels['queries']['get']>;
    const line = { count: 0, high: 0 };
    const st = FIELD_START;
    const en = FIELD_END;

    let pos = fileStart ? Math.max(start, BOM(bytes)) : start;
    while (pos < end) {
      if (curStart >= 0) {
        const next = fastLine(bytes, pos, end, curStart, curLen, tag);
        if (next >= 0) {
          const d = lines.push();
          const ds = DOCID[0]!;
          const de = DOCID[1]!;
          const h = DOCID[2]!;
          otherTags += FAST_OTHER_TAG[0]!;
          lines.docStart[d] = ds;
          lines.docLen[d] = de - ds;
          lines.docHash[d] = h;
          lines.scores[d] = SCORE[0]!;
          lines.codes[d] = table === undefined ? RELVALUE_NONPOOL : table.table.code(bytes, ds, de, h);
          pos = next;
          continue;
        }
      }
      if (bytes[pos] === HASH_SIGN) {
        const nl = bytes.indexOf(NL, pos);
        pos = nl < 0 || nl >= end ? end : nl + 1;
        continue;
      }
      pos = scanLine(bytes, pos, end, 6, line);
      const count = line.count;
      if (count === 0) continue;
      if (count !== 6) return false; // fewer: malformed; more: the text parser warns about extra columns
      if (line.high >= 0x80 && decode(bytes, st[2]!, en[2]!) === undefined) return false;

      const qs = st[0]!;
      const ql = en[0]! - qs;
      let same = ql === curLen && curStart >= 0;
      for (let k = 0; same && k < ql; k++) same = bytes[qs + k] === bytes[curStart + k];
      if (!same) {
        if (curStart >= 0 && !this.#finish(bytes, curQid, table)) return false;
        const q = decode(bytes, qs, qs + ql);
        if (q === undefined || seenSet.has(q)) return false; // invalid UTF-8, or the query's lines are not together
        seenSet.add(q);
        seen.push(q);
        curQid = q;
        curStart = qs;
        curLen = ql;
        table = qrels.queries.get(q);
        lines.n = 0;
      }

      // rank: an integer (the text parser's rule), otherwise ignored
      let k = st[3]!;
      const rankEnd = en[3]!;
      if (bytes[k] === 45 || bytes[k] === 43) k++;
      if (k >= rankEnd || rankEnd - k > 15) return false;
      for (; k < rankEnd; k++) {
        const c = bytes[k]!;
        if (c < 48 || c > 57) return false;
      }
      if (!scoreBytes(bytes, st[4]!, en[4]!)) return false; // not a finite number
      const score = SCORE[0]!;
      const ts = st[5]!;
      let sameTag = en[5]! - ts === tagLen;
      for (let t = 0; sameTag && t < tagLen; t++) sameTag = bytes[ts + t] === tag[t];
      if (!sameTag) {
        // another tag with non-ASCII bytes: the text parser compares decoded tags (invalid bytes → U+FFFD)
        for (let t = ts; t < en[5]!; t++) if (bytes[t]! >= 0x80) return false;
        otherTags++;
      }

      const d = lines.push();
      const ds = st[2]!;
      const de = en[2]!;
      const h = fnv1a(bytes, ds, de);
      lines.docStart[d] = ds;
      lines.docLen[d] = de - ds;
      lines.docHash[d] = h;
      lines.scores[d] = score;
      lines.codes[d] = table === undefined ? RELVALUE_NONPOOL : table.table.code(bytes, ds, de, h);
    }
    this.#otherTags += otherTags;
    return curStart < 0 || this.#finish(bytes, curQid, table);
  }

  /** What the pieces fed so far give. */
  result(): RangeResult {
    const slots = this.#plan.slots;
    const qids = this.#qids;
    return {
      qids,
      rows: this.#rows.slice(0, qids.length * slots),
      texts: this.#texts,
      seen: this.#seen,
      otherTags: this.#otherTags,
      lengths: this.#lengths,
    };
  }
}

/**
 * Parse and evaluate the run lines in bytes[start, end) (line boundaries). `tag` is the run's tag (its
 * first line's), for counting lines with another one. Undefined when the text parser must take over.
 */
export function evaluateRange(
  qrels: ByteQrels,
  bytes: Uint8Array,
  start: number,
  end: number,
  plan: EvalPlan,
  opts: Omit<ByteEvalOptions, 'onQuery'>,
  tag: Uint8Array,
): RangeResult | undefined {
  const evaluator = new RangeEvaluator(qrels, plan, opts, tag);
  return evaluator.feed(bytes, start, end) ? evaluator.result() : undefined;
}

/**
 * Rows of the ranges (in file order) → the evaluation, queries in print order. Undefined when two ranges
 * share a query or no query can be evaluated (the text path then decides).
 */
export function assembleRanges(
  qrels: ByteQrels,
  plan: EvalPlan,
  opts: ByteEvalOptions,
  tag: string,
  parts: readonly RangeResult[],
): ByteEvalResult | undefined {
  const slots = plan.slots;
  const where = new Map<string, { part: RangeResult; index: number }>();
  const seen = new Set<string>();
  for (const part of parts) {
    for (const q of part.seen) {
      if (seen.has(q)) return undefined;
      seen.add(q);
    }
    part.qids.forEach((q, index) => where.set(q, { part, index }));
  }
  if (where.size === 0) return undefined; // "no queries with both results and relevance info": the text path says so
  const judged = qrels.queries;
  const withPlaceholders = opts.complete && opts.version === '10.0';
  const printed = (withPlaceholders ? [...judged.keys()] : [...where.keys()]).sort(compareUtf8).map(asQueryId);

  const values = new Float64Array(printed.length * slots);
  const texts: (Record<string, string> | undefined)[] = [];
  const missing = new Set<QueryId>();
  const judgedOnly = opts.judgedOnly === true;
  const ctx = new ContextBuilder(opts.relevanceLevel, opts.maxRetrieved, opts.version, judgedOnly);
  for (let qi = 0; qi < printed.length; qi++) {
    const qid = printed[qi]!;
    const base = qi * slots;
    const at = where.get(qid);
    let t: Record<string, string> | undefined;
    if (at) {
      values.set(at.part.rows.subarray(at.index * slots, (at.index + 1) * slots), base);
      t = at.part.texts[at.index];
    } else {
      missing.add(qid);
      t = plan.compute(ctx.fillPlaceholder(judged.get(qid)!.judged), values, base);
      plan.clearPlaceholder(values, base, t);
    }
    texts.push(t);
    opts.onQuery?.(qid, values.subarray(base, base + slots), t);
  }

  const denominator = opts.complete ? judged.size : printed.length;
  const sums = new Float64Array(slots);
  for (let qi = 0, base = 0; qi < printed.length; qi++, base += slots)
    for (let j = 0; j < slots; j++) sums[j] = sums[j]! + values[base + j]!;
  const perQueryText = new Map<QueryId, Record<string, string>>();
  if (plan.hasText) printed.forEach((q, qi) => perQueryText.set(q, texts[qi]!));
  const result = makeResult({
    runid: tag,
    options: {
      relevanceLevel: opts.relevanceLevel,
      complete: opts.complete,
      maxRetrieved: opts.maxRetrieved,
      judgedOnly,
      version: opts.version,
    },
    columns: plan.columns,
    queries: printed,
    missing,
    valueNames: plan.valueNames,
    values: plan.compact(values, printed.length),
    perQueryText,
    aggregate: plan.aggregate(sums, printed.length, denominator, opts.complete, qrels.positive),
  });
  let otherTags = 0;
  const lengths: number[] = [];
  for (const p of parts) {
    otherTags += p.otherTags;
    lengths.push(...p.lengths);
  }
  return { result, otherTags, tag, lengths };
}

/** Evaluate the whole run on this thread; undefined when the text parser must take over (see the module comment). */
export function evaluateRunBytes(qrels: ByteQrels, bytes: Uint8Array, plan: EvalPlan, opts: ByteEvalOptions): ByteEvalResult | undefined {
  const tag = firstRunTag(bytes);
  if (tag === undefined) return undefined;
  const part = evaluateRange(qrels, bytes, 0, bytes.length, plan, opts, new TextEncoder().encode(tag));
  return part && assembleRanges(qrels, plan, opts, tag, [part]);
}

/**
 * Start of the line that begins the last query of bytes[0, end) (`end` just after a newline): where a
 * chunk can be cut so that no query is split. 0 when every line there belongs to one query.
 */
export function lastQueryStart(bytes: Uint8Array, end: number): number {
  let lineEnd = end;
  let qs = -1;
  let ql = 0;
  while (lineEnd > 0) {
    const lineStart = lineEnd >= 2 ? bytes.lastIndexOf(NL, lineEnd - 2) + 1 : 0;
    if (bytes[lineStart] !== HASH_SIGN) {
      let i = lineStart;
      while (i < lineEnd && (bytes[i] === 32 || bytes[i] === 9)) i++;
      const s = i;
      while (i < lineEnd && bytes[i]! > 32) i++;
      if (i > s) {
        if (qs < 0) {
          qs = s;
          ql = i - s;
        } else if (compareBytes(bytes, s, i - s, qs, ql) !== 0) return lineEnd;
      }
    }
    lineEnd = lineStart;
  }
  return 0;
}

/** Fills into[offset, offset + length) with the next bytes of a file; 0 at its end. */
export type ReadInto = (into: Uint8Array, offset: number, length: number) => number;

/**
 * Chunk size of `evaluateChunks`. Small on purpose: the run passes through one buffer that stays in the
 * CPU's cache, instead of a file-sized buffer whose every fresh page the kernel must fault in (on the
 * project's VM a 34 MB read into a new buffer took ~100 ms; the same bytes through 256 KiB, 4 ms).
 */
export const CHUNK_BYTES = 256 << 10;

/**
 * Evaluate a run read in chunks (whole queries per chunk; the buffer grows for a query larger than it):
 * the same result as `evaluateRunBytes` on the whole file, in memory the size of a chunk. Undefined
 * whenever `evaluateRunBytes` would be, and also when the first chunk's complete lines hold no run line:
 * the caller then reads the whole file.
 */
export function evaluateChunks(
  qrels: ByteQrels,
  read: ReadInto,
  plan: EvalPlan,
  opts: ByteEvalOptions,
  chunkBytes = CHUNK_BYTES,
): ByteEvalResult | undefined {
  let buf = new Uint8Array(Math.max(16, chunkBytes));
  let filled = 0;
  let eof = false;
  let evaluator: RangeEvaluator | undefined;
  let tag = '';
  for (let first = true; ; first = false) {
    while (!eof && filled < buf.length) {
      const n = read(buf, filled, buf.length - filled);
      if (n === 0) eof = true;
      else filled += n;
    }
    if (first) {
      // the file's byte-order mark goes before any cut is looked for (it is not part of the first query id)
      const bom = BOM(buf.subarray(0, filled));
      buf.copyWithin(0, bom, filled);
      filled -= bom;
    }
    let cut = filled;
    if (!eof) {
      const complete = buf.lastIndexOf(NL, filled - 1) + 1;
      // a line past the limit: the text parser refuses it at its line, reading no further
      if (filled - complete > MAX_LINE_BYTES) return undefined;
      cut = complete > 0 ? lastQueryStart(buf, complete) : 0;
      if (cut === 0) {
        // one query (or one line) fills the buffer: make room for the rest of it
        buf = grow(buf, buf.length + 1);
        continue;
      }
    }
    if (evaluator === undefined) {
      const first = firstRunTag(buf.subarray(0, cut));
      if (first === undefined) return undefined;
      tag = first;
      evaluator = new RangeEvaluator(qrels, plan, opts, new TextEncoder().encode(tag));
    }
    if (!evaluator.feed(buf, 0, cut, false)) return undefined;
    if (eof) break;
    buf.copyWithin(0, cut, filled);
    filled -= cut;
  }
  return assembleRanges(qrels, plan, opts, tag, [evaluator.result()]);
}
