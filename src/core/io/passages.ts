/**
 * Passages kept by id, streamed: read a corpus file once and keep only the passages a loaded set of runs can
 * show (e.g. every document in their top 100), so a collection given as qrels + runs gets its text without
 * ever holding the corpus. MS MARCO's `collection.tsv` is 3 GB for 8.8M passages; its dev runs at depth 100
 * name ~4% of them.
 *
 * Formats, recognised by content (never by name): MS MARCO TSV `pid<TAB>text` (the text is everything after
 * the first tab; a first line naming the columns, `id<TAB>text`, is skipped) and BEIR `corpus.jsonl`
 * (`_id`, optional `title`, `text`), each plain or gzip (magic bytes; DecompressionStream).
 *
 * Memory: the kept passages plus one chunk (and the current line when it spans chunks). Lines are split on
 * the bytes; a line whose id is not wanted is never decoded to text: only its id is read (TSV: the bytes
 * before the first tab; JSONL: the top-level `"_id"`, found by a structural scan that skips the other
 * values). Kept lines are decoded into fresh strings (not slices of a chunk, which would pin the chunk) and,
 * for JSONL, parsed with `JSON.parse` and checked as `parseCorpus` checks them.
 *
 * Validation, honestly scoped: every line must have an id (TSV: a tab after a non-empty id; JSONL: an object
 * with a string or number `"_id"`, structurally valid JSON); kept lines are fully validated. Not checked on
 * skipped lines: JSON details inside values other than `_id` (escapes, number syntax), and duplicate ids
 * (finding them would hold every id); a kept id seen twice is an error.
 */
import { errorMessage } from '../error-message.ts';
import { grow } from '../grow.ts';
import type { Corpus, Diagnostic, DocId, DocIndex, Run } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, normalizeId } from './ids.ts';
import type { TextSource } from './lines.ts';
import { isGzip, streamChunks } from './lines.ts';
import type { ParseResult } from './trec.ts';
import { FAILED, ID_PLAIN_STRING, NO_ID, scanTopLevelId } from './json-id-scan.ts';

export type PassagesFormat = 'tsv' | 'beir-jsonl';

export interface PassageFilterProgress {
  /** Bytes taken from the source so far (compressed bytes for a gzip file). */
  readonly bytesRead: number;
  /** The source's size when the caller knows it (`totalBytes`), else null. */
  readonly totalBytes: number | null;
  /** Passages (id-bearing lines) read so far, kept or not. */
  readonly passagesRead: number;
  readonly passagesKept: number;
}

export interface PassageFilterOptions {
  /** Size of the source in bytes (File.size, stat's size; the compressed size of a .gz), for a fraction and an ETA. */
  readonly totalBytes?: number;
  /** Progress, at most once per `progressEveryBytes` source bytes, and once at the end. */
  readonly onProgress?: (progress: PassageFilterProgress) => void;
  /** Default 4 MiB. */
  readonly progressEveryBytes?: number;
  /** Aborting stops the read at the next chunk (or within 4,096 lines) and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface KeptPassages {
  /**
   * The kept passages as a `Corpus`, in corpus file order; position i is DocIndex i of this (filtered)
   * corpus. TSV passages have the empty title, so `passageText` gives ". text" exactly as for a BEIR
   * passage without a title.
   */
  readonly corpus: Corpus;
  readonly format: PassagesFormat;
  readonly gzip: boolean;
  /** Passages in the file (header and blank lines not counted), kept or not. */
  readonly passagesRead: number;
  /** Source bytes read (compressed bytes for gzip). */
  readonly bytesRead: number;
  /** Wanted ids the file does not have, in the keep set's iteration order. */
  readonly missing: readonly DocId[];
}

/** First fields of a TSV header line (compared lowercased). */
const TSV_HEADER_IDS = new Set(['id', 'pid', '_id', 'docid', 'doc_id', 'doc-id', 'corpus-id', 'passage_id', 'passage-id']);
const EXAMPLES = 3;
const SOURCE_PIECE = 1 << 20;
const ABORT_CHECK_LINES = 4096;

