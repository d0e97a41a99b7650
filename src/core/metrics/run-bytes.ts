/**
 * `fliplab eval`'s fast path: evaluate a TREC run straight from its bytes, without turning a million lines
 * into strings and Maps. Same numbers as `evaluate(qrels, parseRun(bytes))` — it drives the same EvalPlan
 * and kernels; only the way a query's relevance codes are found differs:
 *
 * 1. `scanRunBytes`: one pass over the line starts finds each query's byte ranges (a query may come back
 *    later in the file; its ranges are joined) and the run tag of the first line.
 * 2. Queries are evaluated in trec_eval order (strcmp of ids), each from its ranges: fields are scanned in
 *    place, docids hashed (FNV-1a) and looked up in a per-query table of the judged docids' UTF-8 bytes,
 *    scores parsed from bytes (exact: Clinger's fast path, else the platform's parser), the list put in
 *    trec_eval order (score desc, docid bytes desc — strcmp), and the codes handed to the kernels.
 *    Memory: the bytes plus one query's arrays.
 * 3. Rows arrive in print order through `onQuery`, so `-q` output streams.
 *
 * Anything unusual — a malformed line, a duplicate document, more than six columns, invalid UTF-8, a score
 * the fast parser does not take — makes it return undefined: the caller then runs the validating text
 * parser on the same bytes, which reports the problem with file and line (or handles the rare case). So bad
 * input gets exactly the messages it always got.
 */
import type { QueryId } from '../types.ts';
import { asQueryId } from '../io/ids.ts';
import { makeResult, type EvalPlan, type EvalResult } from './evaluate.ts';
import { summarizeJudgments, type JudgedQuery } from './judged.ts';
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED } from './measure.ts';
import { compareUtf8, ContextBuilder } from './ranking.ts';
import type { TrecEvalVersion } from './version.ts';

export interface ByteEvalOptions {
  readonly relevanceLevel: number;
  readonly complete: boolean;
  readonly maxRetrieved: number;
  readonly version: TrecEvalVersion;
  /** Called for every printed query, in print order, with its row of `plan.slots` values (reused: copy what you keep). */
  readonly onQuery?: (qid: QueryId, row: Float64Array, texts: Readonly<Record<string, string>> | undefined) => void;
}

export interface ByteEvalResult {
  readonly result: EvalResult;
  /** Lines whose run tag differs from the first line's (the text parser warns about them). */
  readonly otherTags: number;
  /** The first line's tag. */
  readonly tag: string;
}

const NL = 10;
const HASH_SIGN = 0x23;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 11 || c === 12 || c === 13;
/** Byte classes for the hot loops: 0 part of a field, 1 field separator (ASCII whitespace but newline), 2 newline. */
const CLASS = new Uint8Array(256);
for (const c of [32, 9, 11, 12, 13]) CLASS[c] = 1;
CLASS[NL] = 2;
const FIELD_START = new Int32Array(6);
const FIELD_END = new Int32Array(6);

/**
 * Fields of the line at bytes[pos..] into FIELD_START/FIELD_END (at most `max`); returns the position after
 * the line's newline and stores the count in `out.count` (max + 1 when there are more), the OR of the
 * field bytes in `out.high` (≥ 0x80: not ASCII).
 */
