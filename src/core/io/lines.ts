/**
 * Line reading shared by every parser: bytes (optionally gzip) → UTF-8 text → lines, streamed, with
 * 1-based line numbers. CRLF and a leading BOM are accepted. Uses only web-standard APIs
 * (TextDecoder, DecompressionStream), so it runs unchanged in browsers, workers and Node.
 */

/** Anything a file can be read from: whole text, whole bytes, or a stream of byte chunks. */
import { errorMessage, isAbort } from '../error-message.ts';
import { InputError, isInputError, quote } from './errors.ts';

export type TextSource = string | Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ReadableStream<Uint8Array>;

export type LineHandler = (line: string, lineNo: number) => void;

/**
 * Receives a line as a range of a larger string (CR already excluded), so hot parsers can scan fields in
 * place without allocating a string per line.
 */
export type LineRangeHandler = (text: string, start: number, end: number, lineNo: number) => void;

/**
 * No line of any file fliplab reads is this long (a run or qrels line is under 200 bytes, a long passage a
 * few KB): a longer one is refused at its line as soon as it passes the limit, never read whole into memory.
 * That is what stops a file with no line break (binary, or a decompression bomb of zeros) in bounded memory.
 */
export const MAX_LINE_BYTES = 1 << 20;
/** MAX_LINE_BYTES in UTF-16 code units, as the text splitter counts (a char is at least one byte). */
const MAX_LINE_CHARS = MAX_LINE_BYTES;

/** The InputError for a line past MAX_LINE_BYTES, with its start quoted. */
export function lineTooLong(file: string, lineNo: number, head: string): InputError {
  return new InputError(file, lineNo, `expected a line break within 1 MiB, found none; the line starts ${quote(head)}`);
}

/**
 * Decompression bombs: text compresses about 3–10× with deflate; a gigabyte of zeros, or one valid line
 * repeated, compresses a thousandfold. Output past INFLATE_FREE_BYTES that is more than INFLATE_RATIO_MAX
 * times its compressed size is refused (a zip member on its declared sizes before it is inflated; a gzip
 * stream as it inflates), so memory stays bounded by what was read.
 */
export const INFLATE_RATIO_MAX = 100;
export const INFLATE_FREE_BYTES = 16 * 1024 * 1024;

