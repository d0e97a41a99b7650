/**
 * The cache-first encoding job with a fake encoder (deterministic vectors from the text, call log) and
 * the in-memory cache: what is encoded, what is skipped, resume after an abort, device fallback, a NaN stopping it.
 */
import { describe, expect, it } from 'vitest';
import type { EncodedBatch, LoadedEncoder } from '../../../src/encoders/encoder.ts';
import { NonFiniteVectorError } from '../../../src/encoders/agreement.ts';
import { CACHE_DEVICE, encodeWithCache, MemoryVectorCache, type EncodeProgress, type LazyEncoder } from '../../../src/encoders/job.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';

function fakeEncoder(
  config: EncoderConfig = PRESETS['e5-small'],
  opts: { device?: LoadedEncoder['device']; failOnCall?: number; maxBatchInMemory?: number } = {},
) {
  const calls: string[][] = [];
  const encoder: LoadedEncoder = {
    config,
    device: opts.device ?? 'wasm',
    dtype: config.dtype,
    countTokens: (texts) => texts.map((t) => t.split(' ').length + 2),
    async encode(texts): Promise<EncodedBatch> {
      calls.push([...texts]);
      if (opts.failOnCall === calls.length) throw new Error('GPU device was lost');
      if (opts.maxBatchInMemory !== undefined && texts.length > opts.maxBatchInMemory)
        throw new Error('failed to allocate a buffer: out of memory');
      return { dense: texts.map((t) => Float32Array.of(t.length, t.charCodeAt(0))), tokens: texts.map((t) => t.split(' ').length + 2) };
    },
    async dispose() {},
  };
  return { encoder, calls };
}

const TEXTS = Array.from({ length: 20 }, (_, i) => `passage number ${i} ${'word '.repeat(i % 7)}`.trim());
const plan = { maxTokens: 40, maxBatch: 4 };

