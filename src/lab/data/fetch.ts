/**
 * Downloads for the data layer: `fetchWithProgress` streams one URL with byte progress and an ETA, and
 * `fetchCatalogCollection` fetches a BEIR set from the hub (or a mirror) trying the layouts of
 * catalog.ts in order. Web-standard APIs only (fetch, streams), so it runs in a worker and in Node.
 */
import { errorMessage } from '../../core/error-message.ts';
import {
  DEFAULT_HUB_BASE,
  LAYOUT_ORDER,
  catalogEntry,
  corpusRepoUrl,
  datasetFileUrl,
  layoutFiles,
  numberedShard,
  qrelsLayouts,
  treeApiUrl,
  type HubLayout,
  type LayoutFiles,
} from './catalog.ts';
import type { CollectionFile, FetchProgress } from './types.ts';
import { etaMs } from '../../core/progress.ts';
import { problemOf, withProblem } from '../problems.ts';

/** An HTTP answer other than 2xx. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly url: string,
    readonly status: number,
    statusText: string,
  ) {
    super(`GET ${url} failed: HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
  }
}

export function isNotFound(e: unknown): boolean {
  return e instanceof HttpError && e.status === 404;
}

export interface FetchOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: FetchProgress) => void;
  /** Defaults to the global fetch (tests may pass their own). */
  readonly fetch?: typeof fetch;
}

/**
 * GET `url` and return its body, streaming it to report `{ loaded, total, etaMs, url }` after every
 * chunk (and once at the end, with `loaded` = the body's size). Aborting `signal` rejects with the
 * signal's reason (an `AbortError` DOMException by default); a non-2xx answer rejects with HttpError.
 */
export async function fetchWithProgress(url: string, options: FetchOptions = {}): Promise<Uint8Array> {
  const { signal, onProgress } = options;
  const doFetch = options.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await doFetch(url, signal ? { signal } : {});
  } catch (e) {
    if (signal?.aborted || (e as Error)?.name === 'AbortError') throw e;
    throw withProblem(new Error(`GET ${url} failed: ${errorMessage(e)}`, { cause: e }), problemOf(e));
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new HttpError(url, res.status, res.statusText);
  }
  const header = res.headers.get('content-length');
  const declared = header === null ? NaN : Number(header);
  // A gzip Content-Encoding makes Content-Length the compressed size: useless as a total for the body.
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = Number.isFinite(declared) && declared >= 0 && !encoded ? declared : null;
  const started = performance.now();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  const report = (): void => {
    onProgress?.({ url, loaded, total, etaMs: etaMs(loaded, total, performance.now() - started) });
  };
  report();
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.length;
        report();
      }
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      throw new Error(`GET ${url} failed while reading the body after ${loaded} bytes: ${errorMessage(e)}`, {
        cause: e,
      });
    } finally {
      reader.releaseLock();
    }
  }
  if (signal?.aborted) throw signal.reason;
  const out = chunks.length === 1 ? chunks[0]! : concat(chunks, loaded);
  onProgress?.({ url, loaded, total: total ?? loaded, etaMs: 0 });
  return out;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export interface CatalogFetchOptions extends FetchOptions {
  /** Hub or mirror base URL; default https://huggingface.co. */
  readonly baseUrl?: string;
  /** Qrels split; default the catalog's test split ("test" for names not in the catalog). */
  readonly split?: string;
  /** Layouts to try, in order; default LAYOUT_ORDER. */
  readonly layouts?: readonly HubLayout[];
}

interface TreeEntry {
  readonly type?: string;
  readonly path?: string;
}

