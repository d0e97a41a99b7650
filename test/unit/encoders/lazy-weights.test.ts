/**
 * A model file kept on disk while the runtime loads it (src/encoders/lazy-weights.ts): the graph read from a
 * windowed source equals the one read from memory, the view the runtime mounts answers `byteLength` and
 * `subarray` from the file, and the custom cache downloads a miss into its cache (streamed, with progress),
 * answers with the graph, registers the weights once, and leaves everything else alone. Node has no
 * `FileReaderSync`: reads here come from the file's bytes; the browser e2e (encode.e2e) proves the real one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import {
  blobSource,
  hubFileOf,
  lazyBytes,
  lazyWeightsCache,
  LazyWeightsRegistry,
  type ReadSync,
} from '../../../src/encoders/lazy-weights.ts';
import { prepareSessions, type SessionPreparation } from '../../../src/encoders/encoder.ts';
import { Writer } from '../../../src/encoders/onnx-proto.ts';
import { externalizeGraph } from '../../../src/encoders/onnx-weights.ts';

beforeAll(async () => {
  await makeModelFixtures();
}, 60_000);

const modelBytes = (model: string, file = 'model.onnx') => new Uint8Array(readFileSync(join(DEFAULT_MODELS_DIR, model, 'onnx', file)));

/** Feeds for a session's inputs: token ids from `firstId` up, masks and type ids of ones, [batch, seq]. */
function tokenFeeds(session: ort.InferenceSession, batch: number, seq: number, firstId: number): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames)
    feeds[name] = new ort.Tensor(
      'int64',
      BigInt64Array.from({ length: batch * seq }, (_, i) => (name === 'input_ids' ? BigInt(i + firstId) : 1n)),
      [batch, seq],
    );
  return feeds;
}

/** Reads of `bytes` standing in for FileReaderSync over the Blob made of them; counts what was read. */
function readerOf(bytes: Uint8Array) {
  const stats = { reads: 0, bytes: 0 };
  const read: ReadSync = (_blob, start, end) => {
    stats.reads++;
    stats.bytes += end - start;
    return bytes.slice(start, end);
  };
  return { read, stats };
}

describe('blobSource and lazyBytes', () => {
  it('reads any range as the bytes hold it, through a window', () => {
    const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 31 + 7) & 255);
    const { read } = readerOf(bytes);
    const source = blobSource(new Blob([bytes]), read, 256);
    expect(source.length).toBe(10_000);
    let seed = 1;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let k = 0; k < 500; k++) {
      const a = next() % 10_000;
      const b = Math.min(10_000, a + (next() % 600));
      expect(Array.from(source.read(a, b))).toEqual(Array.from(bytes.subarray(a, b)));
    }
  });

  it('is a Uint8Array to the runtime, with the file size and subarray reads, holding nothing itself', () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => i % 251);
    const { read, stats } = readerOf(bytes);
    const view = lazyBytes(new Blob([bytes]), read);
    expect(view).toBeInstanceOf(Uint8Array);
    expect(view.byteLength).toBe(5000);
    expect(view.length).toBe(5000);
    expect(view.buffer.byteLength).toBe(0);
    expect(stats.reads).toBe(0);
    expect(Array.from(view.subarray(1000, 1010))).toEqual(Array.from(bytes.subarray(1000, 1010)));
    expect(Array.from(view.subarray(-3))).toEqual(Array.from(bytes.subarray(-3)));
    expect(view.subarray(4000, 3000).length).toBe(0);
    expect(view.subarray(4990, 9000).length).toBe(10);
    expect(stats.bytes).toBe(10 + 3 + 10);
  });
});

