/**
 * Node edge of core/io: files become TextSources, BEIR folders are located. Only the CLI, benches and
 * tests import this; the core itself never touches the file system.
 */
import { errorMessage } from '../core/error-message.ts';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { Gunzip } from 'fflate';
import { join } from 'node:path';
import type { Corpus, Diagnostic, Qrels, Queries } from '../core/types.ts';
import { InputError, isInputError } from '../core/io/errors.ts';
import { inflationRefused, isGzip, lineTooLong, MAX_LINE_BYTES, type TextSource } from '../core/io/lines.ts';
import type { ReadInto } from '../core/metrics/run-bytes.ts';
import { parseCorpus, parseQueries } from '../core/io/beir.ts';
import { parseQrels } from '../core/io/trec.ts';

const READ_CHUNK_BYTES = 64 * 1024;

/** The name errors use for standard input (`-` on the command line). */
export const STDIN_NAME = '<stdin>';

/** The one way every command reports a path that is not there: `path: not found (expected …)`. */
function notFound(path: string, expected: string): InputError {
  return new InputError(path, undefined, `not found (expected ${expected})`);
}

function checkFile(path: string): void {
  if (!existsSync(path)) throw notFound(path, 'a file');
  if (statSync(path).isDirectory()) throw new InputError(path, undefined, 'expected a file, got a directory');
}

/** A file as a stream of bytes; `-` is standard input. */
export function fileSource(path: string): TextSource {
  if (path === '-') return process.stdin;
  checkFile(path);
  return createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
}

/**
 * A whole file's bytes, gunzipped when they are gzip (by content, not name); `-` reads standard input.
 * `shared`: in a SharedArrayBuffer, so a worker thread reads them without a copy.
 */
export async function readFileBytes(path: string, opts: { shared?: boolean } = {}): Promise<Uint8Array> {
  let bytes: Uint8Array;
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    bytes = Buffer.concat(chunks);
  } else {
    checkFile(path);
    bytes = readFileSync(path);
  }
  if (isGzip(bytes)) bytes = gunzipChecked(bytes, path === '-' ? STDIN_NAME : path);
  // A plain Uint8Array view, not a Buffer: the byte parsers' hot functions see one array map for qrels and
  // run (a Buffer here deoptimised them the moment the run's plain buffer arrived, then ran them polymorphic).
  if (!opts.shared) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}

/**
 * A file read piece by piece into the caller's buffer (core/metrics/run-bytes.ts `evaluateChunks`), so a
 * big run never sits in memory whole; gzip content is decompressed as it is read.
 */
export function openChunkReader(path: string): { read: ReadInto; close(): void } {
  checkFile(path);
  const fd = openSync(path, 'r');
  const head = new Uint8Array(2);
  if (isGzip(head.subarray(0, readSync(fd, head, 0, 2, 0)))) return { read: gunzipReader(fd, path), close: () => closeSync(fd) };
  let position = 0;
  return {
    read(into, offset, length) {
      const n = readSync(fd, into, offset, length, position);
      position += n;
      return n;
    },
    close: () => closeSync(fd),
  };
}

/**
 * A file as a synchronous sequence of 1 MiB chunks (a fresh buffer each: a consumer may keep one, as a
 * gzip stream does). Synchronous reads leave no idle time between chunks, which a stream's 64 KiB reads
 * through the thread pool did (~9% of reading a 250 MB run); the file is never whole in memory.
 */
