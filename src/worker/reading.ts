/**
 * Reading a collection's files with progress and Cancel. Every file a parser streams goes through
 * `ReadingJob.source`: it hands the bytes on in slices, counts them against the collection's total, reports
 * progress (throttled), and between slices gives the worker's event loop a turn, so a Cancel sent from the
 * page arrives and stops the read at the next slice (an AbortError, never a half-open collection).
 */
import { streamChunks } from '../core/io/lines.ts';
import { fileSize } from '../lab/data/bytes.ts';
import type { CollectionFile } from '../lab/data/types.ts';

/** How far reading has come: bytes of all the collection's files, and the file being read. */
export interface ReadingProgress {
  readonly file: string;
  readonly bytesRead: number;
  readonly totalBytes: number;
}

/** Bytes handed on at a time; the event loop gets a turn after each. */
const SLICE_BYTES = 4 * 1024 * 1024;
/** Progress is reported at most this often. */
const PROGRESS_MS = 100;

/** A macrotask turn (a MessageChannel message is not clamped as nested timers are). */
function turn(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export class ReadingJob {
  #bytesRead = 0;
  #lastReport = 0;
  readonly totalBytes: number;

  constructor(
    files: readonly CollectionFile[],
    private readonly signal?: AbortSignal,
    private readonly onProgress?: (p: ReadingProgress) => void,
  ) {
    this.totalBytes = files.reduce((n, f) => n + fileSize(f), 0);
  }

  /** Throws the abort reason once Cancel was pressed. */
  check(): void {
    this.signal?.throwIfAborted();
  }

  /** `bytes` or a stream of them, handed on in slices with progress and Cancel (see the module comment). */
  async *source(file: string, from: Uint8Array | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
    if (from instanceof Uint8Array) {
      for (let i = 0; i < from.length || i === 0; i += SLICE_BYTES) {
        const slice = from.subarray(i, i + SLICE_BYTES);
        await this.#step(file, slice.length);
        yield slice;
      }
      return;
    }
    for await (const chunk of streamChunks(from)) {
      await this.#step(file, chunk.length);
      yield chunk;
    }
  }

  /** Count a slice of `file` read, report, and let a Cancel in. */
  async #step(file: string, bytes: number): Promise<void> {
    this.#bytesRead += bytes;
    const now = Date.now();
    if (this.onProgress && now - this.#lastReport >= PROGRESS_MS) {
      this.#lastReport = now;
      this.onProgress({ file, bytesRead: Math.min(this.#bytesRead, this.totalBytes), totalBytes: this.totalBytes });
    }
    if (this.signal) {
      await turn();
      this.signal.throwIfAborted();
    }
  }
}
