/**
 * Node edge of core/io: files become TextSources, BEIR folders are located. Only the CLI, benches and
 * tests import this; the core itself never touches the file system.
 */
import { errorMessage } from '../core/error-message.ts';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { Corpus, Diagnostic, Qrels, Queries } from '../core/types.ts';
import { InputError } from '../core/io/errors.ts';
import { isGzip, type TextSource } from '../core/io/lines.ts';
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
  if (isGzip(bytes)) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw new InputError(
        path === '-' ? STDIN_NAME : path,
        undefined,
        `could not decompress (corrupt or truncated gzip): ${errorMessage(e)}`,
      );
    }
  }
  // A plain Uint8Array view, not a Buffer: the byte parsers' hot functions see one array map for qrels and
  // run (a Buffer here deoptimised them the moment the run's plain buffer arrived, then ran them polymorphic).
  if (!opts.shared) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}

/**
 * A file read piece by piece into the caller's buffer (core/metrics/run-bytes.ts `evaluateChunks`), so a
 * big run never sits in memory whole. Undefined for gzip content (that is read whole and gunzipped).
 */
export function openChunkReader(path: string): { read: ReadInto; close(): void } | undefined {
  checkFile(path);
  const fd = openSync(path, 'r');
  const head = new Uint8Array(2);
  if (isGzip(head.subarray(0, readSync(fd, head, 0, 2, 0)))) {
    closeSync(fd);
    return undefined;
  }
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
