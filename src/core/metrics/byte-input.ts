/**
 * TREC qrels and runs read straight from bytes, for `fliplab eval`'s fast path (run-bytes.ts):
 * qrels into per-query tables of docid byte ranges, run lines scanned in place, scores parsed from bytes,
 * one query's list put in trec_eval order by comparing docid bytes (strcmp). Nothing here turns a run line
 * into a string.
 *
 * Every reader follows the validating text parsers' rules (core/io/trec.ts) and returns undefined for
 * anything it does not take, so that callers hand the file to those parsers, which report the problem with
 * file and line — bad input gets exactly the messages it always got.
 */
import { grow } from '../grow.ts';
import { FNV_OFFSET, FNV_PRIME, fnv1a } from '../fnv.ts';
import { latin1 } from '../io/score-bytes.ts';
import { summarizeGrades, type JudgedQuery } from './judged.ts';
import { sortScoreThenDoc } from './ranking.ts';
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED } from './measure.ts';

export const NL = 10;
export const HASH_SIGN = 0x23;

/** Byte classes for the hot loops: 0 part of a field, 1 field separator (ASCII whitespace but newline), 2 newline. */
const CLASS = new Uint8Array(256);
for (const c of [32, 9, 11, 12, 13]) CLASS[c] = 1;
CLASS[NL] = 2;
export const FIELD_START = new Int32Array(6);
export const FIELD_END = new Int32Array(6);

/**
 * Fields of the line at bytes[pos..] into FIELD_START/FIELD_END (at most `max`); returns the position after
 * the line's newline and stores the count in `out.count` (max + 1 when there are more), the OR of the
 * field bytes in `out.high` (≥ 0x80: not ASCII).
 */
export function scanLine(bytes: Uint8Array, pos: number, end: number, max: number, out: { count: number; high: number }): number {
  let count = 0;
  let high = 0;
  for (;;) {
    let c = 0;
    while (pos < end && (c = CLASS[bytes[pos]!]!) === 1) pos++;
    if (pos >= end || c === 2) break;
    const s = pos;
    while (pos < end && CLASS[(c = bytes[pos]!)] === 0) {
      high |= c;
      pos++;
    }
    if (count === max) {
      count++;
      while (pos < end && bytes[pos] !== NL) pos++;
      break;
    }
    FIELD_START[count] = s;
    FIELD_END[count++] = pos;
  }
  out.count = count;
  out.high = high;
  return pos + 1;
}

// ignoreBOM: a U+FEFF inside a field is data (the text parsers drop only the file's leading BOM)
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes → string: ASCII directly, UTF-8 otherwise; undefined when the bytes are not valid UTF-8. */
export function decode(bytes: Uint8Array, s: number, e: number): string | undefined {
  let high = 0;
  for (let i = s; i < e; i++) high |= bytes[i]!;
  if (high < 0x80) return latin1(bytes, s, e);
  try {
    return utf8.decode(bytes.subarray(s, e));
  } catch {
    return undefined;
  }
}

/** A query's judged docids as byte ranges of the qrels buffer in an open-addressing table, for lookups by run bytes. */
export class JudgedBytes {
  readonly table: Int32Array;
  readonly mask: number;

  constructor(
    readonly arena: Uint8Array,
    readonly starts: Int32Array,
    readonly lengths: Int32Array,
    readonly hashes: Int32Array,
    readonly codes: Int32Array,
  ) {
    let size = 16;
    while (size < starts.length * 2) size <<= 1;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let i = 0; i < starts.length; i++) {
      let slot = hashes[i]! & this.mask;
      while (this.table[slot] !== -1) slot = (slot + 1) & this.mask;
      this.table[slot] = i;
    }
  }

  /** Relevance code of the docid bytes[s, e) with hash h: its grade, RELVALUE_UNJUDGED, or RELVALUE_NONPOOL. */
  code(bytes: Uint8Array, s: number, e: number, h: number): number {
    const { table, mask, hashes, starts, lengths, arena } = this;
    const len = e - s;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const i = table[slot]!;
      if (i < 0) return RELVALUE_NONPOOL;
      if (hashes[i] !== h || lengths[i] !== len) continue;
      const o = starts[i]!;
      let k = 0;
      while (k < len && arena[o + k] === bytes[s + k]) k++;
      if (k === len) return this.codes[i]!;
    }
  }
}

