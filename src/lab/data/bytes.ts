/**
 * Byte helpers of the data layer: gzip detection and decompression (the platform's
 * DecompressionStream), UTF-8 decoding of a whole file or of its first lines for sniffing, and
 * path-name helpers. Web-standard APIs only: runs in a worker and in Node.
 */
import { errorMessage } from '../../core/error-message.ts';
import { InputError, isInputError } from '../../core/io/errors.ts';
import { inflationRefused, isGzip } from '../../core/io/lines.ts';
import type { CollectionFile } from './types.ts';

/** A file larger than this is handed over as a Blob (streamed where the reader streams), not read into memory. */
export const LARGE_FILE_BYTES = 8 * 1024 * 1024;
/** The first bytes a large file keeps in memory, to be classified by its first lines. */
export const HEAD_BYTES = 256 * 1024;

/** A picked or dropped file as a CollectionFile: its bytes, or for a large one its Blob and first bytes. */
export async function collectionFile(path: string, file: Blob): Promise<CollectionFile> {
  if (file.size <= LARGE_FILE_BYTES) return { path, bytes: new Uint8Array(await file.arrayBuffer()) };
  return { path, bytes: new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()), blob: file };
}

/** The file's size in bytes (the blob's when it has one). */
export const fileSize = (f: CollectionFile): number => f.blob?.size ?? f.bytes.byteLength;

/** The file with all its bytes in memory (a large file is read here, in whichever thread parses it). */
export async function wholeFile(f: CollectionFile): Promise<CollectionFile> {
  return f.blob === undefined ? f : { path: f.path, bytes: new Uint8Array(await f.blob.arrayBuffer()) };
}

/** The file's bytes as a source a streaming parser reads (the blob's stream for a large file). */
export const fileSource = (f: CollectionFile): Uint8Array | ReadableStream<Uint8Array> =>
  f.blob === undefined ? f.bytes : (f.blob.stream() as ReadableStream<Uint8Array>);

function gunzipStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip')) as ReadableStream<Uint8Array>;
}

/** The bytes, gunzipped when they start with the gzip magic. */
export async function maybeGunzip(bytes: Uint8Array, file: string): Promise<Uint8Array> {
  if (!isGzip(bytes)) return bytes;
  try {
    const parts: Uint8Array[] = [];
    let inflated = 0;
    const reader = gunzipStream(bytes).getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        inflated += r.value.length;
        const bomb = inflationRefused(file, bytes.length, inflated);
        if (bomb) throw bomb;
        parts.push(r.value);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    const whole = new Uint8Array(inflated);
    let at = 0;
    for (const part of parts) {
      whole.set(part, at);
      at += part.length;
    }
    return whole;
  } catch (e) {
    if (isInputError(e)) throw e;
    throw new InputError(file, undefined, `could not decompress (corrupt or truncated gzip): ${errorMessage(e)}`);
  }
}

/** Whole file as text (gzip sniffed; BOM dropped). */
export async function fileText(bytes: Uint8Array, file: string): Promise<string> {
  const text = new TextDecoder('utf-8').decode(await maybeGunzip(bytes, file));
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Up to `maxLines` non-empty lines from the start of the file (gzip sniffed), reading at most about
 * `maxBytes` of (decompressed) data. A partial last line is dropped unless it is the whole file's end.
 */
export async function headLines(bytes: Uint8Array, maxLines = 8, maxBytes = 64 * 1024): Promise<string[]> {
  let head: Uint8Array;
  let complete: boolean;
  if (isGzip(bytes)) {
    const reader = gunzipStream(bytes).getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    complete = false;
    try {
      while (size < maxBytes) {
        const { done, value } = await reader.read();
        if (done) {
          complete = true;
          break;
        }
        parts.push(value);
        size += value.length;
      }
    } catch {
      // corrupt gzip: sniff what we have; the parser reports the error with the file name
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    head = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      head.set(p, at);
      at += p.length;
    }
  } else {
    complete = bytes.length <= maxBytes;
    head = bytes.subarray(0, maxBytes);
  }
  let text = new TextDecoder('utf-8').decode(head);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  if (!complete) lines.pop();
  return lines
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim().length > 0)
    .slice(0, maxLines);
}

/** Forward slashes, no leading "./" or "/". */
export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
}

export function baseName(path: string): string {
  return path.split('/').pop() ?? path;
}

/** Base name without a trailing `.gz`, lower-cased: what a file "is" by name. */
export function logicalName(path: string): string {
  return baseName(path).toLowerCase().replace(/\.gz$/, '');
}

/** Extension of the logical name (after the last dot), lower-cased; '' when none. */
export function extensionOf(path: string): string {
  const n = logicalName(path);
  const dot = n.lastIndexOf('.');
  return dot > 0 ? n.slice(dot + 1) : '';
}

export { withoutExtension } from '../../core/io/documents.ts';