/** The parquet shards of `spec` in `repo`, fetched; throws HttpError 404 when there are none. */
async function fetchShards(base: string, repo: string, spec: LayoutFiles, opts: FetchOptions): Promise<CollectionFile[]> {
  const get = async (file: string): Promise<CollectionFile> => ({
    path: file,
    bytes: await fetchWithProgress(datasetFileUrl(base, repo, file, spec.revision), opts),
  });
  try {
    const first = await get(spec.file);
    if (spec.shards?.kind !== 'numbered') return [first];
    const out = [first];
    for (let i = 1; ; i++) {
      try {
        out.push(await get(numberedShard(spec.shards.dir, i)));
      } catch (e) {
        if (isNotFound(e)) return out;
        throw e;
      }
    }
  } catch (e) {
    if (!isNotFound(e) || spec.shards?.kind !== 'main-shards') throw e;
    // More than one shard (or another count): ask the tree API which files there are.
    const listUrl = treeApiUrl(base, repo, spec.shards.dir, spec.revision);
    let entries: TreeEntry[];
    try {
      const raw = await fetchWithProgress(listUrl, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
      });
      entries = JSON.parse(new TextDecoder().decode(raw)) as TreeEntry[];
    } catch (listError) {
      if (opts.signal?.aborted) throw listError;
      throw e; // no API on this mirror: the layout is absent
    }
    const prefix = spec.shards.prefix;
    const files = (Array.isArray(entries) ? entries : [])
      .filter((t) => t.type === 'file' && typeof t.path === 'string' && t.path.endsWith('.parquet'))
      .map((t) => t.path!)
      .filter((p) => (p.split('/').pop() ?? '').startsWith(prefix))
      .sort();
    if (files.length === 0) throw e;
    const out: CollectionFile[] = [];
    for (const f of files) out.push(await get(f));
    return out;
  }
}

/**
 * Download a BEIR set: queries, corpus (first layout of `layouts` whose files exist; queries first,
 * since they are small and tell fastest whether the layout exists) and the qrels of one split. Paths of
 * the returned files: the hub's paths for corpus/queries, `qrels/<split>.tsv` or
 * `qrels/<split>/NNNN.parquet` for the judgments — names load.ts classifies. Errors other than 404
 * (a 500, a network failure, an abort) stop at once; 404 on every layout → an Error listing every URL.
 */
export async function fetchCatalogCollection(name: string, options: CatalogFetchOptions = {}): Promise<CollectionFile[]> {
  const base = options.baseUrl ?? DEFAULT_HUB_BASE;
  const split = options.split ?? catalogEntry(name)?.testSplit ?? 'test';
  const fopts: FetchOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const tried: string[] = [];
  let texts: CollectionFile[] | undefined;
  for (const layout of options.layouts ?? LAYOUT_ORDER) {
    const q = layoutFiles(layout, 'queries');
    const c = layoutFiles(layout, 'corpus');
    try {
      const queries = await fetchShards(base, name, q, fopts);
      const corpus = await fetchShards(base, name, c, fopts);
      texts = [...corpus, ...queries];
      break;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      tried.push(`${layout}: ${(e as HttpError).url}`);
    }
  }
  if (!texts) {
    throw withProblem(
      new Error(
        `BEIR set "${name}" not found at ${base}: every layout answered 404 (${tried.join('; ')}). ` +
          `Check the name and the mirror URL (expected ${corpusRepoUrl(base, name, 'corpus.jsonl.gz')} or its parquet files).`,
      ),
      'not-found',
    );
  }
  const qrelsRepo = `${name}-qrels`;
  for (const spec of qrelsLayouts(split)) {
    try {
      const files = await fetchShards(base, qrelsRepo, spec, fopts);
      const renamed = files.map((f) => ({
        path: spec.shards ? `qrels/${split}/${f.path.split('/').pop() ?? f.path}` : `qrels/${split}.tsv`,
        bytes: f.bytes,
      }));
      return [...texts, ...renamed];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      tried.push(`qrels: ${(e as HttpError).url}`);
    }
  }
  throw withProblem(
    new Error(
      `BEIR set "${name}": no judgments for split "${split}" at ${base} (404 on ` +
        `${datasetFileUrl(base, qrelsRepo, `${split}.tsv`)} and its parquet conversion).`,
    ),
    'not-found',
  );
}