/** Qrels read by the byte path: per judged query its summary and its docid table. */
export interface ByteQrels {
  readonly queries: ReadonlyMap<string, { readonly judged: JudgedQuery; readonly table: JudgedBytes }>;
  /** Judgments with grade > 0 over every query (num_rel's -c summary). */
  readonly positive: number;
  /** Lines that repeat a judgment with the same grade (the text parser warns about them). */
  readonly duplicates: number;
}

/** An integer grade from bytes (atol-like digits with a sign); undefined for anything else (the text parser decides). */
function gradeOf(bytes: Uint8Array, s: number, e: number): number | undefined {
  let i = s;
  let neg = false;
  if (bytes[i] === 45 || bytes[i] === 43) neg = bytes[i++] === 45;
  if (i >= e || e - i > 9) return undefined;
  let v = 0;
  for (; i < e; i++) {
    const d = bytes[i]! - 48;
    if (d < 0 || d > 9) return undefined;
    v = v * 10 + d;
  }
  return neg ? -v : v;
}

/** Scratch of `sameQueryDocid`: docid start, docid end, docid hash. */
export const DOCID = new Int32Array(3);

/**
 * The start every common qrels and run line shares: the same query id as the line before (bytes[qs, qs+ql)),
 * `skip` more fields (TREC's iter / Q0), then an ASCII docid, hashed (FNV-1a) while scanned, into DOCID.
 * Returns the position of the next field, or -1 for any other line (a comment, another query, a non-ASCII
 * docid, a line that ends early): the general scanner then reads it and decides.
 */
export function sameQueryDocid(bytes: Uint8Array, pos: number, end: number, qs: number, ql: number, skip: number): number {
  if (pos + ql >= end || bytes[pos] === HASH_SIGN) return -1; // a comment, even after a qid that starts with #
  for (let k = 0; k < ql; k++) if (bytes[pos + k] !== bytes[qs + k]) return -1;
  let p = pos + ql;
  let c = bytes[p]!;
  if (c !== 32 && c !== 9) return -1;
  while (p < end && ((c = bytes[p]!) === 32 || c === 9)) p++;
  for (let f = 0; f < skip; f++) {
    while (p < end && (c = bytes[p]!) > 32) p++;
    if (c !== 32 && c !== 9) return -1;
    while (p < end && ((c = bytes[p]!) === 32 || c === 9)) p++;
  }
  const ds = p;
  let h = FNV_OFFSET;
  while (p < end && (c = bytes[p]!) > 32 && c < 0x80) {
    h = Math.imul(h ^ c, FNV_PRIME);
    p++;
  }
  if (p === ds || (c !== 32 && c !== 9)) return -1; // empty, non-ASCII or the line ends
  DOCID[0] = ds;
  DOCID[1] = p;
  DOCID[2] = h;
  while (p < end && ((c = bytes[p]!) === 32 || c === 9)) p++;
  return p;
}

/** Scratch of `fastQrelsLine`: the grade. */
const QRELS_GRADE = new Int32Array(1);

/**
 * The common qrels line read in one go: `sameQueryDocid` (with the iter column when `iter`), an integer
 * grade, nothing else. Returns the position after the line, or -1 for any other line.
 */
function fastQrelsLine(bytes: Uint8Array, pos: number, end: number, qs: number, ql: number, iter: boolean): number {
  let p = sameQueryDocid(bytes, pos, end, qs, ql, iter ? 1 : 0);
  if (p < 0) return -1;
  let c = bytes[p];
  let neg = false;
  if (c === 45) {
    neg = true;
    p++;
  }
  const digits = p;
  let grade = 0;
  while (p < end && (c = bytes[p]!) >= 48 && c <= 57) {
    grade = grade * 10 + (c - 48);
    p++;
  }
  if (p === digits || p - digits > 9) return -1;
  while (p < end && ((c = bytes[p]!) === 32 || c === 9 || c === 13)) p++;
  if (p < end && c !== NL) return -1; // another column
  QRELS_GRADE[0] = neg ? -grade : grade;
  return p + 1;
}