/**
 * The documents a run can show at `depth`: every document in the top `depth` of every query of every run
 * (all of each list when `depth` is omitted). This is the keep set for `filterPassages`.
 */
export function docIdsInRuns(runs: Iterable<Run>, depth = Infinity): Set<DocId> {
  const out = new Set<DocId>();
  for (const run of runs) {
    for (const list of run.byQuery.values()) {
      const n = Math.min(depth, list.docs.length);
      for (let i = 0; i < n; i++) out.add(list.docs[i]!);
    }
  }
  return out;
}

/**
 * Stream `source` (a corpus file: TSV or BEIR JSONL, plain or gzip) and keep the passages whose ids are in
 * `keep`. Returns them as a `Corpus` with counts and the wanted ids the file lacks (one warning names a few).
 * Errors: `InputError(file, line, reason)` for a malformed line, `InputError(file, undefined, …)` for corrupt
 * or truncated gzip and for a file without passages; an abort rejects with `signal.reason`.
 */
export async function filterPassages(
  source: TextSource,
  file: string,
  keep: ReadonlySet<string>,
  options: PassageFilterOptions = {},
): Promise<ParseResult<KeptPassages>> {
  const { signal, onProgress } = options;
  const totalBytes = options.totalBytes ?? null;
  const every = Math.max(1, options.progressEveryBytes ?? 4 << 20);
  const sink = new PassageSink(file, keep, signal);
  let bytesRead = 0;
  let reported = 0;
  const report = () => onProgress?.({ bytesRead, totalBytes, passagesRead: sink.read, passagesKept: sink.ids.length });
  const throwIfAborted = () => {
    if (signal?.aborted) throw abortReason(signal);
  };

  const raw = byteChunks(source);
  async function* counted(): AsyncGenerator<Uint8Array> {
    for (;;) {
      throwIfAborted();
      const r = await raw.next();
      if (r.done) return;
      bytesRead += r.value.length;
      if (bytesRead - reported >= every) {
        reported = bytesRead;
        report();
      }
      yield r.value;
    }
  }

  const input = counted();
  let gzip: boolean;
  let decompressed: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    throwIfAborted();
    // Sniff gzip on the first two bytes, even when they arrive in separate chunks.
    const head: Uint8Array[] = [];
    let headBytes = 0;
    while (headBytes < 2) {
      const r = await input.next();
      if (r.done) break;
      head.push(r.value);
      headBytes += r.value.length;
    }
    const first = concat(head, headBytes);
    gzip = isGzip(first);
    const lines = new ByteLines(sink);
    if (gzip) {
      decompressed = gunzipReader(first, input);
      for (;;) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await decompressed.read();
        } catch (e) {
          throwIfAborted();
          throw new InputError(file, undefined, `could not decompress (corrupt or truncated gzip): ${errorMessage(e)}`);
        }
        if (r.done) break;
        throwIfAborted();
        lines.push(r.value);
      }
      decompressed = undefined;
    } else {
      if (first.length > 0) lines.push(first);
      for (;;) {
        const r = await input.next();
        if (r.done) break;
        lines.push(r.value);
      }
    }
    lines.end();
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    throw e;
  } finally {
    // Close what is still open (an error or an abort mid-file): the decompressor, then the source.
    if (decompressed) await decompressed.cancel().catch(() => undefined);
    await input.return(undefined).catch(() => undefined);
    await raw.return(undefined).catch(() => undefined);
  }
  report();
  return sink.finish(gzip, bytesRead);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The read was aborted', 'AbortError');
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Any TextSource as byte chunks of at most 1 MiB (so progress and abort have a grain), closable early. */
async function* byteChunks(source: TextSource): AsyncGenerator<Uint8Array, void, undefined> {
  if (typeof source === 'string') {
    const enc = new TextEncoder();
    const step = SOURCE_PIECE / 4;
    for (let i = 0; i < source.length;) {
      let end = Math.min(source.length, i + step);
      const c = source.charCodeAt(end - 1);
      if (end < source.length && c >= 0xd800 && c <= 0xdbff) end--; // keep surrogate pairs whole
      yield enc.encode(source.slice(i, end));
      i = end;
    }
  } else if (source instanceof Uint8Array) {
    for (let i = 0; i < source.length; i += SOURCE_PIECE) yield source.subarray(i, i + SOURCE_PIECE);
  } else if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    for await (const chunk of streamChunks(source as ReadableStream<Uint8Array>)) yield* pieces(chunk);
  } else {
    for await (const chunk of source as AsyncIterable<Uint8Array>) yield* pieces(chunk);
  }
}