/** The InputError for a bomb, or undefined when `inflated` bytes from `compressed` are plausible. */
export function inflationRefused(file: string, compressed: number, inflated: number): InputError | undefined {
  if (inflated <= INFLATE_FREE_BYTES || inflated <= INFLATE_RATIO_MAX * compressed) return undefined;
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 2 : 0)} MiB`;
  return new InputError(
    file,
    undefined,
    `refused as a decompression bomb: it inflates past ${mb(inflated)} from ${mb(compressed)} (over ${INFLATE_RATIO_MAX}×; ` +
      'text compresses about 3–10×)',
  );
}

/** A line past MAX_LINE_BYTES, before the file's name is known (readLineRanges adds it). */
class LineTooLong extends Error {
  constructor(
    readonly lineNo: number,
    readonly head: string,
  ) {
    super(`line ${lineNo} is longer than 1 MiB`);
  }
}

/** Splits a stream of text chunks into lines; keeps the partial tail between chunks. */
export class LineSplitter {
  private tail = '';
  private lineNo = 0;
  private first = true;

  constructor(private readonly onRange: LineRangeHandler) {}

  push(chunk: string): void {
    if (this.first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      this.first = false;
    }
    const text = this.tail.length > 0 ? this.tail + chunk : chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.onRange(text, start, end, ++this.lineNo);
      start = nl + 1;
    }
    this.tail = start === 0 ? text : text.slice(start);
    if (this.tail.length > MAX_LINE_CHARS) throw new LineTooLong(this.lineNo + 1, this.tail.slice(0, 240));
  }

  /** Flush a final line without a trailing newline. */
  end(): void {
    const t = this.tail;
    if (t.length > 0) this.onRange(t, 0, t.charCodeAt(t.length - 1) === 13 ? t.length - 1 : t.length, ++this.lineNo);
    this.tail = '';
  }

  get lines(): number {
    return this.lineNo;
  }
}

/**
 * Text is decoded and split in pieces of this size: small enough to stay in CPU cache and to keep the
 * parent strings of sliced ids small (measured: a 1M-line run parses ~40% faster than with 1 MiB pieces).
 */
export const TEXT_PIECE_CHARS = 64 * 1024;

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** Whether the bytes start with gzip's magic number (names lie; content decides). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC_0 && bytes[1] === GZIP_MAGIC_1;
}

/**
 * A stream's chunks as an async generator; a consumer that stops early cancels the stream, so its source stops
 * producing (and its buffers can go).
 */
export async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

async function* iterate(source: Exclude<TextSource, string>): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
  } else if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    yield* streamChunks(source as ReadableStream<Uint8Array>);
  } else {
    yield* source as AsyncIterable<Uint8Array>;
  }
}

/**
 * Decompress a gzip byte stream with the platform's DecompressionStream, refusing a bomb as it inflates
 * (inflationRefused). A consumer that stops early (a refused line) cancels the stream and the input, so
 * nothing goes on inflating, or holding memory, behind it.
 */
async function* gunzip(head: Uint8Array, rest: AsyncIterator<Uint8Array>, file: string): AsyncGenerator<Uint8Array> {
  const ds = new DecompressionStream('gzip');
  const writer = ds.writable.getWriter();
  let compressed = 0;
  let stopped = false;
  const pump = (async () => {
    try {
      compressed += head.length;
      await writer.write(head as Uint8Array<ArrayBuffer>);
      while (!stopped) {
        const r = await rest.next();
        if (r.done) break;
        compressed += r.value.length;
        await writer.write(r.value as Uint8Array<ArrayBuffer>);
      }
      if (!stopped) await writer.close();
    } catch (e) {
      await writer.abort(e).catch(() => undefined);
    }
  })();
  let inflated = 0;
  try {
    for await (const chunk of iterate(ds.readable as ReadableStream<Uint8Array>)) {
      inflated += chunk.length;
      const bomb = inflationRefused(file, compressed, inflated);
      if (bomb) throw bomb;
      yield chunk;
    }
    await pump;
  } finally {
    if (!stopped) {
      stopped = true;
      await writer.abort(new Error('stopped')).catch(() => undefined);
      await rest.return?.();
    }
  }
}

/**
 * Feed every line of `source` to `onLine`. Gzip is detected by its magic bytes, not by file name, so a
 * mislabelled file still reads. Throws the decoder's error on corrupt gzip.
 */
export async function readLines(source: TextSource, onLine: LineHandler, file = '<input>'): Promise<number> {
  return readLineRanges(source, (text, start, end, n) => onLine(text.slice(start, end), n), file);
}

/** Like readLines, but hands each line over as a range of a chunk string (see LineRangeHandler). */
export async function readLineRanges(source: TextSource, onRange: LineRangeHandler, file = '<input>'): Promise<number> {
  const state = { gzip: false };
  try {
    return await readAllLines(source, onRange, state, file);
  } catch (e) {
    if (isInputError(e) || isAbort(e)) throw e;
    if (e instanceof LineTooLong) throw lineTooLong(file, e.lineNo, e.head);
    const what = state.gzip ? 'could not decompress (corrupt or truncated gzip)' : 'could not read';
    throw new InputError(file, undefined, `${what}: ${errorMessage(e)}`);
  }
}

async function readAllLines(source: TextSource, onRange: LineRangeHandler, state: { gzip: boolean }, file: string): Promise<number> {
  const splitter = new LineSplitter(onRange);
  if (typeof source === 'string') {
    for (let i = 0; i < source.length; i += TEXT_PIECE_CHARS) splitter.push(source.slice(i, i + TEXT_PIECE_CHARS));
    splitter.end();
    return splitter.lines;
  }
  const it = iterate(source)[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return 0;
  state.gzip = isGzip(first.value);
  const bytes = state.gzip ? gunzip(first.value, it, file) : prepend(first.value, it);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for await (const chunk of bytes) {
    for (let i = 0; i < chunk.length; i += TEXT_PIECE_CHARS) {
      splitter.push(decoder.decode(chunk.subarray(i, i + TEXT_PIECE_CHARS), { stream: true }));
    }
  }
  splitter.push(decoder.decode());
  splitter.end();
  return splitter.lines;
}

/**
 * The bytes of `source`, gunzipped when they start with gzip's magic number (content decides, not the name),
 * chunk by chunk as they arrive. A corrupt or truncated gzip stream is an InputError naming the file.
 */
export async function* byteChunks(source: TextSource, file: string): AsyncGenerator<Uint8Array> {
  if (typeof source === 'string') {
    yield new TextEncoder().encode(source);
    return;
  }
  const it = iterate(source)[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return;
  const gzip = isGzip(first.value);
  const bytes = gzip ? gunzip(first.value, it, file) : prepend(first.value, it);
  for (;;) {
    let r: IteratorResult<Uint8Array>;
    try {
      r = await bytes.next();
    } catch (e) {
      if (isInputError(e) || isAbort(e)) throw e;
      const what = gzip ? 'could not decompress (corrupt or truncated gzip)' : 'could not read';
      throw new InputError(file, undefined, `${what}: ${errorMessage(e)}`);
    }
    if (r.done) return;
    yield r.value;
  }
}

async function* prepend(head: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    yield head;
    for (;;) {
      const r = await rest.next();
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!done) await rest.return?.(); // stopped early: let the source go
  }
}

/** Split on runs of ASCII whitespace (TREC files are whitespace-separated; BEIR TSV uses tabs). */
export function splitFields(line: string): string[] {
  const out: string[] = [];
  const n = line.length;
  let i = 0;
  while (i < n) {
    let c = line.charCodeAt(i);
    while (i < n && (c === 32 || c === 9 || c === 11 || c === 12 || c === 13)) c = line.charCodeAt(++i);
    if (i >= n) break;
    const start = i;
    while (i < n && c !== 32 && c !== 9 && c !== 11 && c !== 12 && c !== 13) c = line.charCodeAt(++i);
    out.push(line.slice(start, i));
  }
  return out;
}