describe('externalizeGraph over a file not in memory', () => {
  it('reads the structure, not the weights', () => {
    // three 4 MB initializers and a node: what is read is windows around their headers
    const big = new Writer()
      .int(1, 8)
      .message(7, (g) => {
        for (const name of ['a', 'b', 'c'])
          g.message(5, (t) =>
            t
              .int(1, 2 ** 20)
              .int(2, 1)
              .string(8, name)
              .bytes(9, new Uint8Array(4 * 2 ** 20).fill(7)),
          );
        g.message(1, (n) => n.string(1, 'a').string(1, 'b').string(2, 'y').string(4, 'Add'));
      })
      .finish();
    const { read, stats } = readerOf(big);
    const fromFile = externalizeGraph(blobSource(new Blob([big as Uint8Array<ArrayBuffer>]), read), { location: 'w.bin' })!;
    expect(fromFile.tensors).toBe(3);
    expect(Buffer.from(fromFile.graph).equals(Buffer.from(externalizeGraph(big, { location: 'w.bin' })!.graph))).toBe(true);
    expect(stats.bytes).toBeLessThan(big.length / 20);
  });

  it.each([
    ['fliplab/tiny-bert', 'model.onnx'],
    ['fliplab/tiny-bert', 'model_quantized.onnx'],
    ['fliplab/tiny-splade', 'model.onnx'],
  ] as const)('%s %s: the same graph as from memory, and the runtime runs it', async (model, file) => {
    const bytes = modelBytes(model, file);
    const { read, stats } = readerOf(bytes);
    const fromMemory = externalizeGraph(bytes, { location: 'w.bin' })!;
    const fromFile = externalizeGraph(blobSource(new Blob([bytes]), read, 4096), { location: 'w.bin' })!;
    expect(Buffer.from(fromFile.graph).equals(Buffer.from(fromMemory.graph))).toBe(true);
    expect([fromFile.tensors, fromFile.bytes]).toEqual([fromMemory.tensors, fromMemory.bytes]);
    expect(stats.reads).toBeGreaterThan(0);

    // and the runtime runs it with the file mounted to the original's outputs
    const plain = await ort.InferenceSession.create(bytes);
    const moved = await ort.InferenceSession.create(fromFile.graph, { externalData: [{ path: 'w.bin', data: bytes }] });
    try {
      const feeds = tokenFeeds(plain, 2, 5, 2);
      const [a, b] = [await plain.run(feeds), await moved.run(feeds)];
      for (const name of plain.outputNames)
        expect(Array.from(b[name]!.data as Float32Array)).toEqual(Array.from(a[name]!.data as Float32Array));
    } finally {
      await Promise.all([plain.release(), moved.release()]);
    }
  });
});

/** A Cache Storage stand-in: what was put, as bytes. */
function memoryCache() {
  const store = new Map<string, Uint8Array>();
  return {
    store,
    async match(key: string) {
      const b = store.get(key);
      return b === undefined
        ? undefined
        : new Response(new Blob([b as Uint8Array<ArrayBuffer>]), { headers: { 'content-length': String(b.length) } });
    },
    async put(key: string, response: Response) {
      store.set(key, new Uint8Array(await response.arrayBuffer()));
    },
  };
}