/**
 * One judgment line per index: docid start, length and hash, grade, query index. Plain typed arrays with
 * one capacity check per line (the parse runs once per process, mostly before the JIT has optimised it,
 * so every call per line counts).
 */
class Judgments {
  start: Int32Array;
  length: Int32Array;
  hash: Int32Array;
  grade: Int32Array;
  query: Int32Array;
  constructor(capacity: number) {
    this.start = new Int32Array(capacity);
    this.length = new Int32Array(capacity);
    this.hash = new Int32Array(capacity);
    this.grade = new Int32Array(capacity);
    this.query = new Int32Array(capacity);
  }
  grow(): void {
    const need = this.start.length + 1;
    this.start = grow(this.start, need);
    this.length = grow(this.length, need);
    this.hash = grow(this.hash, need);
    this.grade = grow(this.grade, need);
    this.query = grow(this.query, need);
  }
}

/**
 * True when the fields scanLine just found are separated by tabs in some gaps and not in others: a BEIR
 * qrels TSV line whose ids hold spaces ("q a<TAB>doc one<TAB>1"), which only the text parser reads right.
 */
function tabbedWithSpaces(bytes: Uint8Array, count: number): boolean {
  let tabbed = 0;
  for (let f = 1; f < count; f++) {
    for (let p = FIELD_END[f - 1]!; p < FIELD_START[f]!; p++) {
      if (bytes[p] === 9) {
        tabbed++;
        break;
      }
    }
  }
  return tabbed > 0 && tabbed < count - 1;
}

/**
 * The judgment lines of a qrels file, in file order (parseQrelsBytes' first pass). Its own function: the
 * JIT compiles this loop on its own, and leaving it does not throw the compiled loop away.
 */
function readJudgments(bytes: Uint8Array): { cols: Judgments; lines: number; queryIds: string[]; grouped: boolean } | undefined {
  const n = bytes.length;
  let pos = n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  // a qrels line is rarely under 16 bytes ("q 0 doc 1\n" is 10): this capacity seldom grows
  const cols = new Judgments(Math.max(1024, n >> 4));
  let capacity = cols.start.length;
  let grouped = true;
  let lines = 0;
  const queryIndex = new Map<string, number>();
  const queryIds: string[] = [];
  const line = { count: 0, high: 0 };
  let columns = 0;
  let sawContent = false;
  let cur = -1;
  let curStart = -1;
  let curLen = 0;
  while (pos < n) {
    if (cur >= 0) {
      const next = fastQrelsLine(bytes, pos, n, curStart, curLen, columns === 4);
      if (next >= 0) {
        if (lines === capacity) {
          cols.grow();
          capacity = cols.start.length;
        }
        cols.start[lines] = DOCID[0]!;
        cols.length[lines] = DOCID[1]! - DOCID[0]!;
        cols.hash[lines] = DOCID[2]!;
        cols.grade[lines] = QRELS_GRADE[0]!;
        cols.query[lines] = cur;
        lines++;
        pos = next;
        continue;
      }
    }
    if (bytes[pos] === HASH_SIGN) {
      const nl = bytes.indexOf(NL, pos);
      pos = nl < 0 ? n : nl + 1;
      continue;
    }
    pos = scanLine(bytes, pos, n, 4, line);
    const count = line.count;
    if (count === 0) continue;
    if (count !== 3 && count !== 4) return undefined;
    if (tabbedWithSpaces(bytes, count)) return undefined; // BEIR TSV with spaces in ids: the text parser splits on tabs
    const first = !sawContent;
    sawContent = true;
    const grade = gradeOf(bytes, FIELD_START[count - 1]!, FIELD_END[count - 1]!);
    if (grade === undefined) {
      // BEIR header (query-id corpus-id score): a first 3-column line whose last field is no integer at all
      const text = decode(bytes, FIELD_START[count - 1]!, FIELD_END[count - 1]!);
      if (first && count === 3 && text !== undefined && !Number.isInteger(Number(text))) continue;
      return undefined; // "1.0", "+1e0": integers the text parser takes; or an error it reports
    }
    if (columns === 0) columns = count;
    else if (columns !== count) return undefined;
    if (line.high >= 0x80 && decode(bytes, FIELD_START[0]!, FIELD_END[count - 1]!) === undefined) return undefined;
    const qs = FIELD_START[0]!;
    const ql = FIELD_END[0]! - qs;
    let same = cur >= 0 && ql === curLen;
    for (let k = 0; same && k < ql; k++) same = bytes[qs + k] === bytes[curStart + k];
    if (!same) {
      const q = decode(bytes, qs, qs + ql)!;
      let index = queryIndex.get(q);
      if (index === undefined) {
        index = queryIds.length;
        queryIndex.set(q, index);
        queryIds.push(q);
      } else grouped = false; // a query's lines come back after another query's
      cur = index;
      curStart = qs;
      curLen = ql;
    }
    const ds = FIELD_START[count - 2]!;
    const de = FIELD_END[count - 2]!;
    if (lines === capacity) {
      cols.grow();
      capacity = cols.start.length;
    }
    cols.start[lines] = ds;
    cols.length[lines] = de - ds;
    cols.hash[lines] = fnv1a(bytes, ds, de);
    cols.grade[lines] = grade;
    cols.query[lines] = cur;
    lines++;
  }
  if (lines === 0) return undefined;
  return { cols, lines, queryIds, grouped };
}