function* pieces(chunk: Uint8Array): Generator<Uint8Array> {
  if (chunk.length <= SOURCE_PIECE) yield chunk;
  else for (let i = 0; i < chunk.length; i += SOURCE_PIECE) yield chunk.subarray(i, i + SOURCE_PIECE);
}

/** Decompress `head` then the rest of `input` with the platform's DecompressionStream; pull-driven. */
function gunzipReader(head: Uint8Array, input: AsyncGenerator<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
  let sentHead = false;
  const compressed = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!sentHead) {
          sentHead = true;
          if (head.length > 0) {
            controller.enqueue(head);
            return;
          }
        }
        const r = await input.next();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      },
      async cancel() {
        await input.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  const ds = new DecompressionStream('gzip');
  return (compressed as ReadableStream<Uint8Array<ArrayBuffer>>).pipeThrough(ds).getReader() as ReadableStreamDefaultReader<Uint8Array>;
}

/** The first buffer for a line that spans chunks. */
const MIN_CARRY_BYTES = 1024;

/** Splits byte chunks into lines (LF; a CR before it is dropped later); a line spanning chunks is copied once. */
class ByteLines {
  private carry = new Uint8Array(0);
  private carryLength = 0;
  private lineNo = 0;

  constructor(private readonly sink: PassageSink) {}

  push(chunk: Uint8Array): void {
    let pos = 0;
    const n = chunk.length;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      if (nl < 0) break;
      if (this.carryLength > 0) {
        this.append(chunk, pos, nl);
        this.sink.line(this.carry, 0, this.carryLength, ++this.lineNo);
        this.carryLength = 0;
      } else {
        this.sink.line(chunk, pos, nl, ++this.lineNo);
      }
      pos = nl + 1;
    }
    if (pos < n) this.append(chunk, pos, n);
  }

  end(): void {
    if (this.carryLength > 0) this.sink.line(this.carry, 0, this.carryLength, ++this.lineNo);
    this.carryLength = 0;
  }

  private append(chunk: Uint8Array, start: number, end: number): void {
    const need = this.carryLength + (end - start);
    if (need > this.carry.length) this.carry = grow(this.carry, Math.max(need, MIN_CARRY_BYTES));
    this.carry.set(chunk.subarray(start, end), this.carryLength);
    this.carryLength = need;
  }
}

const isSpaceByte = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/** Decodes a short byte range (an id) to a fresh string; ASCII without TextDecoder's per-call cost. */
function decodeShort(buf: Uint8Array, start: number, end: number, decoder: TextDecoder): string {
  if (end - start > 64) return decoder.decode(buf.subarray(start, end));
  for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return decoder.decode(buf.subarray(start, end));
  return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
}

/** Largest id the numeric keep bitmap covers (16 MiB of bits); MS MARCO's pids end at 8,841,822. */
const BITMAP_MAX_ID = (1 << 27) - 1;

/**
 * A keep set whose ids are all canonical decimal integers (MS MARCO pids: "0", "7", "8841822"; no sign, no
 * leading zero) is also held as a bitmap, so a line's id is tested on its bytes: no string is made and no
 * hash computed for the passages that are skipped. Any other id in a line (letters, a leading zero) cannot be
 * in such a set.
 */
function numericBitmap(keep: ReadonlySet<string>): Uint8Array | undefined {
  if (keep.size === 0) return undefined;
  let max = 0;
  for (const id of keep) {
    if (id.length === 0 || id.length > 9 || (id.length > 1 && id.charCodeAt(0) === 48)) return undefined;
    let v = 0;
    for (let i = 0; i < id.length; i++) {
      const d = id.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      v = v * 10 + d;
    }
    if (v > BITMAP_MAX_ID) return undefined;
    if (v > max) max = v;
  }
  const bits = new Uint8Array((max >>> 3) + 1);
  for (const id of keep) {
    const v = Number(id);
    bits[v >>> 3]! |= 1 << (v & 7);
  }
  return bits;
}