describe('lazyWeightsCache', () => {
  const URL_ = 'http://127.0.0.1:9/fliplab/tiny-bert/resolve/main/onnx/model.onnx';

  function setup(files: Record<string, Uint8Array | number>, cached: Record<string, Uint8Array> = {}) {
    const inner = memoryCache();
    for (const [k, v] of Object.entries(cached)) inner.store.set(k, v);
    const registry = new LazyWeightsRegistry();
    const fetched: string[] = [];
    const progress: { file: string; loaded: number; total: number }[] = [];
    const all = new Map(
      [...Object.values(files), ...Object.values(cached)].flatMap((v) => (typeof v === 'number' ? [] : [[v.length, v] as const])),
    );
    const read: ReadSync = (blob, start, end) => {
      // the Blob's own bytes are not readable synchronously in Node: find the file by its size
      const bytes = all.get(blob.size)!;
      return bytes.slice(start, end);
    };
    const cache = lazyWeightsCache({
      inner,
      readSync: read,
      registry,
      fetch: async (url) => {
        fetched.push(url);
        const f = files[url];
        if (typeof f === 'number') return new Response(null, { status: f });
        if (f === undefined) return new Response(null, { status: 404 });
        // in chunks, as a network body comes
        const chunks = Array.from({ length: Math.ceil(f.length / 1000) }, (_, i) => f.slice(i * 1000, (i + 1) * 1000));
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            const next = chunks.shift();
            if (next === undefined) c.close();
            else c.enqueue(next);
          },
        });
        return new Response(body, { headers: { 'content-length': String(f.length) } });
      },
      onDownload: (p) => progress.push(p),
    });
    return { cache, inner, registry, fetched, progress };
  }

  it('downloads a missing model into its cache, answers with the graph and registers the weights once', async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const { cache, inner, registry, fetched, progress } = setup({ [URL_]: bytes });
    const first = await cache.match(URL_);
    const second = await cache.match(URL_);
    expect(fetched).toEqual([URL_]);
    // the cache holds the whole file, as transformers.js would have kept it
    expect(Buffer.from(inner.store.get(URL_)!).equals(Buffer.from(bytes))).toBe(true);
    const graph = new Uint8Array(await first!.arrayBuffer());
    expect(Number(first!.headers.get('content-length'))).toBe(graph.length);
    expect(new Uint8Array(await second!.arrayBuffer())).toEqual(graph);
    const expected = externalizeGraph(bytes, { location: 'fliplab-lazy-weights-0.bin' })!;
    expect(Buffer.from(graph).equals(Buffer.from(expected.graph))).toBe(true);
    const taken = registry.take();
    expect(taken.map((w) => [w.location, w.tensors, w.bytes, w.data.byteLength])).toEqual([
      ['fliplab-lazy-weights-0.bin', expected.tensors, expected.bytes, bytes.length],
    ]);
    expect(registry.take()).toEqual([]);
    // progress in the file's own bytes, named as transformers.js names the file
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.every((p) => p.file === 'onnx/model.onnx' && p.total === bytes.length)).toBe(true);
    expect(progress.at(-1)!.loaded).toBe(bytes.length);
    expect(cache.served.has('onnx/model.onnx')).toBe(true);
  });

  it('answers a cached model without a download; passes every other file through', async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const config = new TextEncoder().encode('{"a":1}');
    const { cache, inner, fetched, registry } = setup({}, { [URL_]: bytes, [URL_.replace('onnx/model.onnx', 'config.json')]: config });
    expect((await (await cache.match(URL_))!.arrayBuffer()).byteLength).toBeLessThan(bytes.length);
    expect(await (await cache.match(URL_.replace('onnx/model.onnx', 'config.json')))!.text()).toBe('{"a":1}');
    expect(await cache.match(URL_.replace('onnx/model.onnx', 'tokenizer.json'))).toBeUndefined();
    expect(fetched).toEqual([]);
    expect(registry.take()).toHaveLength(1);
    await cache.put('k', new Response('v'));
    expect(new TextDecoder().decode(inner.store.get('k'))).toBe('v');
  });

  it('a failed download is a miss (transformers.js asks and reports it); nothing is kept', async () => {
    const { cache, inner, registry } = setup({ [URL_]: 500 });
    expect(await cache.match(URL_)).toBeUndefined();
    expect(await cache.match(URL_.replace('tiny-bert', 'absent'))).toBeUndefined();
    expect(inner.store.size).toBe(0);
    expect(registry.take()).toEqual([]);
    // a path (not a URL) is never downloaded
    expect(await cache.match('/models/fliplab/tiny-bert/onnx/model.onnx')).toBeUndefined();
  });

  it('no room to keep the file (quota): a miss, so transformers.js downloads it into memory as before', async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const { cache, inner, registry, fetched } = setup({ [URL_]: bytes });
    inner.put = async () => {
      throw new DOMException('Quota exceeded', 'QuotaExceededError');
    };
    expect(await cache.match(URL_)).toBeUndefined();
    // transformers.js then downloads it itself and asks again before storing it: no second download here
    expect(await cache.match(URL_)).toBeUndefined();
    expect(fetched).toEqual([URL_]);
    expect(registry.take()).toEqual([]);
    expect(cache.served.size).toBe(0);
  });

  it("a file given up on is the underlying cache's from then on, served as it is, with nothing registered", async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const { cache, inner, registry, fetched } = setup({ [URL_]: 503 });
    expect(await cache.match(URL_)).toBeUndefined();
    // transformers.js got the file itself and stored it
    await cache.put(URL_, new Response(bytes));
    const got = new Uint8Array(await (await cache.match(URL_))!.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(fetched).toEqual([URL_]);
    expect(registry.take()).toEqual([]);
    expect(inner.store.size).toBe(1);
  });

  it('a lookup that throws is a miss, not a failed load', async () => {
    const { cache, inner } = setup({});
    inner.match = async () => {
      throw new DOMException('storage gone', 'UnknownError');
    };
    expect(await cache.match(URL_)).toBeUndefined();
    await expect(cache.match(URL_)).rejects.toThrow(/storage gone/); // the underlying cache's own answer, as without this cache
  });

  it('keeps no length of a compressed transfer (the body is stored decoded)', async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const inner = memoryCache();
    const heads: Headers[] = [];
    const put = inner.put.bind(inner);
    inner.put = async (key, response) => {
      heads.push(response.headers);
      await put(key, response);
    };
    const cache = lazyWeightsCache({
      inner,
      readSync: (_b, a, z) => bytes.slice(a, z),
      registry: new LazyWeightsRegistry(),
      fetch: async () => new Response(new Blob([bytes]), { headers: { 'content-length': '1234', 'content-encoding': 'gzip', etag: 'x' } }),
    });
    expect(await cache.match(URL_)).toBeDefined();
    expect([heads[0]!.get('content-length'), heads[0]!.get('content-encoding'), heads[0]!.get('etag')]).toEqual([null, null, 'x']);
  });

  it('a file that is not an ONNX model is handed over as it is, for the runtime to refuse', async () => {
    const junk = Uint8Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? 0xff : i & 0x7f));
    const { cache, registry } = setup({ [URL_]: junk });
    const got = new Uint8Array(await (await cache.match(URL_))!.arrayBuffer());
    expect(Buffer.from(got).equals(Buffer.from(junk))).toBe(true);
    expect(registry.take()).toEqual([]);
    expect(cache.served.size).toBe(0);
  });

  it('names the file a hub URL or a path holds', () => {
    expect(hubFileOf(URL_)).toBe('onnx/model.onnx');
    expect(hubFileOf('http://h/a/b/resolve/v1.0/model_fp16.onnx')).toBe('model_fp16.onnx');
    expect(hubFileOf('/x/y.onnx')).toBe('x/y.onnx');
  });
});

