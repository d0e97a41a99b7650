/**
 * A model file that stays on disk while ONNX Runtime loads it.
 *
 * transformers.js reads a model file whole into JavaScript before it makes a session, so a 1.3 GB model is
 * in the tab once before the runtime holds its weights (onnx-weights.ts removes the runtime's second copy;
 * this removes the first). The file is kept where the browser stores it anyway, the Cache Storage
 * transformers.js uses (or a picked folder's File), as a Blob that is not in memory; transformers.js is
 * handed only the graph, its weights turned into external-data references (`externalizeGraph`, which reads
 * the file's structure a window at a time and skips the weights); and the runtime is handed, as that
 * external file, a view whose `subarray(a, b)` reads those bytes from the Blob when it asks for them.
 *
 * Why that is enough: onnxruntime-web mounts an external file given as a `Uint8Array` as it is, and its
 * loader asks a mounted file for two things only, `byteLength` and `subarray(offset, offset + length)`,
 * whose result it copies into the tensor (the wasm heap, or a GPU buffer). It does so synchronously, on the
 * thread making the session: the encode worker, where `FileReaderSync` reads a Blob's slice synchronously.
 * So each weight passes through JavaScript once, alone, on its way to its tensor. That is an internal of
 * onnxruntime-web, so it is guarded: the encode worker self-tests it before the first lazy load
 * (lazy-contract.ts), and a session the runtime cannot make from the view is made again with the file in memory
 * (`prepareSessions` in encoder.ts, through `MountableWeights.read`).
 *
 * `lazyWeightsCache` does this as the custom cache transformers.js consults before any download: a hit on a
 * `.onnx` file is answered with its graph (and the weights registered for the session hook in encoder.ts to
 * mount); a miss on an http(s) URL is downloaded here, streamed into the underlying cache (never whole in
 * memory), then answered the same way. A file it cannot get or keep is left, for good, to transformers.js
 * (one more download, into memory, as without this cache). Everything else goes to the underlying cache
 * untouched.
 */
import type { DownloadCallback, ModelFileCacheLike, MountableWeights, WeightsToMount } from './encoder.ts';
import type { ByteSource } from './onnx-proto.ts';
import { externalizeGraph } from './onnx-weights.ts';

/** Bytes `[start, end)` of a Blob, read synchronously (a copy). */
export type ReadSync = (blob: Blob, start: number, end: number) => Uint8Array;

interface FileReaderSyncLike {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}

/** `FileReaderSync` where this thread has it (dedicated workers), else null. */
export function fileReaderSync(): ReadSync | null {
  const Reader = (globalThis as { FileReaderSync?: new () => FileReaderSyncLike }).FileReaderSync;
  if (Reader === undefined) return null;
  const reader = new Reader();
  return (blob, start, end) => new Uint8Array(reader.readAsArrayBuffer(blob.slice(start, end)));
}

/**
 * A Blob as a `ByteSource`, read through a window of `window` bytes. Reads return copies, so whatever keeps
 * one (the rewritten graph) does not keep a window alive.
 */
export function blobSource(blob: Blob, readSync: ReadSync, window = 64 * 1024): ByteSource {
  let base = 0;
  let buf: Uint8Array = new Uint8Array(0);
  return {
    length: blob.size,
    read(start, end) {
      if (start >= base && end <= base + buf.length) return buf.slice(start - base, end - base);
      if (end - start >= window) return readSync(blob, start, end);
      base = start;
      buf = readSync(blob, start, Math.min(blob.size, start + window));
      return buf.slice(0, end - start);
    },
  };
}

/**
 * What onnxruntime-web needs of a mounted external file, over a Blob: a `Uint8Array` (so the runtime takes
 * it as it is) whose `byteLength` is the Blob's size and whose `subarray(a, b)` reads those bytes. Nothing
 * else of it is meaningful: it holds no bytes of its own.
 */
export function lazyBytes(blob: Blob, readSync: ReadSync): Uint8Array {
  const view = new Uint8Array(0);
  const inRange = (x: number) => Math.min(Math.max(0, x < 0 ? blob.size + x : x), blob.size);
  Object.defineProperties(view, {
    byteLength: { get: () => blob.size },
    length: { get: () => blob.size },
    subarray: {
      value: (begin = 0, end = blob.size) => {
        const [a, b] = [inRange(begin), inRange(end)];
        return b <= a ? new Uint8Array(0) : readSync(blob, a, b);
      },
    },
  });
  return view;
}

/** The lazy weights the cache has handed out graphs for, until the session hook takes them. */
export class LazyWeightsRegistry implements WeightsToMount {
  readonly #pending = new Map<string, MountableWeights>();
  #next = 0;

  /** A file name for the next weights (never a hub file's name). */
  nextLocation(): string {
    return `fliplab-lazy-weights-${this.#next++}.bin`;
  }

  add(weights: MountableWeights): void {
    this.#pending.set(weights.location, weights);
  }

  /**
   * The pending entries `model` names (its external-data locations), removed: the session made from it
   * mounts them. Another session made meanwhile (a dense search's, say) takes none. Without `model`, all.
   */
  take(model?: Uint8Array): MountableWeights[] {
    const taken = [...this.#pending.values()].filter(
      (w) => model === undefined || includesBytes(model, new TextEncoder().encode(w.location)),
    );
    for (const w of taken) this.#pending.delete(w.location);
    return taken;
  }
}