function scanLine(bytes: Uint8Array, pos: number, end: number, max: number, out: { count: number; high: number }): number {
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

/** The byte ranges of one query's lines. */
interface QueryRanges {
  readonly qid: QueryId;
  /** start0, end0, start1, end1, … */
  readonly ranges: number[];
}

interface Scan {
  readonly queries: Map<string, QueryRanges>;
  readonly tag: string;
}

const latin1 = (bytes: Uint8Array, s: number, e: number): string => {
  let out = '';
  for (let i = s; i < e; i++) out += String.fromCharCode(bytes[i]!);
  return out;
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes → string: ASCII directly, UTF-8 otherwise; undefined when the bytes are not valid UTF-8. */
function decode(bytes: Uint8Array, s: number, e: number): string | undefined {
  let high = 0;
  for (let i = s; i < e; i++) high |= bytes[i]!;
  if (high < 0x80) return latin1(bytes, s, e);
  try {
    return utf8.decode(bytes.subarray(s, e));
  } catch {
    return undefined;
  }
}

/** Pass 1: group line ranges by query id. Undefined when the text parser should take over. */
export function scanRunBytes(bytes: Uint8Array): Scan | undefined {
  const n = bytes.length;
  let pos = n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const queries = new Map<string, QueryRanges>();
  let current: QueryRanges | undefined;
  let curStart = -1; // qid bytes of the current block
  let curLen = 0;
  let blockStart = pos;
  let tag: string | undefined;
  while (pos < n) {
    let nl = bytes.indexOf(NL, pos);
    if (nl < 0) nl = n;
    if (bytes[pos] !== HASH_SIGN) {
      let i = pos;
      while (i < nl && isSpace(bytes[i]!)) i++;
      if (i < nl) {
        const qs = i;
        while (i < nl && !isSpace(bytes[i]!)) i++;
        const len = i - qs;
        let same = current !== undefined && len === curLen;
        for (let k = 0; same && k < len; k++) same = bytes[qs + k] === bytes[curStart + k];
        if (!same) {
          if (current) current.ranges.push(blockStart, pos);
          const q = decode(bytes, qs, i);
          if (q === undefined) return undefined;
          current = queries.get(q);
          if (!current) queries.set(q, (current = { qid: asQueryId(q), ranges: [] }));
          curStart = qs;
          curLen = len;
          blockStart = pos;
        }
        if (tag === undefined) {
          // the run's name: the 6th field of the first line
          let f = 1;
          while (f < 6 && i < nl) {
            while (i < nl && isSpace(bytes[i]!)) i++;
            const s = i;
            while (i < nl && !isSpace(bytes[i]!)) i++;
            if (++f === 6 && i > s) tag = decode(bytes, s, i);
          }
          if (tag === undefined) return undefined;
        }
      }
    }
    pos = nl + 1;
  }
  if (current) current.ranges.push(blockStart, n);
  if (tag === undefined) return undefined;
  return { queries, tag };
}

/** A query's judged docids as byte ranges of the qrels buffer in an open-addressing table, for lookups by run bytes. */
class JudgedBytes {
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

const hashBytes = (bytes: Uint8Array, s: number, e: number): number => {
  let h = FNV_OFFSET;
  for (let b = s; b < e; b++) h = Math.imul(h ^ bytes[b]!, FNV_PRIME);
  return h;
};

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

/**
 * Qrels (TREC 4 columns or BEIR 3 columns with its header) from bytes, with the text parser's rules;
 * undefined when that parser must take over (malformed line, a judgment repeated with another grade, a
 * grade like "1.0", invalid UTF-8).
 */
export function parseQrelsBytes(bytes: Uint8Array): ByteQrels | undefined {
  const n = bytes.length;
  let pos = n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const building = new Map<string, { starts: number[]; lengths: number[]; hashes: number[]; codes: number[]; grades: number[] }>();
  const line = { count: 0, high: 0 };
  let columns = 0;
  let sawContent = false;
  let cur: ReturnType<typeof building.get>;
  let curStart = -1;
  let curLen = 0;
  while (pos < n) {
    if (bytes[pos] === HASH_SIGN) {
      const nl = bytes.indexOf(NL, pos);
      pos = nl < 0 ? n : nl + 1;
      continue;
    }
    pos = scanLine(bytes, pos, n, 4, line);
    const count = line.count;
    if (count === 0) continue;
    if (count !== 3 && count !== 4) return undefined;
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
    let same = cur !== undefined && ql === curLen;
    for (let k = 0; same && k < ql; k++) same = bytes[qs + k] === bytes[curStart + k];
    if (!same) {
      const q = decode(bytes, qs, qs + ql)!;
      cur = building.get(q);
      if (!cur) building.set(q, (cur = { starts: [], lengths: [], hashes: [], codes: [], grades: [] }));
      curStart = qs;
      curLen = ql;
    }
    const ds = FIELD_START[count - 2]!;
    const de = FIELD_END[count - 2]!;
    cur!.starts.push(ds);
    cur!.lengths.push(de - ds);
    cur!.hashes.push(hashBytes(bytes, ds, de));
    cur!.codes.push(grade < 0 ? RELVALUE_UNJUDGED : grade);
    cur!.grades.push(grade);
  }
  if (building.size === 0) return undefined;
  const queries = new Map<string, { judged: JudgedQuery; table: JudgedBytes }>();
  let duplicates = 0;
  let positive = 0;
  for (const [qid, b] of building) {
    const table = new JudgedBytes(
      bytes,
      Int32Array.from(b.starts),
      Int32Array.from(b.lengths),
      Int32Array.from(b.hashes),
      Int32Array.from(b.codes),
    );
    // repeated docids: the same grade is counted once (a warning), another grade is an error (the text parser's)
    const keep: number[] = [];
    for (let i = 0; i < b.starts.length; i++) {
      const h = b.hashes[i]!;
      let dup = -1;
      for (let slot = h & table.mask; ; slot = (slot + 1) & table.mask) {
        const j = table.table[slot]!;
        if (j < 0) break;
        if (j >= i) continue;
        if (
          b.hashes[j] === h &&
          b.lengths[j] === b.lengths[i] &&
          compareBytes(bytes, b.starts[j]!, b.lengths[j]!, b.starts[i]!, b.lengths[i]!) === 0
        ) {
          dup = j;
          break;
        }
      }
      if (dup < 0) keep.push(b.grades[i]!);
      else if (b.grades[dup] !== b.grades[i]) return undefined;
      else duplicates++;
    }
    const judged = summarizeJudgments(keep);
    positive += judged.numPositive;
    queries.set(qid, { judged, table });
  }
  return { queries, positive, duplicates };
}

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/**
 * A decimal score from bytes, correctly rounded: with at most 15 significant digits and a decimal exponent
 * within ±22 both the digits and the power of ten are exact doubles, so one multiplication or division
 * rounds correctly (Clinger 1990) — the value C's atof gives. Anything else goes to the platform's parser.
 * NaN when the text is not a finite number.
 */
export function parseScoreBytes(bytes: Uint8Array, s: number, e: number): number {
  if (s >= e) return Number.NaN;
  let i = s;
  let neg = false;
  const c0 = bytes[i];
  if (c0 === 45 || c0 === 43) {
    neg = c0 === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let any = false;
  while (i < e) {
    const d = bytes[i]! - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (digits > 0 || d > 0) digits++;
    mantissa = mantissa * 10 + d;
    i++;
  }
  if (i < e && bytes[i] === 46) {
    i++;
    while (i < e) {
      const d = bytes[i]! - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (digits > 0 || d > 0) digits++;
      mantissa = mantissa * 10 + d;
      scale--;
      i++;
    }
  }
  if (i < e && (bytes[i] === 101 || bytes[i] === 69)) {
    i++;
    let eneg = false;
    if (bytes[i] === 45 || bytes[i] === 43) eneg = bytes[i++] === 45;
    let exp = 0;
    let expDigits = 0;
    while (i < e && expDigits < 6) {
      const d = bytes[i]! - 48;
      if (d < 0 || d > 9) break;
      exp = exp * 10 + d;
      expDigits++;
      i++;
    }
    if (expDigits === 0) return slowScore(bytes, s, e);
    scale += eneg ? -exp : exp;
  }
  if (!any || i !== e) return slowScore(bytes, s, e);
  if (digits > 15 || scale < -22 || scale > 22) return slowScore(bytes, s, e);
  const v = scale < 0 ? mantissa / POW10[-scale]! : mantissa * POW10[scale]!;
  return neg ? -v : v;
}

function slowScore(bytes: Uint8Array, s: number, e: number): number {
  const v = Number(latin1(bytes, s, e));
  return Number.isFinite(v) ? v : Number.NaN;
}

/** strcmp of bytes[a, a+la) and bytes[b, b+lb) (sign only). */
function compareBytes(bytes: Uint8Array, a: number, la: number, b: number, lb: number): number {
  const n = la < lb ? la : lb;
  for (let k = 0; k < n; k++) {
    const d = bytes[a + k]! - bytes[b + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/** One query's parsed lines, reused from query to query. */
class QueryLines {
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
      const grow = <T extends Int32Array | Float64Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.docStart = grow(this.docStart);
      this.docLen = grow(this.docLen);
      this.docHash = grow(this.docHash);
      this.scores = grow(this.scores);
      this.codes = grow(this.codes);
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

  /** Codes in trec_eval order (score desc, docid desc) into `into`; returns how many. */
  ordered(bytes: Uint8Array, into: Int32Array, depth: number): void {
    const { n, scores, docStart, docLen, codes } = this;
    let inOrder = true;
    let byScore = true;
    for (let i = 1; i < n; i++) {
      const a = scores[i - 1]!;
      const b = scores[i]!;
      if (a > b) continue;
      if (a < b) {
        inOrder = byScore = false;
        break;
      }
      if (compareBytes(bytes, docStart[i - 1]!, docLen[i - 1]!, docStart[i]!, docLen[i]!) < 0) inOrder = false;
    }
    if (inOrder) {
      into.set(codes.subarray(0, depth));
      return;
    }
    const order = this.order.subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    const byDocDesc = (x: number, y: number): number => compareBytes(bytes, docStart[y]!, docLen[y]!, docStart[x]!, docLen[x]!);
    if (byScore) {
      // sorted by score already: insertion-sort each group of equal scores by docid, descending
      for (let start = 0; start < n;) {
        let end = start + 1;
        while (end < n && scores[end] === scores[start]) end++;
        for (let i = start + 1; i < end; i++) {
          const v = order[i]!;
          let j = i - 1;
          while (j >= start && byDocDesc(order[j]!, v) > 0) {
            order[j + 1] = order[j]!;
            j--;
          }
          order[j + 1] = v;
        }
        start = end;
      }
    } else {
      order.sort((x, y) => {
        const sx = scores[x]!;
        const sy = scores[y]!;
        return sx > sy ? -1 : sx < sy ? 1 : byDocDesc(x, y);
      });
    }
    for (let i = 0; i < depth; i++) into[i] = codes[order[i]!]!;
  }
}

/**
 * Parse one query's lines from its byte ranges into `lines`, codes looked up in `judged` (undefined for
 * a query without judgments: validated, not evaluated). Returns false when the text parser must take over.
 */
function parseQuery(
  bytes: Uint8Array,
  ranges: readonly number[],
  lines: QueryLines,
  judged: JudgedBytes | undefined,
  tag: Uint8Array,
  tally: { otherTags: number },
): boolean {
  lines.n = 0;
  const line = { count: 0, high: 0 };
  const st = FIELD_START;
  const en = FIELD_END;
  for (let r = 0; r < ranges.length; r += 2) {
    const end = ranges[r + 1]!;
    let pos = ranges[r]!;
    while (pos < end) {
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
      // rank: an integer (the text parser's rule), otherwise ignored
      let k = st[3]!;
      const rankEnd = en[3]!;
      if (bytes[k] === 45 || bytes[k] === 43) k++;
      if (k >= rankEnd || rankEnd - k > 15) return false;
      for (; k < rankEnd; k++) {
        const c = bytes[k]!;
        if (c < 48 || c > 57) return false;
      }
      const score = parseScoreBytes(bytes, st[4]!, en[4]!);
      if (score !== score) return false; // NaN
      const ts = st[5]!;
      const tl = en[5]! - ts;
      let sameTag = tl === tag.length;
      for (let t = 0; sameTag && t < tl; t++) sameTag = bytes[ts + t] === tag[t];
      if (!sameTag) tally.otherTags++;
      const d = lines.push();
      const ds = st[2]!;
      const de = en[2]!;
      const h = hashBytes(bytes, ds, de);
      lines.docStart[d] = ds;
      lines.docLen[d] = de - ds;
      lines.docHash[d] = h;
      lines.scores[d] = score;
      lines.codes[d] = judged === undefined ? RELVALUE_NONPOOL : judged.code(bytes, ds, de, h);
    }
  }
  return lines.distinct(bytes);
}

/**
 * Evaluate the run in `bytes` with `plan`; undefined when the text parser must take over (see the module
 * comment). `qrels` come from the usual parser (they are small next to runs).
 */
export function evaluateRunBytes(qrels: ByteQrels, bytes: Uint8Array, plan: EvalPlan, opts: ByteEvalOptions): ByteEvalResult | undefined {
  const scan = scanRunBytes(bytes);
  if (!scan) return undefined;
  const judged = qrels.queries;
  const withPlaceholders = opts.complete && opts.version === '10.0';
  const lines = new QueryLines();
  const tag = new TextEncoder().encode(scan.tag);
  const tally = { otherTags: 0 };

  // Every query of the run is parsed (so bad lines anywhere are found), judged ones in print order first.
  const printed = (withPlaceholders ? [...judged.keys()] : [...scan.queries.keys()].filter((q) => judged.has(q))).sort(
    compareUtf8,
  ) as QueryId[];
  const unjudged = [...scan.queries.values()].filter((q) => !judged.has(q.qid));
  for (const q of unjudged) if (!parseQuery(bytes, q.ranges, lines, undefined, tag, tally)) return undefined;
  if (printed.length === 0 || printed.every((q) => !scan.queries.has(q))) return undefined; // the text path reports it

  const slots = plan.slots;
  const values = new Float64Array(printed.length * slots);
  const texts: (Record<string, string> | undefined)[] = [];
  const missing = new Set<QueryId>();
  const ctx = new ContextBuilder(opts.relevanceLevel, opts.maxRetrieved, opts.version);
  // Parse and validate everything before the first row goes out, so bad input prints nothing on stdout.
  const parsed: { judged: JudgedQuery; codes: Int32Array | undefined }[] = [];
  for (const qid of printed) {
    const j = judged.get(qid)!;
    const q = scan.queries.get(qid);
    if (!q) {
      parsed.push({ judged: j.judged, codes: undefined });
      continue;
    }
    if (!parseQuery(bytes, q.ranges, lines, j.table, tag, tally)) return undefined;
    const depth = ctx.depthOf(lines.n);
    const codes = new Int32Array(depth);
    lines.ordered(bytes, codes, depth);
    parsed.push({ judged: j.judged, codes });
  }
  for (let qi = 0; qi < printed.length; qi++) {
    const p = parsed[qi]!;
    parsed[qi] = undefined as never; // let the codes go as soon as they are used
    const base = qi * slots;
    let t: Record<string, string> | undefined;
    if (p.codes === undefined) {
      missing.add(printed[qi]!);
      t = plan.compute(ctx.fillPlaceholder(p.judged), values, base);
      plan.clearPlaceholder(values, base, t);
    } else {
      ctx.reserve(p.codes.length).set(p.codes);
      t = plan.compute(ctx.commit(p.codes.length, p.judged), values, base);
    }
    texts.push(t);
    opts.onQuery?.(printed[qi]!, values.subarray(base, base + slots), t);
  }

  const denominator = opts.complete ? judged.size : printed.length;
  const sums = new Float64Array(slots);
  for (let qi = 0, base = 0; qi < printed.length; qi++, base += slots)
    for (let j = 0; j < slots; j++) sums[j] = sums[j]! + values[base + j]!;
  const positive = qrels.positive;
  const perQueryText = new Map<QueryId, Record<string, string>>();
  if (plan.hasText) printed.forEach((q, qi) => perQueryText.set(q, texts[qi]!));
  const result = makeResult({
    runid: scan.tag,
    options: { relevanceLevel: opts.relevanceLevel, complete: opts.complete, maxRetrieved: opts.maxRetrieved, version: opts.version },
    columns: plan.columns,
    queries: printed,
    missing,
    valueNames: plan.valueNames,
    values: plan.compact(values, printed.length),
    perQueryText,
    aggregate: plan.aggregate(sums, printed.length, denominator, opts.complete, positive),
  });
  return { result, otherTags: tally.otherTags, tag: scan.tag };
}