describe('encodeWithCache', () => {
  it('encodes every text once, in length-grouped batches each committed, and returns them in input order', async () => {
    const { encoder, calls } = fakeEncoder();
    const cache = new MemoryVectorCache();
    const vectors = await encodeWithCache(encoder, cache, TEXTS, { role: 'passage', plan });
    expect(vectors.map((v) => Array.from(v.dense!))).toEqual(TEXTS.map((t) => [t.length, t.charCodeAt(0)]));
    expect(calls.flat().sort()).toEqual([...TEXTS].sort());
    expect(cache.puts).toBe(calls.length);
    for (const batch of calls) expect(batch.length).toBeLessThanOrEqual(4);
  });

  it('checks for room with the count still to encode, before encoding any; a refusal encodes and stores nothing', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS.slice(0, 7), { role: 'passage', plan });
    const asked: number[] = [];
    const refused = fakeEncoder();
    const full = new Error('no room');
    await expect(
      encodeWithCache(refused.encoder, cache, TEXTS, {
        role: 'passage',
        plan,
        beforeEncoding: async (n) => {
          asked.push(n);
          throw full;
        },
      }),
    ).rejects.toBe(full);
    expect(asked).toEqual([13]);
    expect(refused.calls).toEqual([]);
    expect(cache.entries.size).toBe(7);
    // Everything cached: nothing to make room for, no check.
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, { role: 'passage', plan });
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, { role: 'passage', plan, beforeEncoding: async (n) => void asked.push(n) });
    expect(asked).toEqual([13]);
  });

  it('a lazy encoder is loaded only when something is not cached (a fully cached run needs no model)', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, { role: 'passage', plan });
    const model = fakeEncoder();
    let loads = 0;
    const lazy: LazyEncoder = { config: model.encoder.config, dtype: model.encoder.dtype, load: async () => (loads++, model.encoder) };
    const progress: EncodeProgress[] = [];
    const got: number[] = [];
    const vectors = await encodeWithCache(lazy, cache, TEXTS, {
      role: 'passage',
      plan,
      onProgress: (p) => progress.push(p),
      onVectors: (positions) => void got.push(...positions),
    });
    expect(loads).toBe(0);
    expect(vectors.map((v) => Array.from(v.dense!))).toEqual(TEXTS.map((t) => [t.length, t.charCodeAt(0)]));
    expect(got.sort((a, b) => a - b)).toEqual(TEXTS.map((_, i) => i));
    expect(progress.at(-1)).toMatchObject({ done: 20, cached: 20, device: CACHE_DEVICE });
    // One text more: the model is loaded once, and only the new text is encoded.
    const more = [...TEXTS, 'a passage nobody encoded yet'];
    await encodeWithCache(lazy, cache, more, { role: 'passage', plan });
    expect(loads).toBe(1);
    expect(model.calls).toEqual([['a passage nobody encoded yet']]);
    // A query role is another identity: nothing cached, so it loads.
    await encodeWithCache(lazy, cache, TEXTS.slice(0, 2), { role: 'query', plan });
    expect(loads).toBe(2);
  });

  it('refuses a lazily loaded encoder whose dtype is not the one the cache was read for', async () => {
    const model = fakeEncoder();
    const lazy: LazyEncoder = { config: model.encoder.config, dtype: 'q8', load: async () => model.encoder };
    await expect(encodeWithCache(lazy, new MemoryVectorCache(), TEXTS, { role: 'passage', plan })).rejects.toThrow(
      /not the one the cache was read for/,
    );
    expect(model.calls).toEqual([]);
  });

  it('a second visit encodes nothing', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, { role: 'passage', plan });
    const again = fakeEncoder();
    const progress: EncodeProgress[] = [];
    const vectors = await encodeWithCache(again.encoder, cache, TEXTS, { role: 'passage', plan, onProgress: (p) => progress.push(p) });
    expect(again.calls).toEqual([]);
    expect(vectors).toHaveLength(TEXTS.length);
    expect(progress.at(-1)).toMatchObject({ done: 20, cached: 20, total: 20, etaMs: 0 });
  });

  it('reports every vector once as it becomes known: cache hits first, then each committed batch', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS.slice(0, 7), { role: 'passage', plan });
    const seen = new Map<number, { first: number; from: string }>();
    const events: string[] = [];
    const vectors = await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, {
      role: 'passage',
      plan,
      onVectors: (positions, vs, from) => {
        events.push(from);
        positions.forEach((p, i) => {
          expect(seen.has(p)).toBe(false);
          seen.set(p, { first: vs[i]!.dense![0]!, from });
        });
      },
    });
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(TEXTS.map((_, i) => i));
    for (const [p, v] of seen) {
      expect(v.first).toBe(vectors[p]!.dense![0]);
      expect(v.from).toBe(p < 7 ? 'cache' : 'encoder');
    }
    expect(events[0]).toBe('cache');
    expect(events.slice(1).every((e) => e === 'encoder')).toBe(true);
  });

  it('with keep: false holds nothing for the end: every vector is still reported and committed, and [] is returned', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS.slice(0, 5), { role: 'passage', plan });
    let reported = 0;
    const progress: EncodeProgress[] = [];
    const result = await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, {
      role: 'passage',
      plan,
      keep: false,
      onVectors: (positions) => (reported += positions.length),
      onProgress: (p) => progress.push(p),
    });
    expect(result).toEqual([]);
    expect(reported).toBe(TEXTS.length);
    expect(progress.at(-1)).toMatchObject({ done: 20, cached: 5, total: 20 });
    // Everything was committed: a normal run afterwards gets every vector from the cache.
    const again = fakeEncoder();
    const vectors = await encodeWithCache(again.encoder, cache, TEXTS, { role: 'passage', plan });
    expect(again.calls).toEqual([]);
    expect(vectors.map((v) => v.dense![0])).toEqual(TEXTS.map((t) => t.length));
  });

  it('queries and another dtype are other cache entries', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS, { role: 'passage', plan });
    const asQuery = fakeEncoder();
    await encodeWithCache(asQuery.encoder, cache, TEXTS.slice(0, 3), { role: 'query', plan });
    expect(asQuery.calls.flat()).toHaveLength(3);
    const q8 = fakeEncoder({ ...PRESETS['e5-small'], dtype: 'q8' });
    await encodeWithCache(q8.encoder, cache, TEXTS.slice(0, 2), { role: 'passage', plan });
    expect(q8.calls.flat()).toHaveLength(2);
  });

  it('resumes after an abort: committed batches are kept, only the rest is encoded', async () => {
    const cache = new MemoryVectorCache();
    const controller = new AbortController();
    const first = fakeEncoder();
    let batches = 0;
    await expect(
      encodeWithCache(first.encoder, cache, TEXTS, {
        role: 'passage',
        plan,
        signal: controller.signal,
        onBatch: () => {
          if (++batches === 2) controller.abort();
        },
      }),
    ).rejects.toThrow();
    const committed = first.calls.flat();
    expect(committed.length).toBeGreaterThan(0);
    const second = fakeEncoder();
    const vectors = await encodeWithCache(second.encoder, cache, TEXTS, { role: 'passage', plan });
    expect(second.calls.flat().sort()).toEqual(TEXTS.filter((t) => !committed.includes(t)).sort());
    expect(vectors.map((v) => v.dense![0])).toEqual(TEXTS.map((t) => t.length));
  });

  it('falls back to another encoder when the device is lost, redoing only the failed batch', async () => {
    const gpu = fakeEncoder(PRESETS['e5-small'], { device: 'webgpu', failOnCall: 3 });
    const wasm = fakeEncoder();
    const progress: EncodeProgress[] = [];
    const vectors = await encodeWithCache(gpu.encoder, new MemoryVectorCache(), TEXTS, {
      role: 'passage',
      plan,
      fallback: async () => wasm.encoder,
      onProgress: (p) => progress.push(p),
    });
    expect(vectors).toHaveLength(20);
    expect(wasm.calls[0]).toEqual(gpu.calls[2]);
    expect([...gpu.calls.slice(0, 2), ...wasm.calls].flat().sort()).toEqual([...TEXTS].sort());
    expect(progress.at(-1)!.device).toBe('wasm');
    expect(progress.at(-1)!.fallback).toMatch(/webgpu failed \(GPU device was lost\)/);
  });

  it('stops at the first batch with a NaN or ∞ in any vector, before storing it; the batches before stay stored', async () => {
    // The fake's vector is [length, first char code]: a text starting with "~" (a poisoned text) gets NaN.
    const poisoned = (texts: readonly string[]) => ({
      ...fakeEncoder().encoder,
      encode: async (batch: readonly string[]): Promise<EncodedBatch> => ({
        dense: batch.map((t) => Float32Array.of(t.length, t.startsWith('~') ? NaN : t.charCodeAt(0))),
        tokens: batch.map(() => 3),
      }),
      countTokens: () => texts.map((_, i) => i + 1), // batches in input order: 4 texts a batch
    });
    const texts = TEXTS.slice(0, 12).map((t, i) => (i === 5 ? `~${t}` : t));
    const cache = new MemoryVectorCache();
    const error = await encodeWithCache(poisoned(texts), cache, texts, { role: 'passage', plan: { maxTokens: 1000, maxBatch: 4 } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NonFiniteVectorError);
    expect(error).toMatchObject({ batch: 2, bad: 1, size: 4, first: 5, role: 'passage', device: 'wasm' });
    // Batch 1 (texts 0–3) was committed; batch 2 (texts 4–7, the poisoned one among them) and the rest were not.
    expect(cache.puts).toBe(1);
    expect(cache.entries.size).toBe(4);
    // The same on a path whose very first batch overflows: nothing at all is stored.
    const first = texts.map((t, i) => (i === 0 ? `~${t}` : t));
    const none = new MemoryVectorCache();
    await expect(
      encodeWithCache(poisoned(first), none, first, { role: 'query', plan: { maxTokens: 1000, maxBatch: 4 } }),
    ).rejects.toMatchObject({
      batch: 1,
      first: 0,
      role: 'query',
    });
    expect(none.puts).toBe(0);
  });

  it('without a fallback the error surfaces, and progress is monotone with an ETA', async () => {
    const broken = fakeEncoder(PRESETS['e5-small'], { failOnCall: 1 });
    await expect(encodeWithCache(broken.encoder, new MemoryVectorCache(), TEXTS, { role: 'passage', plan })).rejects.toThrow(
      /device was lost/,
    );
    let t = 0;
    const progress: EncodeProgress[] = [];
    await encodeWithCache(fakeEncoder().encoder, new MemoryVectorCache(), TEXTS, {
      role: 'passage',
      plan,
      now: () => (t += 10),
      onProgress: (p) => progress.push(p),
    });
    expect(progress[0]!.etaMs).toBeNull();
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    // Every committed batch moves the count on, with an ETA from the encoding rate.
    const batches = progress.filter((p) => p.phase === 'encoding' && p.done > 0);
    for (let i = 1; i < batches.length; i++) expect(batches[i]!.done).toBeGreaterThan(batches[i - 1]!.done);
    expect(batches[0]!.etaMs).toBeGreaterThan(0);
    expect(progress.at(-1)!.etaMs).toBe(0);
  });

  it('says its phase: reading the cache (checked n of N), loading the model only when something is missing, then encoding', async () => {
    const cache = new MemoryVectorCache();
    await encodeWithCache(fakeEncoder().encoder, cache, TEXTS.slice(0, 6), { role: 'passage', plan });
    const model = fakeEncoder();
    const lazy: LazyEncoder = { config: model.encoder.config, dtype: model.encoder.dtype, load: async () => model.encoder };
    let t = 0;
    const progress: EncodeProgress[] = [];
    await encodeWithCache(lazy, cache, TEXTS, {
      role: 'passage',
      plan,
      lookupWindow: 8,
      now: () => (t += 10),
      onProgress: (p) => progress.push(p),
    });
    const phases = progress.map((p) => p.phase);
    // The first report comes before any lookup; the phases never go back.
    expect(progress[0]).toMatchObject({ phase: 'reading-cache', checked: 0, done: 0, cached: 0, device: null, etaMs: null });
    expect(phases.indexOf('loading-model')).toBe(phases.lastIndexOf('reading-cache') + 1);
    expect(phases.slice(phases.indexOf('encoding')).every((p) => p === 'encoding')).toBe(true);
    expect(progress.filter((p) => p.phase === 'reading-cache').map((p) => [p.checked, p.cached])).toEqual([
      [0, 0],
      [8, 6],
      [16, 6],
      [20, 6],
    ]);
    // No device until a model encodes; the model load is not "encoding" and gives no rate.
    for (const p of progress.filter((p) => p.phase !== 'encoding')) expect(p).toMatchObject({ device: null, perSecond: null });
    const encoding = progress.filter((p) => p.phase === 'encoding');
    expect(encoding[0]).toMatchObject({ done: 6, cached: 6, device: 'wasm', etaMs: null, perSecond: null });
    expect(encoding.at(-1)).toMatchObject({ done: 20, cached: 6, etaMs: 0 });
    expect(encoding[1]!.perSecond).toBeGreaterThan(0);
  });

  it('leaves the first batch (a warm-up: shader compilation) out of the rate and ETA once a later batch is done', async () => {
    // The clock ticks 10 ms per reading, except the first encode call, which takes 1,000 ms.
    let t = 0;
    let calls = 0;
    const base = fakeEncoder().encoder;
    const slowFirst: LoadedEncoder = {
      ...base,
      encode: async (texts, role) => {
        if (++calls === 1) t += 1000;
        return base.encode(texts, role);
      },
    };
    const progress: EncodeProgress[] = [];
    await encodeWithCache(slowFirst, new MemoryVectorCache(), TEXTS, {
      role: 'passage',
      plan,
      now: () => (t += 10),
      onProgress: (p) => progress.push(p),
    });
    const batches = progress.filter((p) => p.phase === 'encoding' && p.done > 0);
    expect(batches.length).toBeGreaterThan(2);
    // after the first batch: that batch's rate (slow); after the second: only what followed it (fast)
    expect(batches[0]!.perSecond!).toBeLessThan(5);
    expect(batches[1]!.perSecond!).toBeGreaterThan(20);
    expect(batches.at(-1)!.batches).toBe(batches.length);
    const secondRate = batches[1]!.perSecond!;
    const left = TEXTS.length - batches[1]!.done;
    expect(batches[1]!.etaMs).toBeCloseTo((left / secondRate) * 1000, 0);
  });

  it('counts each out-of-memory split and says which limit sized the batches', async () => {
    const { encoder, calls } = fakeEncoder(PRESETS['e5-small'], { maxBatchInMemory: 1 });
    const progress: EncodeProgress[] = [];
    await encodeWithCache(encoder, new MemoryVectorCache(), TEXTS.slice(0, 8), {
      role: 'passage',
      plan,
      planFor: () => ({ ...plan, boundBy: 'logits (30,522 per token)' }),
      onProgress: (p) => progress.push(p),
    });
    const last = progress.at(-1)!;
    // every batch of n > 1 texts failed once per split down to single texts: n − 1 splits per batch
    const batchSizes = calls.filter((c) => c.length > 1).length;
    expect(last.oomRetries).toBe(batchSizes);
    expect(last.oomRetries).toBeGreaterThan(0);
    expect(last.planBoundBy).toBe('logits (30,522 per token)');
  });

  it('counts its rate and ETA from when encoding started, not from the model load', async () => {
    const model = fakeEncoder();
    let t = 0;
    let loading = false;
    // The clock jumps 10 s during the load, and moves 100 ms per call otherwise.
    const now = () => (t += loading ? 10_000 : 100);
    const lazy: LazyEncoder = {
      config: model.encoder.config,
      dtype: model.encoder.dtype,
      load: async () => {
        loading = true;
        now();
        loading = false;
        return model.encoder;
      },
    };
    const progress: EncodeProgress[] = [];
    await encodeWithCache(lazy, new MemoryVectorCache(), TEXTS, { role: 'passage', plan, now, onProgress: (p) => progress.push(p) });
    const first = progress.find((p) => p.phase === 'encoding' && p.done > 0)!;
    // One batch in ~100–200 ms of encoding: tens of passages a second, not a tenth of one (which 10 s of load would give).
    expect(first.perSecond).toBeGreaterThan(first.done);
    expect(first.etaMs).toBeLessThan(10_000);
    expect(first.elapsedMs).toBeGreaterThan(10_000);
  });

  it('a model already in memory is not "loading": the job goes from the cache lookup straight to encoding', async () => {
    const model = fakeEncoder();
    const lazy: LazyEncoder = {
      config: model.encoder.config,
      dtype: model.encoder.dtype,
      load: async () => model.encoder,
      loaded: () => true,
    };
    const progress: EncodeProgress[] = [];
    await encodeWithCache(lazy, new MemoryVectorCache(), TEXTS, { role: 'passage', plan, onProgress: (p) => progress.push(p) });
    expect(progress.map((p) => p.phase)).not.toContain('loading-model');
    expect(progress.map((p) => p.phase)).toContain('encoding');
  });
});