/** Whether `needle` occurs in `hay` (a graph of kilobytes to a few MB: a plain scan). */
function includesBytes(hay: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  outer: for (let i = hay.indexOf(first!); i >= 0 && i <= hay.length - needle.length; i = hay.indexOf(first!, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export interface LazyWeightsCacheOptions {
  /** Where the files are: the browser's Cache Storage, or a picked folder's files. */
  readonly inner: ModelFileCacheLike;
  readonly readSync: ReadSync;
  readonly registry: LazyWeightsRegistry;
  /**
   * Downloads a missing http(s) file into `inner`; absent, a miss stays a miss (transformers.js fetches it).
   * Give it only for loads from a remote host alone: with a local path, transformers.js looks there first.
   */
  readonly fetch?: (url: string) => Promise<Response>;
  /** Byte progress of the files this cache downloads or serves (transformers.js sees only their graphs). */
  readonly onDownload?: DownloadCallback;
  /** The file a key names, as progress reports name it (default: the path after `/resolve/<revision>/`). */
  readonly fileOf?: (key: string) => string;
}

export interface LazyWeightsCache extends ModelFileCacheLike {
  /** Files answered with their graph: transformers.js's own progress for them is about the graph, not the file. */
  readonly served: ReadonlySet<string>;
}

const isModelFile = (key: string) => /\.onnx$/i.test(key.split(/[?#]/)[0]!);
const isHttp = (key: string) => /^https?:\/\//i.test(key);

/** The repo-relative file a hub URL names (`…/resolve/<revision>/onnx/model.onnx` → `onnx/model.onnx`). */
export function hubFileOf(key: string): string {
  let path = key.split(/[?#]/)[0]!;
  try {
    path = decodeURI(new URL(key).pathname);
  } catch {
    // a path, not a URL
  }
  return /\/resolve\/[^/]+\/(.+)$/.exec(path)?.[1] ?? path.replace(/^\/+/, '');
}

/** The custom cache described above. */
export function lazyWeightsCache(options: LazyWeightsCacheOptions): LazyWeightsCache {
  const { inner, readSync, registry } = options;
  const fileOf = options.fileOf ?? hubFileOf;
  const served = new Set<string>();

  const download = async (key: string): Promise<Response | undefined> => {
    const response = await options.fetch!(key).catch(() => undefined);
    if (response === undefined || !response.ok || response.body === null) return undefined; // transformers.js asks and says why
    const file = fileOf(key);
    const total = Number(response.headers.get('content-length') ?? 0);
    let loaded = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          loaded += chunk.length;
          options.onDownload?.({ file, loaded, total: Math.max(total, loaded) });
          controller.enqueue(chunk);
        },
      }),
    );
    // The body arrives decoded: a compressed transfer's length is not the file's.
    const headers = new Headers(response.headers);
    if (headers.has('content-encoding')) ['content-encoding', 'content-length'].forEach((h) => headers.delete(h));
    await inner.put(key, new Response(counted, { status: 200, headers })); // throws with no room left (quota)
    return inner.match(key);
  };

  /** The graph of `key`'s file with its weights registered, or null when the file is served as it is. */
  const graphOf = (key: string, blob: Blob): Uint8Array | null => {
    const location = registry.nextLocation();
    let graph;
    try {
      graph = externalizeGraph(blobSource(blob, readSync), { location });
    } catch {
      return null; // not an ONNX model: the runtime's own error says more
    }
    if (graph === null) return null;
    registry.add({
      location,
      data: lazyBytes(blob, readSync),
      tensors: graph.tensors,
      bytes: graph.bytes,
      read: async () => new Uint8Array(await blob.arrayBuffer()),
    });
    const file = fileOf(key);
    served.add(file);
    options.onDownload?.({ file, loaded: blob.size, total: blob.size });
    return graph.graph;
  };

  type Entry = { readonly graph: Uint8Array | null; readonly blob: Blob; readonly headers: Headers } | null;
  const entries = new Map<string, Promise<Entry>>();
  const entryOf = async (key: string): Promise<Entry> => {
    try {
      const found = (await inner.match(key)) ?? (options.fetch !== undefined && isHttp(key) ? await download(key) : undefined);
      if (found === undefined) return null;
      // A Response from Cache Storage (or made from a File) gives its Blob without reading it.
      const blob = await found.blob();
      return { graph: graphOf(key, blob), blob, headers: found.headers };
    } catch {
      return null; // storage refused (no room left, say): as a miss
    }
  };
  /**
   * Keys this cache gave up on (not there, not downloadable, not storable): from then on they are the
   * underlying cache's alone. transformers.js downloads such a file itself, into memory, and asks the cache
   * again before storing it: that must not start another download here.
   */
  const declined = new Set<string>();

  return {
    served,
    async match(key: string): Promise<Response | undefined> {
      if (!isModelFile(key) || declined.has(key)) return inner.match(key);
      let entry = entries.get(key);
      if (entry === undefined) {
        entry = entryOf(key);
        entries.set(key, entry);
      }
      const e = await entry;
      if (e === null) {
        entries.delete(key);
        declined.add(key);
        return undefined;
      }
      if (e.graph === null) return new Response(e.blob, { status: 200, headers: e.headers });
      return new Response(e.graph as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { 'content-length': String(e.graph.length), 'content-type': 'application/octet-stream' },
      });
    },
    put: (key, response) => inner.put(key, response),
  };
}
