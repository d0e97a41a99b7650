/**
 * Runs at scale: a TREC run read from its bytes, chunk by chunk, keeping each query's first `depth` documents
 * in the run's own order (rank column ascending, file order between equal ranks — exactly `parseRun`'s
 * order) and forgetting the rest, so memory follows the kept part, not the file (an MS MARCO dev run is 7M
 * lines and 250 MB; kept at depth 100 it is 700k documents).
 *
 * What is kept per query besides the top documents: how many documents the run ranks (`length`) and, when
 * the judgments are given, where the run ranks each judged document below the kept part (`tail`), so support
 * ranks and anything else that only needs the judged documents' positions stay exact at any depth.
 *
 * Validation is `parseRun`'s, line for line, with the same messages and warnings: every line is checked
 * (columns, integer rank, finite score, a document twice in one query), only the kept documents' ids are
 * turned into strings. One case is left to the caller: a query whose lines are not together in the file
 * (`ScatteredRunError`) — `readRunTop` then reads the file again with `parseRun` and keeps the same top.
 */
import type { Diagnostic, DocId, QueryId } from '../types.ts';
import { grow } from '../grow.ts';
import { FNV_OFFSET, FNV_PRIME, fnv1a } from '../fnv.ts';
import { SCORE, scoreBytes } from './score-bytes.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asQueryId } from './ids.ts';
import { keepTop, recut, type KeepOptions, type KeptList, type KeptRun } from './run-keep.ts';
import { byteChunks, lineTooLong, MAX_LINE_BYTES, type TextSource } from './lines.ts';
import { extraColumnsWarning, otherTagsWarning, parseRun, type ParseResult } from './trec.ts';

// What a run keeps and how (run-keep.ts), for the callers that read runs through this module.
export { forEvaluation, KEEP_BUDGET_DOCS, KEEP_LARGE, KEEP_WHOLE, keepRule, keepTop } from './run-keep.ts';
export type { KeepOptions, KeptList, KeptRun } from './run-keep.ts';

/** A query's lines are not together in the file: the streaming reader cannot cut it (see readRunTop). */
export class ScatteredRunError extends Error {
  override readonly name = 'ScatteredRunError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly qid: string,
  ) {
    super(`${file}:${line}: query ${qid} appears again after other queries`);
  }
}

const NL = 10;
const HASH = 0x23;
/** Byte classes for the field scan: 0 a field's byte, 1 whitespace (trec.ts's isSpace), 2 the newline. */
const CLASS = new Uint8Array(256);
for (const c of [32, 9, 11, 12, 13]) CLASS[c] = 1;
CLASS[NL] = 2;

/**
 * trec.ts's parseIntRange on bytes: a sign and up to 15 digits exactly; NaN where that parser would hand the
 * text to Number (the caller then does, on the decoded field).
 */