/** The canonical decimal integer in buf[start, end), or −1 when the bytes are not one (or exceed the bitmap). */
function canonicalInt(buf: Uint8Array, start: number, end: number): number {
  const n = end - start;
  if (n === 0 || n > 9 || (n > 1 && buf[start] === 48)) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = buf[i]! - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** `_id` as parseCorpus reads it: a non-empty string, or a finite number written as JSON writes it. */
function readJsonId(file: string, v: unknown, lineNo: number): string {
  if (typeof v === 'string' && normalizeId(v) !== '') return normalizeId(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (v === undefined) throw new InputError(file, lineNo, 'expected an "_id" field, found none');
  throw new InputError(file, lineNo, `expected "_id" to be a non-empty string, got ${quote(JSON.stringify(v))}`);
}

/** Receives lines as byte ranges; sniffs the format on the first non-blank line; keeps wanted passages. */
class PassageSink {
  readonly ids: DocId[] = [];
  readonly titles: string[] = [];
  readonly texts: string[] = [];
  readonly indexOf = new Map<DocId, DocIndex>();
  private readonly keptLines: number[] = [];
  read = 0;
  private format: PassagesFormat | undefined;
  private emptyKept = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private sinceAbortCheck = 0;
  private readonly bits: Uint8Array | undefined;

  constructor(
    private readonly file: string,
    private readonly keep: ReadonlySet<string>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.bits = numericBitmap(keep);
  }

  /** The id in buf[start, end) when it is wanted, else undefined (no string is made for an unwanted id). */
  private wanted(buf: Uint8Array, start: number, end: number): string | undefined {
    const bits = this.bits;
    if (bits !== undefined) {
      const v = canonicalInt(buf, start, end);
      return v >= 0 && v >>> 3 < bits.length && (bits[v >>> 3]! & (1 << (v & 7))) !== 0 ? String(v) : undefined;
    }
    const id = normalizeId(decodeShort(buf, start, end, this.decoder));
    return this.keep.has(id) ? id : undefined;
  }

  line(buf: Uint8Array, start: number, end: number, lineNo: number): void {
    if (++this.sinceAbortCheck === ABORT_CHECK_LINES) {
      this.sinceAbortCheck = 0;
      if (this.signal?.aborted) throw abortReason(this.signal);
    }
    if (end > start && buf[end - 1] === 13) end--;
    if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    let s = start;
    while (s < end && isSpaceByte(buf[s]!)) s++;
    if (s === end) return; // blank
    if (this.format === undefined) {
      this.format = buf[s] === 0x7b /* { */ ? 'beir-jsonl' : 'tsv';
      if (this.format === 'tsv' && this.isHeader(buf, start, end)) return;
    }
    if (this.format === 'tsv') this.tsv(buf, start, end, lineNo);
    else this.jsonl(buf, s, end, lineNo);
  }

  private isHeader(buf: Uint8Array, start: number, end: number): boolean {
    const tab = buf.subarray(start, end).indexOf(9);
    if (tab < 0 || tab > 32) return false;
    return TSV_HEADER_IDS.has(
      decodeShort(buf, start, start + tab, this.decoder)
        .trim()
        .toLowerCase(),
    );
  }

  private text(buf: Uint8Array, start: number, end: number): string {
    return this.decoder.decode(buf.subarray(start, end));
  }

  private tsv(buf: Uint8Array, start: number, end: number, lineNo: number): void {
    let tab = start;
    while (tab < end && buf[tab] !== 9) tab++;
    if (tab === end) {
      throw new InputError(this.file, lineNo, `expected "pid<TAB>text" (TSV passages), found no tab: ${quote(this.text(buf, start, end))}`);
    }
    if (tab === start) {
      throw new InputError(this.file, lineNo, `expected a passage id before the tab, found none: ${quote(this.text(buf, start, end))}`);
    }
    this.read++;
    const id = this.wanted(buf, start, tab);
    if (id !== undefined) this.add(id, '', this.text(buf, tab + 1, end), lineNo);
  }

  private jsonl(buf: Uint8Array, start: number, end: number, lineNo: number): void {
    const found = scanTopLevelId(buf, start, end);
    let id: string | undefined;
    let obj: Record<string, unknown> | undefined;
    if (found !== FAILED && found !== NO_ID && found[0] === ID_PLAIN_STRING) {
      this.read++;
      id = this.wanted(buf, found[1], found[2]);
      if (id === undefined) return;
    } else {
      let v: unknown;
      if (found === FAILED || found === NO_ID) {
        // Let JSON.parse name the problem; a line it accepts is read the slow way.
        obj = this.parseLine(buf, start, end, lineNo);
        v = obj._id;
      } else {
        try {
          v = JSON.parse(this.text(buf, found[1], found[2]));
        } catch {
          obj = this.parseLine(buf, start, end, lineNo);
          v = obj._id;
        }
      }
      id = readJsonId(this.file, v, lineNo);
      this.read++;
      if (!this.keep.has(id)) return;
    }
    obj ??= this.parseLine(buf, start, end, lineNo);
    this.add(id, this.field(obj, 'title', lineNo, false), this.field(obj, 'text', lineNo, true), lineNo);
  }

  private parseLine(buf: Uint8Array, start: number, end: number, lineNo: number): Record<string, unknown> {
    const raw = this.text(buf, start, end);
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw new InputError(this.file, lineNo, `expected one JSON object per line (JSONL): ${errorMessage(e)}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new InputError(this.file, lineNo, `expected a JSON object with "_id" and "text", got ${quote(raw)}`);
    }
    return v as Record<string, unknown>;
  }

  private field(obj: Record<string, unknown>, key: string, lineNo: number, required: boolean): string {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) throw new InputError(this.file, lineNo, `expected a "${key}" field, found none`);
      return '';
    }
    if (typeof v !== 'string') throw new InputError(this.file, lineNo, `expected "${key}" to be a string, got ${typeof v}`);
    return v;
  }

  private add(id: string, title: string, text: string, lineNo: number): void {
    const docId = asDocId(id);
    const prev = this.indexOf.get(docId);
    if (prev !== undefined) {
      throw new InputError(this.file, lineNo, `duplicate passage id ${quote(id)} (first on line ${this.keptLines[prev]})`);
    }
    if (title.trim().length === 0 && text.trim().length === 0) this.emptyKept++;
    this.indexOf.set(docId, this.ids.length as DocIndex);
    this.ids.push(docId);
    this.titles.push(title);
    this.texts.push(text);
    this.keptLines.push(lineNo);
  }

  finish(gzip: boolean, bytesRead: number): ParseResult<KeptPassages> {
    if (this.format === undefined || this.read === 0) {
      throw new InputError(this.file, undefined, 'expected at least one passage, found none');
    }
    const missing: DocId[] = [];
    for (const id of this.keep) if (!this.indexOf.has(id as DocId)) missing.push(asDocId(id));
    const warnings: Diagnostic[] = [];
    if (missing.length > 0) {
      warnings.push({
        severity: 'warning',
        file: this.file,
        message:
          `${missing.length} of ${this.keep.size} wanted passages are not in this file (e.g. ` +
          `${missing
            .slice(0, EXAMPLES)
            .map((s) => quote(s))
            .join(', ')}); they are shown without text`,
      });
    }
    if (this.emptyKept > 0) {
      warnings.push({ severity: 'warning', file: this.file, message: `${this.emptyKept} kept passage(s) have empty text` });
    }
    const corpus: Corpus = { ids: this.ids, titles: this.titles, texts: this.texts, indexOf: this.indexOf };
    return { value: { corpus, format: this.format, gzip, passagesRead: this.read, bytesRead, missing }, warnings };
  }
}

// ---------------------------------------------------------------------------------------------------------