/**
 * Qrels (TREC 4 columns or BEIR 3 columns with its header) from bytes, with the text parser's rules;
 * undefined when that parser must take over (malformed line, a judgment repeated with another grade, a
 * grade like "1.0", invalid UTF-8).
 */
export function parseQrelsBytes(bytes: Uint8Array): ByteQrels | undefined {
  const read = readJudgments(bytes);
  if (read === undefined) return undefined;
  const { cols, lines, queryIds, grouped } = read;
  // group the lines by query: qrels are usually grouped already (each query's lines together, queries in
  // first-seen order), and then the columns are used as they are; otherwise a stable counting sort
  const nq = queryIds.length;
  const offsets = new Int32Array(nq + 1);
  const query = cols.query;
  for (let i = 0; i < lines; i++) offsets[query[i]! + 1]!++;
  for (let q = 0; q < nq; q++) offsets[q + 1]! += offsets[q]!;
  let starts = cols.start;
  let lengths = cols.length;
  let hashes = cols.hash;
  let grades = cols.grade;
  if (!grouped) {
    const fill = offsets.slice(0, nq);
    starts = new Int32Array(lines);
    lengths = new Int32Array(lines);
    hashes = new Int32Array(lines);
    grades = new Int32Array(lines);
    for (let i = 0; i < lines; i++) {
      const at = fill[query[i]!]!++;
      starts[at] = cols.start[i]!;
      lengths[at] = cols.length[i]!;
      hashes[at] = cols.hash[i]!;
      grades[at] = cols.grade[i]!;
    }
  }

  const queries = new Map<string, { judged: JudgedQuery; table: JudgedBytes }>();
  let duplicates = 0;
  let positive = 0;
  const kept = new Int32Array(lines);
  const columns = { starts, lengths, hashes, grades };
  for (let q = 0; q < nq; q++) {
    const one = queryJudgments(bytes, columns, offsets[q]!, offsets[q + 1]!, kept);
    if (one === undefined) return undefined;
    duplicates += one.duplicates;
    positive += one.judged.numPositive;
    queries.set(queryIds[q]!, { judged: one.judged, table: one.table });
  }
  return { queries, positive, duplicates };
}