describe('LazyWeightsRegistry', () => {
  it('hands a session only the weights its graph names', () => {
    const registry = new LazyWeightsRegistry();
    const [a, b] = [registry.nextLocation(), registry.nextLocation()];
    const entry = (location: string) => ({ location, data: new Uint8Array(0), tensors: 1, bytes: 1, read: async () => new Uint8Array(0) });
    registry.add(entry(a));
    registry.add(entry(b));
    const graphNaming = (location: string) => new Writer().message(7, (g) => g.string(1, location)).finish();
    expect(registry.take(graphNaming('some-other-file.bin'))).toEqual([]);
    expect(registry.take(graphNaming(b)).map((w) => w.location)).toEqual([b]);
    expect(registry.take().map((w) => w.location)).toEqual([a]);
    expect(registry.take()).toEqual([]);
  });
});

describe('the session hook', () => {
  it('mounts the registered weights with the next session, and says so', async () => {
    const bytes = modelBytes('fliplab/tiny-bert');
    const registry = new LazyWeightsRegistry();
    const location = registry.nextLocation();
    const moved = externalizeGraph(bytes, { location })!;
    // onnxruntime-node copies a mounted buffer natively: the file's bytes stand in for the Blob's view
    registry.add({ location, data: bytes, tensors: moved.tensors, bytes: moved.bytes, read: async () => bytes });
    const prepared: SessionPreparation[] = [];
    const hook = prepareSessions(ort as never, { pooling: 'cls', onPrepared: (p) => prepared.push(p), lazyWeights: registry });
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(moved.graph, hook.sessionOptions as never);
    } finally {
      hook.release();
    }
    expect(prepared).toEqual([{ externalTensors: moved.tensors, externalBytes: moved.bytes, pooled: true, lazy: true }]);
    expect(registry.take()).toEqual([]);
    const plain = await ort.InferenceSession.create(bytes);
    try {
      const feeds = tokenFeeds(plain, 2, 3, 3);
      const hidden = (await plain.run(feeds)).last_hidden_state!;
      const width = hidden.dims[2]!;
      const data = hidden.data as Float32Array;
      const cls = [...data.slice(0, width), ...data.slice(3 * width, 4 * width)];
      const pooled = (await session.run(feeds)).last_hidden_state!;
      expect(pooled.dims).toEqual([2, width]);
      expect(Array.from(pooled.data as Float32Array)).toEqual(cls);
    } finally {
      await Promise.all([plain.release(), session.release()]);
    }
  });
});