function rankOf(bytes: Uint8Array, s: number, e: number): number {
  let i = s;
  let sign = 1;
  if (bytes[i] === 45) {
    sign = -1;
    i++;
  } else if (bytes[i] === 43) i++;
  if (i >= e || e - i > 15) return Number.NaN;
  let v = 0;
  for (; i < e; i++) {
    const d = bytes[i]! - 48;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
  }
  return sign * v;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Bytes as a string: ASCII by hand (ids are short and many), anything else through the decoder. */
function text(bytes: Uint8Array, s: number, e: number): string {
  if (e - s > 64) return utf8.decode(bytes.subarray(s, e));
  let out = '';
  for (let i = s; i < e; i++) {
    const c = bytes[i]!;
    if (c >= 0x80) return utf8.decode(bytes.subarray(s, e));
    out += String.fromCharCode(c);
  }
  return out;
}

/**
 * The streaming reader: `push` chunks of the run's (decompressed) bytes in order, then `finish`. Throws
 * `InputError` with file and line for bad lines, and `ScatteredRunError` for a query seen again.
 */
export class RunTopReader {
  private buf = new Uint8Array(1 << 16);
  private filled = 0;
  private started = false;
  private lineNo = 0;
  private runLines = 0;
  /** Position in the file of buf[0], and of the line being read (its start in buf). */
  private bufBase = 0;
  private lineAt = 0;
  private cut = false;
  private depth: number;
  private keptDocs = 0;
  private readonly byQuery = new Map<QueryId, KeptList>();
  private readonly closed = new Set<string>();
  private readonly warnings: Diagnostic[] = [];
  private tag: Uint8Array<ArrayBufferLike> | undefined;
  private tagText = '';
  private otherTags = 0;
  private extraColumns = 0;
  private firstExtraLine = 0;
  private readonly fs = new Int32Array(6);
  private readonly fe = new Int32Array(6);

  // The current query: its id, and per line its rank, score, line number and docid (bytes in `arena`).
  private qid: Uint8Array<ArrayBufferLike> | undefined;
  private qidText = '';
  private n = 0;
  private ranks = new Float64Array(1024);
  private scores = new Float64Array(1024);
  private lines = new Int32Array(1024);
  private docOff = new Int32Array(1024);
  private docLen = new Int32Array(1024);
  private docHash = new Int32Array(1024);
  private arena: Uint8Array<ArrayBufferLike> = new Uint8Array(1 << 14);
  private arenaUsed = 0;
  private sorted = true;
  /** Open addressing over the current query's docids (entry index + 1; 0 = empty). */
  private table = new Int32Array(2048);
  /** The query each slot of `table` was filled for: a slot of another query is empty (no clearing per query). */
  private stamp = new Int32Array(2048);
  private generation = 1;

  constructor(
    private readonly file: string,
    private readonly opts: KeepOptions,
  ) {
    if (!(opts.depth >= 1)) throw new RangeError(`depth must be at least 1, got ${opts.depth}`);
    this.depth = opts.depth;
  }

  push(chunk: Uint8Array): void {
    const need = this.filled + chunk.length;
    if (need > this.buf.length) this.buf = grow(this.buf, need);
    this.buf.set(chunk, this.filled);
    this.filled = need;
    if (!this.started) {
      if (this.filled < 3) return;
      this.dropByteOrderMark();
    }
    const end = this.buf.lastIndexOf(NL, this.filled - 1) + 1;
    if (end === 0) {
      // No run line is this long: a file without line breaks (binary, or one huge line) is refused here,
      // not after it has been read whole into memory.
      if (this.filled > MAX_LINE_BYTES) {
        const head = utf8.decode(this.buf.subarray(0, 240));
        throw lineTooLong(this.file, this.lineNo + 1, head);
      }
      return;
    }
    this.lines_(this.buf, end);
    this.buf.copyWithin(0, end, this.filled);
    this.filled -= end;
    this.bufBase += end;
  }

  /** A UTF-8 byte-order mark at the start is not part of the first query id (TextDecoder drops it too). */
  private dropByteOrderMark(): void {
    this.started = true;
    const b = this.buf;
    if (this.filled >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      b.copyWithin(0, 3, this.filled);
      this.filled -= 3;
    }
  }

  finish(): ParseResult<KeptRun> {
    if (!this.started) this.dropByteOrderMark();
    if (this.filled > 0) {
      this.lines_(this.buf, this.filled);
      this.filled = 0;
    }
    this.closeQuery();
    if (this.byQuery.size === 0) throw new InputError(this.file, undefined, 'expected at least one run line, found none');
    if (this.otherTags > 0) this.warnings.push(otherTagsWarning(this.file, this.otherTags, this.tagText));
    if (this.extraColumns > 0) this.warnings.push(extraColumnsWarning(this.file, this.extraColumns, this.firstExtraLine));
    const value: KeptRun = {
      name: this.opts.name ?? (this.tag === undefined ? this.file : this.tagText),
      byQuery: this.byQuery,
      depth: this.depth,
      cut: this.cut,
      lines: this.runLines,
    };
    return { value, warnings: this.warnings };
  }

  /** Every line of bytes[0, end) (`end` after a newline, or the file's end with `last`). */
  private lines_(bytes: Uint8Array, end: number): void {
    let pos = 0;
    while (pos < end) {
      this.lineNo++;
      this.lineAt = pos;
      const fast = this.fastLine(bytes, pos, end);
      pos = (fast >= 0 ? fast : this.line(bytes, pos, end)) + 1;
    }
  }

  /**
   * The common line in one pass: the current query's id, a second field, an ASCII docid, an integer rank of
   * at most 15 digits, a score `scoreBytes` reads, the first line's tag, then the newline (a carriage return
   * allowed). Returns the newline's position, or -1 for any other line: `line` then reads it (and decides).
   */
  private fastLine(bytes: Uint8Array, pos: number, limit: number): number {
    const q = this.qid;
    const tag = this.tag;
    if (q === undefined || tag === undefined) return -1;
    const ql = q.length;
    if (pos + ql >= limit) return -1;
    for (let k = 0; k < ql; k++) if (bytes[pos + k] !== q[k]) return -1;
    let p = pos + ql;
    let c = bytes[p]!;
    if (c !== 32 && c !== 9) return -1;
    while ((c = bytes[++p]!) === 32 || c === 9);
    while (p < limit && CLASS[bytes[p]!] === 0) p++; // Q0
    c = bytes[p]!;
    if (c !== 32 && c !== 9) return -1;
    while ((c = bytes[++p]!) === 32 || c === 9);
    const ds = p;
    while (p < limit && (c = bytes[p]!) < 0x80 && CLASS[c] === 0) p++;
    const de = p;
    if (de === ds || (c !== 32 && c !== 9)) return -1;
    while ((c = bytes[++p]!) === 32 || c === 9);
    // rank: up to 15 digits, no sign (anything else: the general line)
    let rank = 0;
    const rs = p;
    while (p < limit && (c = bytes[p]!) >= 48 && c <= 57) {
      rank = rank * 10 + (c - 48);
      p++;
    }
    if (p === rs || p - rs > 15 || (c !== 32 && c !== 9)) return -1;
    while ((c = bytes[++p]!) === 32 || c === 9);
    const ss = p;
    while (p < limit && CLASS[bytes[p]!] === 0) p++;
    const se = p;
    c = bytes[p]!;
    if (c !== 32 && c !== 9) return -1;
    while ((c = bytes[++p]!) === 32 || c === 9);
    const tl = tag.length;
    if (p + tl > limit) return -1;
    for (let k = 0; k < tl; k++) if (bytes[p + k] !== tag[k]) return -1;
    p += tl;
    if (p < limit && bytes[p] === 13) p++;
    if (p < limit && bytes[p] !== NL) return -1;
    if (!scoreBytes(bytes, ss, se)) return -1;
    this.add(bytes, ds, de, rank, SCORE[0]!);
    this.runLines++;
    return p;
  }

  /**
   * The line starting at `s` (it ends at the next newline, or at `limit`): fields found in one pass that also
   * finds the newline. Returns the newline's position (or `limit`).
   */
  private line(bytes: Uint8Array, s: number, limit: number): number {
    if (bytes[s] === HASH) {
      const nl = bytes.indexOf(NL, s);
      return nl < 0 || nl > limit ? limit : nl;
    }
    const fs = this.fs;
    const fe = this.fe;
    let count = 0;
    let i = s;
    let c = 0;
    for (;;) {
      while (i < limit && (c = CLASS[bytes[i]!]!) === 1) i++;
      if (i >= limit || c === 2) break;
      const a = i;
      while (i < limit && (c = CLASS[bytes[i]!]!) === 0) i++;
      if (count === 6) {
        count = 7;
        const nl = bytes.indexOf(NL, i);
        i = nl < 0 || nl > limit ? limit : nl;
        break;
      }
      fs[count] = a;
      fe[count++] = i;
    }
    const e = i;
    if (count === 0) return e;
    if (count < 6) {
      // The line as LineSplitter gives it: without one carriage return before the newline.
      const line = utf8.decode(bytes.subarray(s, e > s && bytes[e - 1] === 13 ? e - 1 : e));
      throw new InputError(
        this.file,
        this.lineNo,
        `expected 6 columns "qid Q0 docid rank score tag" (TREC run), got ${count}: ${quote(line)}`,
      );
    }
    if (count > 6 && this.extraColumns++ === 0) this.firstExtraLine = this.lineNo;
    let rank = rankOf(bytes, fs[3]!, fe[3]!);
    if (Number.isNaN(rank)) rank = Number(this.field(bytes, 3));
    if (!Number.isInteger(rank))
      throw new InputError(this.file, this.lineNo, `expected an integer rank in column 4, got ${quote(this.field(bytes, 3))}`);
    let score: number;
    if (scoreBytes(bytes, fs[4]!, fe[4]!)) score = SCORE[0]!;
    else {
      score = Number(this.field(bytes, 4));
      if (!Number.isFinite(score))
        throw new InputError(this.file, this.lineNo, `expected a finite number as score in column 5, got ${quote(this.field(bytes, 4))}`);
    }
    // The tag: the first line's, then counted when another.
    const ts = fs[5]!;
    const tl = fe[5]! - ts;
    if (this.tag === undefined) {
      this.tag = bytes.slice(ts, ts + tl);
      this.tagText = this.field(bytes, 5);
    } else if (!this.same(this.tag, bytes, ts, tl)) this.otherTags++;

    const qs = fs[0]!;
    const ql = fe[0]! - qs;
    if (this.qid === undefined || !this.same(this.qid, bytes, qs, ql)) {
      this.closeQuery();
      const q = this.field(bytes, 0);
      if (this.closed.has(q)) throw new ScatteredRunError(this.file, this.lineNo, q);
      this.qid = bytes.slice(qs, qs + ql);
      this.qidText = q;
    }
    this.add(bytes, fs[2]!, fe[2]!, rank, score);
    this.runLines++;
    return e;
  }

  private field(bytes: Uint8Array, f: number): string {
    return utf8.decode(bytes.subarray(this.fs[f]!, this.fe[f]!));
  }

  private same(a: Uint8Array, bytes: Uint8Array, s: number, l: number): boolean {
    if (a.length !== l) return false;
    for (let k = 0; k < l; k++) if (a[k] !== bytes[s + k]) return false;
    return true;
  }

  private add(bytes: Uint8Array, ds: number, de: number, rank: number, score: number): void {
    if (this.n === this.ranks.length) {
      const need = this.n + 1;
      this.ranks = grow(this.ranks, need);
      this.scores = grow(this.scores, need);
      this.lines = grow(this.lines, need);
      this.docOff = grow(this.docOff, need);
      this.docLen = grow(this.docLen, need);
      this.docHash = grow(this.docHash, need);
    }
    const len = de - ds;
    if (this.arenaUsed + len > this.arena.length) this.arena = grow(this.arena, this.arenaUsed + len);
    // Copied and hashed in one loop (a subarray per line would be an allocation per line).
    const arena = this.arena;
    let h = FNV_OFFSET;
    for (let k = 0, o = this.arenaUsed; k < len; k++) {
      const b = bytes[ds + k]!;
      arena[o + k] = b;
      h = Math.imul(h ^ b, FNV_PRIME);
    }
    const i = this.n++;
    this.ranks[i] = rank;
    this.scores[i] = score;
    this.lines[i] = this.lineNo;
    this.docOff[i] = this.arenaUsed;
    this.docLen[i] = len;
    this.docHash[i] = h;
    this.arenaUsed += len;
    if (i > 0 && this.ranks[i - 1]! > rank) this.sorted = false;
    this.insertDistinct(i);
  }

  /** Adds entry i to the docid table; a docid already there is parseRun's "appears twice" error. */
  private insertDistinct(i: number): void {
    if (this.n << 1 > this.table.length) this.rehash();
    const table = this.table;
    const stamp = this.stamp;
    const gen = this.generation;
    const mask = table.length - 1;
    const h = this.docHash[i]!;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      if (stamp[slot] !== gen) {
        stamp[slot] = gen;
        table[slot] = i;
        return;
      }
      const j = table[slot]!;
      if (this.docHash[j] === h && this.sameDoc(i, j)) {
        const doc = text(this.arena, this.docOff[i]!, this.docOff[i]! + this.docLen[i]!);
        throw new InputError(
          this.file,
          this.lineNo,
          `document ${quote(doc)} appears twice for query ${quote(this.qidText)} (first on line ${this.lines[j]})`,
        );
      }
    }
  }

  private sameDoc(i: number, j: number): boolean {
    const l = this.docLen[i]!;
    if (this.docLen[j] !== l) return false;
    const a = this.docOff[i]!;
    const b = this.docOff[j]!;
    for (let k = 0; k < l; k++) if (this.arena[a + k] !== this.arena[b + k]) return false;
    return true;
  }

  /** Over budget: every list kept so far is cut to `depth`, and so will be the rest. */
  private shrink(depth: number): void {
    this.depth = depth;
    this.keptDocs = 0;
    for (const [qid, list] of this.byQuery) {
      const cut = recut(list, depth, qid, this.opts.judged);
      if (cut !== list) {
        this.byQuery.set(qid, cut);
        this.cut = true;
      }
      this.keptDocs += cut.docs.length;
    }
  }

  private rehash(): void {
    const size = this.table.length * 2;
    this.table = new Int32Array(size);
    this.stamp = new Int32Array(size);
    const gen = this.generation;
    const mask = size - 1;
    for (let i = 0; i < this.n - 1; i++) {
      let slot = this.docHash[i]! & mask;
      while (this.stamp[slot] === gen) slot = (slot + 1) & mask;
      this.stamp[slot] = gen;
      this.table[slot] = i;
    }
  }

  /** The current query is complete: keep its top, record its judged tail, forget the rest. */
  private closeQuery(): void {
    const n = this.n;
    if (this.qid === undefined || n === 0) return;
    const qid = asQueryId(this.qidText);
    const depth = this.depth;
    let order: Uint32Array | undefined;
    if (!this.sorted) {
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
      const ranks = this.ranks;
      order.sort((a, b) => ranks[a]! - ranks[b]! || a - b);
    }
    const at = (p: number): number => (order === undefined ? p : order[p]!);
    const keep = Math.min(n, depth);
    if (n > depth) this.cut = true;
    const docs: DocId[] = new Array<DocId>(keep);
    const scores = new Float64Array(keep);
    for (let p = 0; p < keep; p++) {
      const i = at(p);
      docs[p] = asDocId(text(this.arena, this.docOff[i]!, this.docOff[i]! + this.docLen[i]!));
      scores[p] = this.scores[i]!;
    }
    let tail: KeptList['tail'];
    const judged = n > depth ? this.opts.judged?.(qid) : undefined;
    if (judged !== undefined && judged.size > 0) {
      const byHash = new Map<number, DocId[]>();
      const enc = new TextEncoder();
      for (const d of judged.keys()) {
        const b = enc.encode(d);
        const h = fnv1a(b);
        const list = byHash.get(h);
        if (list) list.push(d);
        else byHash.set(h, [d]);
      }
      const tailDocs: DocId[] = [];
      const positions: number[] = [];
      for (let p = depth; p < n; p++) {
        const i = at(p);
        const candidates = byHash.get(this.docHash[i]!);
        if (candidates === undefined) continue;
        const id = text(this.arena, this.docOff[i]!, this.docOff[i]! + this.docLen[i]!);
        if (candidates.includes(id as DocId)) {
          tailDocs.push(id as DocId);
          positions.push(p + 1);
        }
      }
      if (tailDocs.length > 0) tail = { docs: tailDocs, positions: Int32Array.from(positions) };
    }
    this.byQuery.set(qid, tail === undefined ? { docs, scores, length: n } : { docs, scores, length: n, tail });
    this.keptDocs += keep;
    const budget = this.opts.budget;
    if (budget !== undefined && budget.depth < this.depth) {
      if (this.keptDocs > budget.docs) this.shrink(budget.depth);
      else if (this.byQuery.size === 1 && this.opts.sizeHint !== undefined && this.runLines > 0) {
        // Bytes per line of the first query: a guess for the file, and a safe one — if it is low, the budget
        // still cuts the run once it is exceeded; if high, only the budget's depth was kept early.
        const perLine = (this.bufBase + this.lineAt) / this.runLines;
        const lines = this.opts.sizeHint / Math.max(perLine, 1);
        if ((lines * Math.min(keep, n)) / n > budget.docs) this.shrink(budget.depth);
      }
    }
    this.closed.add(this.qidText);
    this.n = 0;
    this.arenaUsed = 0;
    this.sorted = true;
    this.generation++;
    this.qid = undefined;
  }
}

/**
 * Read a run from any source (gzip by its magic bytes) keeping each query's top `depth`. `open` is called
 * again if the file turns out to have a query whose lines are apart: it is then read whole by `parseRun`
 * (memory as for any parsed run) and cut the same way.
 */
export async function readRunTop(open: () => TextSource, file: string, options: KeepOptions): Promise<ParseResult<KeptRun>> {
  const reader = new RunTopReader(file, options);
  try {
    for await (const chunk of byteChunks(open(), file)) reader.push(chunk);
    return reader.finish();
  } catch (e) {
    if (!(e instanceof ScatteredRunError)) throw e;
    const full = await parseRun(open(), file, options.name);
    return { value: keepTop(full.value, options), warnings: full.warnings };
  }
}