/** One query's judgments columns[from, to): its docid table and summary; undefined for a docid judged twice with two grades. */
function queryJudgments(
  bytes: Uint8Array,
  columns: { starts: Int32Array; lengths: Int32Array; hashes: Int32Array; grades: Int32Array },
  from: number,
  to: number,
  kept: Int32Array,
): { judged: JudgedQuery; table: JudgedBytes; duplicates: number } | undefined {
  const { starts, lengths, hashes, grades } = columns;
  const codes = new Int32Array(to - from);
  for (let i = from; i < to; i++) codes[i - from] = grades[i]! < 0 ? RELVALUE_UNJUDGED : grades[i]!;
  const table = new JudgedBytes(bytes, starts.subarray(from, to), lengths.subarray(from, to), hashes.subarray(from, to), codes);
  // repeated docids: the same grade is counted once (a warning), another grade is an error (the text parser's)
  let keep = 0;
  let duplicates = 0;
  for (let i = from; i < to; i++) {
    const h = hashes[i]!;
    let dup = -1;
    for (let slot = h & table.mask; ; slot = (slot + 1) & table.mask) {
      const j = table.table[slot]!;
      if (j < 0) break;
      if (j >= i - from) continue;
      const jj = from + j;
      if (hashes[jj] === h && lengths[jj] === lengths[i] && compareBytes(bytes, starts[jj]!, lengths[jj]!, starts[i]!, lengths[i]!) === 0) {
        dup = jj;
        break;
      }
    }
    if (dup < 0) kept[from + keep++] = grades[i]!;
    else if (grades[dup] !== grades[i]) return undefined;
    else duplicates++;
  }
  return { judged: summarizeGrades(kept, from, from + keep), table, duplicates };
}

/** strcmp of bytes[a, a+la) and bytes[b, b+lb) (sign only). */
export function compareBytes(bytes: Uint8Array, a: number, la: number, b: number, lb: number): number {
  const n = la < lb ? la : lb;
  for (let k = 0; k < n; k++) {
    const d = bytes[a + k]! - bytes[b + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/** One query's parsed lines, reused from query to query. */
export class QueryLines {
  n = 0;
  docStart = new Int32Array(1024);
  docLen = new Int32Array(1024);
  docHash = new Int32Array(1024);
  scores = new Float64Array(1024);
  codes = new Int32Array(1024);
  order = new Uint32Array(1024);
  seen = new Int32Array(2048);

  push(): number {
    if (this.n === this.docStart.length) {
      const need = this.n + 1;
      this.docStart = grow(this.docStart, need);
      this.docLen = grow(this.docLen, need);
      this.docHash = grow(this.docHash, need);
      this.scores = grow(this.scores, need);
      this.codes = grow(this.codes, need);
      this.order = new Uint32Array(this.docStart.length);
    }
    return this.n++;
  }

  /** False when the list holds a docid twice (the text parser then reports it with both line numbers). */
  distinct(bytes: Uint8Array): boolean {
    const n = this.n;
    let size = 16;
    while (size < n * 2) size <<= 1;
    if (this.seen.length < size) this.seen = new Int32Array(size);
    const seen = this.seen;
    seen.fill(-1, 0, size);
    const mask = size - 1;
    const { docStart, docLen, docHash } = this;
    for (let i = 0; i < n; i++) {
      const h = docHash[i]!;
      for (let slot = h & mask; ; slot = (slot + 1) & mask) {
        const j = seen[slot]!;
        if (j < 0) {
          seen[slot] = i;
          break;
        }
        if (docHash[j] === h && compareBytes(bytes, docStart[j]!, docLen[j]!, docStart[i]!, docLen[i]!) === 0) return false;
      }
    }
    return true;
  }

  /** The first `depth` codes in trec_eval order (score desc, docid desc) into `into`. */
  ordered(bytes: Uint8Array, into: Int32Array, depth: number): void {
    const { n, scores, docStart, docLen, codes } = this;
    let inOrder = true;
    for (let i = 1; i < n; i++) {
      const a = scores[i - 1]!;
      const b = scores[i]!;
      if (a > b) continue;
      if (a < b) {
        inOrder = false;
        break;
      }
      if (compareBytes(bytes, docStart[i - 1]!, docLen[i - 1]!, docStart[i]!, docLen[i]!) < 0) inOrder = false;
    }
    if (inOrder) {
      into.set(codes.subarray(0, depth));
      return;
    }
    const order = this.order.subarray(0, n);
    sortScoreThenDoc(order, scores, (x, y) => compareBytes(bytes, docStart[y]!, docLen[y]!, docStart[x]!, docLen[x]!));
    for (let i = 0; i < depth; i++) into[i] = codes[order[i]!]!;
  }
}
