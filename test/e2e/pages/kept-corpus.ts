/**
 * Test-page helpers for bench:encode --fiqa-sized (bench/encode-fiqa-sized.ts): a corpus job whose vectors stay
 * in the encode worker as the matrix its dense search reads (57,638 × 1,024 floats is 236 MB: the page keeps
 * only a sample of them, as the app keeps none), exact dense search over that matrix, the sample checked against
 * a fresh encoding, the first queries' top 10 against a plain scan, and the page's memory. Spread into
 * `window.fliplabTest` by encode.ts.
 */
import type { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import type { StoredVector } from '../../../src/encoders/pooling.ts';
import type { EncoderConfig } from '../../../src/encoders/presets.ts';
import type { WorkerDevice, WorkerLoadOptions } from '../../../src/lab/encode-types.ts';
import { testConfig, type TestKind } from './configs.ts';

/** What the bench is told about a kept corpus job (the vectors stay in the worker). */
export interface KeptCorpusSummary {
  readonly cached: number;
  readonly encoded: number;
  readonly device: string;
  readonly fallback: string | null;
  readonly vectors: number;
  /** Width of every vector (null if they differ or there are none). */
  readonly dim: number | null;
  /** From the call to its result, in the page. */
  readonly ms: number;
  /** When the cache lookup was over (every text checked), and when encoding started; null if never seen. */
  readonly lookupMs: number | null;
  readonly encodingStartedMs: number | null;
  /** The job's last progress: real tokens encoded, its encoding rate (first batch left out), batches. */
  readonly tokens: number;
  readonly perSecond: number | null;
  readonly batches: number;
  readonly oomRetries: number;
}

export interface KeptProgress {
  readonly phase: string;
  readonly done: number;
  readonly cached: number;
  readonly checked: number;
  readonly total: number;
  readonly tokens: number;
  readonly perSecond: number | null;
  readonly batches: number;
  /** Page time since the job started; when its cache lookup was over and its encoding started (null: not yet). */
  readonly ms: number;
  readonly lookupMs: number | null;
  readonly encodingStartedMs: number | null;
}

/** The page's JS memory: performance.memory (this page's heap) and measureUserAgentSpecificMemory (page + workers). */
export interface PageMemory {
  readonly pageHeapMB: number | null;
  /** Null when the API is unavailable here (it needs cross-origin isolation) or failed: `error` says why. */
  readonly uaTotalMB: number | null;
  /** Bytes by scope (Window, DedicatedWorkerGlobalScope, …), in MB. */
  readonly uaByScopeMB: Readonly<Record<string, number>> | null;
  readonly uaMs: number | null;
  readonly error: string | null;
}

export interface KeptSearchResult {
  readonly loadMs: number;
  readonly queryMs: number;
  readonly queries: number;
  readonly queryTokens: number;
  readonly rows: number;
  readonly dim: number;
  readonly searches: readonly { readonly k: number; readonly ms: number; readonly device: string; readonly reason: string | null }[];
}

/** The first queries' top 10 by a plain float64 scan in the page, against the worker's search. */
export interface KeptScanCheck {
  readonly checkedQueries: number;
  readonly top10Agree: boolean;
  readonly ms: number;
}

const MB = 2 ** 20;
const QUERY_BATCH = 32;

/** The id the worker keeps the job's matrix under. */
const KEPT_ID = 'kept-corpus';

export function keptCorpusHelpers(bridgeFor: (device: WorkerDevice) => EncodeBridge) {
  /** The sample of the job's vectors the page keeps (by corpus position), to check against a fresh encoding. */
  let sample = new Map<number, StoredVector>();
  let rows = 0;
  let dim: number | null = null;
  /** The device whose worker keeps the matrix. */
  let keptOn: WorkerDevice | null = null;
  /** The last search's queries and the first of its top-k lists, for the plain scan (checkKeptTop10). */
  let searched: { qs: Float32Array; first: Uint32Array[] } | null = null;
  let progress: KeptProgress | null = null;
  let job: Promise<KeptCorpusSummary | { error: string }> | null = null;
  /** Whether the started job is over (and how it failed), without waiting for it. */
  let state: { finished: boolean; error: string | null } = { finished: false, error: null };
  let memoryJob: { done: boolean; memory: PageMemory | null } | null = null;

  const configFor = (kind: TestKind, modelId: string, maxLength: number): EncoderConfig => ({ ...testConfig(kind, modelId), maxLength });
  const loadFor = (device: WorkerDevice): WorkerLoadOptions => ({
    device,
    dtype: 'fp32',
    source: { remoteHost: location.origin, allowRemote: true },
  });

  async function run(
    device: WorkerDevice,
    modelId: string,
    kind: TestKind,
    maxLength: number,
    texts: readonly string[],
    dbName: string,
    keepAt: readonly number[],
  ) {
    const started = performance.now();
    let lookupMs: number | null = null;
    let encodingStartedMs: number | null = null;
    let last = { tokens: 0, perSecond: null as number | null, batches: 0, oomRetries: 0 };
    sample = new Map();
    rows = 0;
    keptOn = device;
    const dims = new Set<number>();
    const result = await bridgeFor(device).encodeCorpus(
      {
        config: configFor(kind, modelId, maxLength),
        load: loadFor(device),
        texts,
        role: 'passage',
        dbName,
        returnVectors: false,
        keepDense: KEPT_ID,
      },
      (p) => {
        const ms = performance.now() - started;
        if (lookupMs === null && p.checked === p.total) lookupMs = ms;
        if (encodingStartedMs === null && p.phase === 'encoding') encodingStartedMs = ms;
        last = { tokens: p.tokens, perSecond: p.perSecond, batches: p.batches ?? 0, oomRetries: p.oomRetries ?? 0 };
        progress = {
          phase: p.phase,
          done: p.done,
          cached: p.cached,
          checked: p.checked,
          total: p.total,
          tokens: p.tokens,
          perSecond: p.perSecond,
          batches: p.batches ?? 0,
          ms,
          lookupMs,
          encodingStartedMs,
        };
      },
    );
    const ms = performance.now() - started;
    // Only the sample comes back to the page, read out of the worker's matrix.
    rows = result.cached + result.encoded;
    const vectors = await bridgeFor(device).keptDenseRows(KEPT_ID, keepAt);
    keepAt.forEach((at, i) => {
      dims.add(vectors[i]!.length);
      sample.set(at, { dense: vectors[i]!, tokens: 0 });
    });
    dim = dims.size === 1 ? [...dims][0]! : null;
    return {
      cached: result.cached,
      encoded: result.encoded,
      device: result.load?.device ?? 'cache',
      fallback: result.fallback ?? null,
      vectors: rows,
      dim,
      ms,
      lookupMs,
      encodingStartedMs,
      ...last,
    } satisfies KeptCorpusSummary;
  }

  /** Encode texts with the job's config in batches of QUERY_BATCH (model loaded on the first). */
  async function encodeAll(device: WorkerDevice, config: EncoderConfig, texts: readonly string[], role: 'query' | 'passage') {
    const out: Float32Array[] = [];
    let tokens = 0;
    for (let i = 0; i < texts.length; i += QUERY_BATCH) {
      const { batch } = await bridgeFor(device).encode({ config, load: loadFor(device), texts: texts.slice(i, i + QUERY_BATCH), role });
      out.push(...batch.dense!);
      tokens += batch.tokens.reduce((a, b) => a + b, 0);
    }
    return { vectors: out, tokens };
  }

  return {
    /**
     * Start a cache-first corpus job (WASM or WebGPU, the device's own plan) whose vectors stay in the worker as
     * the matrix its search reads; the page keeps those at `keepAt` only.
     */
    startKeptCorpus(
      device: WorkerDevice,
      modelId: string,
      kind: TestKind,
      maxLength: number,
      texts: readonly string[],
      dbName: string,
      keepAt: readonly number[],
    ): void {
      progress = null;
      state = { finished: false, error: null };
      job = run(device, modelId, kind, maxLength, texts, dbName, keepAt).then(
        (summary) => ((state = { finished: true, error: null }), summary),
        (e: unknown) => {
          const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
          state = { finished: true, error };
          return { error };
        },
      );
    },
    keptProgress: (): KeptProgress | null => progress,
    keptState: () => state,
    keptResult: () => job,

    /**
     * The kept vectors at `indices` against the same texts encoded now (same config, plain `encode` calls):
     * the largest |difference| over all of them.
     */
    async compareKept(
      device: WorkerDevice,
      modelId: string,
      kind: TestKind,
      maxLength: number,
      indices: readonly number[],
      texts: readonly string[],
    ) {
      const fresh = await encodeAll(device, configFor(kind, modelId, maxLength), texts, 'passage');
      let maxAbsDiff = 0;
      indices.forEach((at, i) => {
        const a = sample.get(at)?.dense;
        const b = fresh.vectors[i]!;
        if (!a || a.length !== b.length) maxAbsDiff = Infinity;
        else for (let j = 0; j < a.length; j++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(a[j]! - b[j]!));
      });
      return { compared: indices.length, maxAbsDiff };
    },

    /**
     * Load the model (timed), encode `queries` (role 'query') and run the worker's exact dense top-k once per k
     * over the matrix the last job kept there: nothing crosses to the worker but the queries.
     */
    async searchKept(
      device: WorkerDevice,
      modelId: string,
      kind: TestKind,
      maxLength: number,
      queries: readonly string[],
      ks: readonly number[],
    ): Promise<KeptSearchResult> {
      const config = configFor(kind, modelId, maxLength);
      const t0 = performance.now();
      await bridgeFor(device).load(config, loadFor(device));
      const t1 = performance.now();
      const q = await encodeAll(device, config, queries, 'query');
      const t2 = performance.now();
      const width = dim ?? 0;
      const qs = new Float32Array(q.vectors.length * width);
      q.vectors.forEach((v, i) => qs.set(v, i * width));
      const searches: { k: number; ms: number; device: string; reason: string | null }[] = [];
      let first: Uint32Array[] = [];
      for (const k of ks) {
        const s = performance.now();
        const r = await bridgeFor(device).denseSearch(KEPT_ID, { data: qs, rows: q.vectors.length, dim: width }, k, device);
        searches.push({ k, ms: performance.now() - s, device: r.device, reason: r.reason });
        if (first.length === 0) first = r.indices;
      }
      searched = { qs, first };
      return { loadMs: t1 - t0, queryMs: t2 - t1, queries: q.vectors.length, queryTokens: q.tokens, rows, dim: width, searches };
    },

    /**
     * The peer the kept matrix is measured against: the page reads the job's vectors back whole, packs them
     * row-major and sends them with every search, which the worker indexes for that call only (the path every
     * search took before the worker kept a matrix). Same queries, same depths.
     */
    async searchCopied(
      device: WorkerDevice,
      modelId: string,
      kind: TestKind,
      maxLength: number,
      texts: readonly string[],
      dbName: string,
      queries: readonly string[],
      ks: readonly number[],
    ): Promise<KeptSearchResult & { readMs: number }> {
      const config = configFor(kind, modelId, maxLength);
      const t0 = performance.now();
      const job = await bridgeFor(device).encodeCorpus({ config, load: loadFor(device), texts, role: 'passage', dbName });
      const width = job.vectors[0]?.dense?.length ?? 0;
      const data = new Float32Array(job.vectors.length * width);
      job.vectors.forEach((v, i) => data.set(v.dense!, i * width));
      const docs = { data, rows: job.vectors.length, dim: width };
      job.vectors.length = 0;
      const t1 = performance.now();
      await bridgeFor(device).load(config, loadFor(device));
      const t2 = performance.now();
      const q = await encodeAll(device, config, queries, 'query');
      const t3 = performance.now();
      const qs = new Float32Array(q.vectors.length * width);
      q.vectors.forEach((v, i) => qs.set(v, i * width));
      const searches: { k: number; ms: number; device: string; reason: string | null }[] = [];
      for (const k of ks) {
        const s = performance.now();
        const r = await bridgeFor(device).denseSearch(docs, { data: qs, rows: q.vectors.length, dim: width }, k, device);
        searches.push({ k, ms: performance.now() - s, device: r.device, reason: r.reason });
      }
      return {
        readMs: t1 - t0,
        loadMs: t2 - t1,
        queryMs: t3 - t2,
        queries: q.vectors.length,
        queryTokens: q.tokens,
        rows: docs.rows,
        dim: width,
        searches,
      };
    },

    /**
     * The last search's first queries' top 10 against a plain float64 scan in the page, over the job's vectors read
     * again from the cache batch by batch (the page never holds them all).
     */
    async checkKeptTop10(
      device: WorkerDevice,
      modelId: string,
      kind: TestKind,
      maxLength: number,
      texts: readonly string[],
      dbName: string,
    ): Promise<KeptScanCheck> {
      if (searched === null || dim === null) throw new Error('checkKeptTop10 needs a searchKept first');
      const started = performance.now();
      const { qs, first } = searched;
      const width = dim;
      const checkedQueries = Math.min(3, first.length);
      const scores = Array.from({ length: checkedQueries }, () => new Float64Array(texts.length));
      await bridgeFor(device).encodeCorpus(
        { config: configFor(kind, modelId, maxLength), load: loadFor(device), texts, role: 'passage', dbName, returnVectors: false },
        undefined,
        undefined,
        (positions, vectors) =>
          positions.forEach((d, i) => {
            const v = vectors[i]!.dense!;
            for (let c = 0; c < checkedQueries; c++) {
              let sum = 0;
              for (let j = 0; j < width; j++) sum += qs[c * width + j]! * v[j]!;
              scores[c]![d] = sum;
            }
          }),
      );
      const top10Agree = scores.every((row, c) =>
        Array.from(row.keys())
          .sort((a, b) => row[b]! - row[a]! || a - b)
          .slice(0, 10)
          .every((d, r) => first[c]![r] === d),
      );
      return { checkedQueries, top10Agree, ms: performance.now() - started };
    },

    /** Drop the page's sample and the worker's matrix (so the memory after a phase is what the app would hold). */
    async dropKept(): Promise<void> {
      sample = new Map();
      searched = null;
      if (keptOn !== null) await bridgeFor(keptOn).dropDenseDocs();
      keptOn = null;
    },

    pageMemory,

    /**
     * Start pageMemory() without waiting: with ONNX Runtime's wasm threads running, the user-agent measurement
     * takes its full timeout (~60 s), so a bench starts it ahead of the moment it wants (read with memoryState).
     */
    startPageMemory(ua = true): void {
      const entry: { done: boolean; memory: PageMemory | null } = { done: false, memory: null };
      memoryJob = entry;
      void pageMemory(ua).then((m) => ((entry.done = true), (entry.memory = m)));
    },
    memoryState: () => memoryJob,
  };
}

/** The page's JS memory now (see PageMemory); `ua` false: performance.memory only. */
async function pageMemory(ua = true): Promise<PageMemory> {
  const heap = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize;
  const measure = (
    performance as Performance & {
      measureUserAgentSpecificMemory?: () => Promise<{
        bytes: number;
        breakdown: { bytes: number; attribution: { scope?: string }[] }[];
      }>;
    }
  ).measureUserAgentSpecificMemory;
  const base = { pageHeapMB: heap === undefined ? null : heap / MB };
  if (!ua) return { ...base, uaTotalMB: null, uaByScopeMB: null, uaMs: null, error: 'measureUserAgentSpecificMemory: not asked for' };
  if (measure === undefined)
    return { ...base, uaTotalMB: null, uaByScopeMB: null, uaMs: null, error: 'measureUserAgentSpecificMemory: not available' };
  if (!crossOriginIsolated)
    return { ...base, uaTotalMB: null, uaByScopeMB: null, uaMs: null, error: 'measureUserAgentSpecificMemory: not cross-origin isolated' };
  const started = performance.now();
  try {
    const m = await measure.call(performance);
    const byScope: Record<string, number> = {};
    for (const b of m.breakdown) {
      const scope = b.attribution[0]?.scope ?? 'unattributed';
      byScope[scope] = (byScope[scope] ?? 0) + b.bytes / MB;
    }
    return { ...base, uaTotalMB: m.bytes / MB, uaByScopeMB: byScope, uaMs: performance.now() - started, error: null };
  } catch (e) {
    return { ...base, uaTotalMB: null, uaByScopeMB: null, uaMs: null, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}