describe('batch size adapts to memory', () => {
  it('splits a batch the device cannot hold until it fits, keeping input order', async () => {
    const { encoder, calls } = fakeEncoder(PRESETS['e5-small'], { maxBatchInMemory: 1 });
    const vectors = await encodeWithCache(encoder, new MemoryVectorCache(), TEXTS, { role: 'passage', plan });
    expect(vectors.map((v) => v.dense![0])).toEqual(TEXTS.map((t) => t.length));
    // Every successful call held one text; the failed attempts were the wider ones.
    const succeeded = calls.filter((c) => c.length === 1).flat();
    expect(succeeded.sort()).toEqual([...TEXTS].sort());
  });

  it('does not split on errors that are not about memory', async () => {
    const broken = fakeEncoder(PRESETS['e5-small'], { failOnCall: 1 });
    await expect(encodeWithCache(broken.encoder, new MemoryVectorCache(), TEXTS, { role: 'passage', plan })).rejects.toThrow(
      /device was lost/,
    );
    expect(broken.calls).toHaveLength(1);
  });
});

describe('encodeWithCache: one encoder per encoding across tabs', () => {
  /** An in-memory stand-in for Web Locks: one holder per name, the others queued in order. */
  function memoryLocks() {
    const held = new Map<string, Promise<unknown>>();
    const exclusive = async <T>(name: string, job: () => Promise<T>, onWait: () => void): Promise<T> => {
      const before = held.get(name);
      if (before !== undefined) onWait();
      const run = (before ?? Promise.resolve()).catch(() => undefined).then(job);
      held.set(name, run);
      return run;
    };
    return exclusive;
  }

  it('a second job on the same texts waits, takes the first one’s vectors as they land, and encodes none itself', async () => {
    const exclusive = memoryLocks();
    const cache = new MemoryVectorCache();
    const first = fakeEncoder();
    const second = fakeEncoder();
    // the first encoder is slow: the second job must find the lock held
    const slow: LoadedEncoder = {
      ...first.encoder,
      encode: async (texts, role) => {
        await new Promise((r) => setTimeout(r, 5));
        return first.encoder.encode(texts, role);
      },
    };
    const phases: EncodeProgress['phase'][] = [];
    const [a, b] = await Promise.all([
      encodeWithCache(slow, cache, TEXTS, { role: 'passage', plan, exclusive }),
      encodeWithCache(second.encoder, cache, TEXTS, { role: 'passage', plan, exclusive, onProgress: (p) => phases.push(p.phase) }),
    ]);
    expect(first.calls.flat().sort()).toEqual([...TEXTS].sort());
    expect(second.calls).toEqual([]);
    expect(phases).toContain('elsewhere');
    expect(phases).not.toContain('encoding');
    expect(b.map((v) => Array.from(v.dense!))).toEqual(a.map((v) => Array.from(v.dense!)));
  });

  it('when the first job stops half way, the waiting one encodes only the rest', async () => {
    const exclusive = memoryLocks();
    const cache = new MemoryVectorCache();
    const first = fakeEncoder(PRESETS['e5-small'], { failOnCall: 3 });
    const second = fakeEncoder();
    // The second job starts once the first holds the lock and encodes (not left to the event loop's order).
    let encoding!: () => void;
    const firstEncodes = new Promise<void>((resolve) => (encoding = resolve));
    const holder: LoadedEncoder = {
      ...first.encoder,
      encode: (texts, role) => {
        encoding();
        return first.encoder.encode(texts, role);
      },
    };
    const one = encodeWithCache(holder, cache, TEXTS, { role: 'passage', plan, exclusive });
    await firstEncodes;
    const results = await Promise.allSettled([one, encodeWithCache(second.encoder, cache, TEXTS, { role: 'passage', plan, exclusive })]);
    expect(results[0]!.status).toBe('rejected');
    expect(results[1]!.status).toBe('fulfilled');
    const byFirst = first.calls.slice(0, 2).flat();
    expect(byFirst.length).toBeGreaterThan(0);
    expect(second.calls.flat().sort()).toEqual(TEXTS.filter((t) => !byFirst.includes(t)).sort());
  });
});