export function* fileChunks(path: string, chunkBytes = 1 << 20): Generator<Uint8Array> {
  checkFile(path);
  const fd = openSync(path, 'r');
  try {
    for (let position = 0; ;) {
      const chunk = new Uint8Array(chunkBytes);
      const n = readSync(fd, chunk, 0, chunkBytes, position);
      if (n === 0) return;
      position += n;
      yield n === chunkBytes ? chunk : chunk.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Compressed bytes handed to the inflater at a time. Deflate expands at most ~1,032×, so one push yields at
 * most ~16 MB even from a bomb, and the line limit is checked between pushes.
 */
const GZIP_INPUT_BYTES = 16 * 1024;

const gunzipFailed = (file: string, e: unknown): InputError =>
  new InputError(file, undefined, `could not decompress (corrupt or truncated gzip): ${errorMessage(e)}`);

/**
 * Gzip read from `fd` and decompressed as the caller reads (fflate's streaming inflater: synchronous, so
 * `evaluateChunks` can pull from it), in bounded memory: what is decompressed waits only until it is read.
 */
function gunzipReader(fd: number, file: string): ReadInto {
  const ready: Uint8Array[] = [];
  let at = 0;
  let position = 0;
  let ended = false;
  let inflated = 0;
  const gz = new Gunzip((chunk) => {
    inflated += chunk.length;
    if (chunk.length > 0) ready.push(chunk);
  });
  return (into, offset, length) => {
    while (ready.length === 0 && !ended) {
      const input = new Uint8Array(GZIP_INPUT_BYTES);
      const n = readSync(fd, input, 0, input.length, position);
      position += n;
      const bomb = inflationRefused(file, position, inflated);
      if (bomb) throw bomb;
      try {
        if (n === 0) {
          ended = true;
          gz.push(new Uint8Array(0), true);
        } else gz.push(input.subarray(0, n));
      } catch (e) {
        throw gunzipFailed(file, e);
      }
    }
    const head = ready[0];
    if (head === undefined) return 0;
    const n = Math.min(length, head.length - at);
    into.set(head.subarray(at, at + n), offset);
    at += n;
    if (at === head.length) {
      ready.shift();
      at = 0;
    }
    return n;
  };
}

/**
 * Gzip bytes decompressed whole, refused at the first line longer than MAX_LINE_BYTES as soon as it passes
 * the limit: a decompression bomb (a gigabyte of zeros in a megabyte) stops after 1 MiB, not after the
 * gigabyte.
 */
export function gunzipChecked(bytes: Uint8Array, file: string): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let sinceBreak = 0;
  const gz = new Gunzip((chunk) => {
    if (chunk.length === 0) return;
    const last = chunk.lastIndexOf(NL);
    sinceBreak = last < 0 ? sinceBreak + chunk.length : chunk.length - last - 1;
    out.push(chunk);
    total += chunk.length;
    if (sinceBreak > MAX_LINE_BYTES) throw new LineLimit();
  });
  try {
    for (let i = 0; i < bytes.length; i += GZIP_INPUT_BYTES) {
      gz.push(bytes.subarray(i, i + GZIP_INPUT_BYTES), false);
      const bomb = inflationRefused(file, i + GZIP_INPUT_BYTES, total);
      if (bomb) throw bomb;
    }
    gz.push(new Uint8Array(0), true);
  } catch (e) {
    if (isInputError(e)) throw e;
    if (!(e instanceof LineLimit)) throw gunzipFailed(file, e);
    let lineNo = 1;
    for (const chunk of out) for (let p = chunk.indexOf(NL); p >= 0; p = chunk.indexOf(NL, p + 1)) lineNo++;
    throw lineTooLong(file, lineNo, new TextDecoder().decode(slice(out, total - sinceBreak, 240)));
  }
  const whole = new Uint8Array(total);
  let p = 0;
  for (const chunk of out) {
    whole.set(chunk, p);
    p += chunk.length;
  }
  return whole;
}

const NL = 10;
class LineLimit extends Error {}

/** Up to `length` bytes from offset `from` of the chunks taken as one. */
function slice(chunks: readonly Uint8Array[], from: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let filled = 0;
  for (const chunk of chunks) {
    if (from >= chunk.length) {
      from -= chunk.length;
      continue;
    }
    const part = chunk.subarray(from, from + length - filled);
    out.set(part, filled);
    filled += part.length;
    from = 0;
    if (filled === length) break;
  }
  return out.subarray(0, filled);
}

/** First existing of `name` and `name.gz` inside `dir`. */
function findFile(dir: string, name: string): string {
  for (const candidate of [join(dir, name), join(dir, `${name}.gz`)]) if (existsSync(candidate)) return candidate;
  throw new InputError(join(dir, name), undefined, `expected ${name} or ${name}.gz in the BEIR folder ${dir}`);
}

export interface BeirCollection {
  readonly corpus: Corpus;
  readonly queries: Queries;
  readonly qrels: Qrels;
  readonly warnings: readonly Diagnostic[];
  readonly files: { corpus: string; queries: string; qrels: string };
}

export async function loadBeirFolder(dir: string, split = 'test'): Promise<BeirCollection> {
  const expected = 'a BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv';
  if (!existsSync(dir)) throw notFound(dir, expected);
  if (!statSync(dir).isDirectory()) throw new InputError(dir, undefined, `expected ${expected}, got a file`);
  const files = {
    corpus: findFile(dir, 'corpus.jsonl'),
    queries: findFile(dir, 'queries.jsonl'),
    qrels: findFile(join(dir, 'qrels'), `${split}.tsv`),
  };
  const [c, q, r] = await Promise.all([
    parseCorpus(fileSource(files.corpus), files.corpus),
    parseQueries(fileSource(files.queries), files.queries),
    parseQrels(fileSource(files.qrels), files.qrels),
  ]);
  return { corpus: c.value, queries: q.value, qrels: r.value, warnings: [...c.warnings, ...q.warnings, ...r.warnings], files };
}
