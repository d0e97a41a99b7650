/**
 * The catalog's URLs, and fetching SciFact through the real local hub server (test/support/hub-server.ts)
 * from a mirror written by test/support/beir-mirror.ts in every hub layout: the loaded collection must equal
 * what the core parses from ../shared/data/scifact directly. Also progress, abort and 404s.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEIR_CATALOG,
  catalogEntry,
  corpusRepoUrl,
  datasetFileUrl,
  qrelsUrl,
  treeApiUrl,
  type HubLayout,
} from '../../../src/lab/data/catalog.ts';
import { fetchCatalogCollection, fetchWithProgress, HttpError } from '../../../src/lab/data/fetch.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import type { FetchProgress, LoadedCollection } from '../../../src/lab/data/types.ts';
import { writeBeirMirror } from '../../support/beir-mirror.ts';
import { loadBeirFolder, type BeirCollection } from '../../../src/node/files.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';
import { SCIFACT_DIR } from '../../shared-data.ts';

const SCIFACT = SCIFACT_DIR;

describe('catalog', () => {
  it('names the BEIR sets the issue asks for, each with a test split and sizes', () => {
    for (const n of [
      'scifact',
      'fiqa',
      'nfcorpus',
      'arguana',
      'scidocs',
      'trec-covid',
      'quora',
      'nq',
      'hotpotqa',
      'fever',
      'climate-fever',
      'dbpedia-entity',
      'webis-touche2020',
    ]) {
      const e = catalogEntry(n);
      expect(e, n).toBeDefined();
      expect(e!.docs).toBeGreaterThan(1000);
      expect(e!.queries).toBeGreaterThan(0);
      expect(e!.testSplit).toBe('test');
    }
    expect(new Set(BEIR_CATALOG.map((e) => e.name)).size).toBe(BEIR_CATALOG.length);
  });

  it('builds hub URLs from a configurable base (trailing slash tolerated, revision encoded)', () => {
    expect(corpusRepoUrl('https://huggingface.co', 'scifact', 'corpus.jsonl.gz')).toBe(
      'https://huggingface.co/datasets/BeIR/scifact/resolve/main/corpus.jsonl.gz',
    );
    expect(qrelsUrl('http://mirror.local:8080/hf/', 'trec-covid', 'test')).toBe(
      'http://mirror.local:8080/hf/datasets/BeIR/trec-covid-qrels/resolve/main/test.tsv',
    );
    expect(datasetFileUrl('https://h', 'fiqa', 'corpus/corpus/0000.parquet', 'refs/convert/parquet')).toBe(
      'https://h/datasets/BeIR/fiqa/resolve/refs%2Fconvert%2Fparquet/corpus/corpus/0000.parquet',
    );
    expect(treeApiUrl('https://h/', 'nq', 'corpus')).toBe('https://h/api/datasets/BeIR/nq/tree/main/corpus');
  });
});

describe('fetching SciFact from a local hub mirror', () => {
  let root: string;
  let server: HubServer;
  let direct: BeirCollection;
  const layouts: { layout: HubLayout; shards?: number }[] = [
    { layout: 'jsonl' },
    { layout: 'jsonl.gz' },
    { layout: 'parquet' },
    { layout: 'parquet', shards: 3 },
    { layout: 'parquet-convert', shards: 2 },
  ];
  const nameOf = (l: { layout: HubLayout; shards?: number }): string => `scifact-${l.layout.replace('.', '')}-${l.shards ?? 1}`;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fliplab-mirror-'));
    for (const l of layouts) {
      await writeBeirMirror(root, {
        sourceDir: SCIFACT,
        name: nameOf(l),
        layout: l.layout,
        ...(l.shards ? { corpusShards: l.shards } : {}),
      });
    }
    server = await startHubServer({ datasetsRoot: root });
    direct = await loadBeirFolder(SCIFACT, 'test');
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  function expectSameAsDirect(got: LoadedCollection): void {
    expect(got.corpus.ids).toEqual(direct.corpus.ids);
    expect(got.corpus.titles).toEqual(direct.corpus.titles);
    expect(got.corpus.texts).toEqual(direct.corpus.texts);
    expect(got.queries.ids).toEqual(direct.queries.ids);
    expect(got.queries.texts).toEqual(direct.queries.texts);
    expect(got.split).toBe('test');
    const judgments = (q: { byQuery: ReadonlyMap<string, ReadonlyMap<string, number>> }): [string, [string, number][]][] =>
      [...q.byQuery].map(([k, v]) => [k, [...v]]);
    expect(judgments(got.qrels!)).toEqual(judgments(direct.qrels));
  }

  for (const l of layouts) {
    it(`layout ${l.layout}${l.shards ? ` (${l.shards} corpus shards)` : ''} gives what the core parses from the folder`, async () => {
      const files = await fetchCatalogCollection(nameOf(l), { baseUrl: server.url });
      const got = await loadCollection(files, { name: 'scifact' });
      expectSameAsDirect(got);
      expect(got.corpus.ids.length).toBe(5183);
      expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    }, 120_000);
  }

  it('tries layouts in order: a parquet mirror is found after 404s on nothing else, a jsonl mirror after parquet and jsonl.gz 404s', async () => {
    server.requests.length = 0;
    await fetchCatalogCollection('scifact-jsonl-1', { baseUrl: server.url });
    const paths = server.requests.map((r) => decodeURIComponent(r));
    expect(paths[0]).toBe('/datasets/BeIR/scifact-jsonl-1/resolve/main/queries/queries-00000-of-00001.parquet');
    expect(paths).toContain('/datasets/BeIR/scifact-jsonl-1/resolve/main/queries.jsonl.gz');
    expect(paths).toContain('/datasets/BeIR/scifact-jsonl-1/resolve/main/corpus.jsonl');
    expect(paths.at(-1)).toBe('/datasets/BeIR/scifact-jsonl-1-qrels/resolve/main/test.tsv');
  });

  it('reports monotone progress ending at the file size, with a total and an ETA', async () => {
    const events: FetchProgress[] = [];
    const url = corpusRepoUrl(server.url, 'scifact-jsonl-1', 'corpus.jsonl');
    const bytes = await fetchWithProgress(url, { onProgress: (p) => events.push(p) });
    const size = (await stat(join(root, 'datasets/BeIR/scifact-jsonl-1/corpus.jsonl'))).size;
    expect(bytes.length).toBe(size);
    expect(events.length).toBeGreaterThan(2);
    for (let i = 1; i < events.length; i++) expect(events[i]!.loaded).toBeGreaterThanOrEqual(events[i - 1]!.loaded);
    expect(events.at(-1)!.loaded).toBe(size);
    expect(events.every((e) => e.total === size && e.url === url)).toBe(true);
    expect(events.some((e) => e.loaded > 0 && e.loaded < size && e.etaMs !== null && e.etaMs >= 0)).toBe(true);
  });

  it('rejects with AbortError when aborted mid-download, and before it starts', async () => {
    const url = corpusRepoUrl(server.url, 'scifact-jsonl-1', 'corpus.jsonl');
    const ac = new AbortController();
    const mid = fetchWithProgress(url, { signal: ac.signal, onProgress: (p) => p.loaded > 0 && ac.abort() });
    await expect(mid).rejects.toMatchObject({ name: 'AbortError' });
    const before = new AbortController();
    before.abort();
    await expect(fetchCatalogCollection('scifact-jsonl-1', { baseUrl: server.url, signal: before.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('names URL and status on an HTTP error, and lists every layout when all answer 404', async () => {
    const url = corpusRepoUrl(server.url, 'nope', 'corpus.jsonl');
    const err = await fetchWithProgress(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(404);
    expect((err as Error).message).toContain(url);
    const all = await fetchCatalogCollection('no-such-set', { baseUrl: server.url }).catch((e: unknown) => e as Error);
    expect(all).toBeInstanceOf(Error);
    for (const l of ['parquet', 'jsonl.gz', 'jsonl', 'parquet-convert']) expect((all as Error).message).toContain(`${l}: `);
    expect((all as Error).message).toContain('no-such-set');
  });

  it('fails clearly when the qrels split is missing', async () => {
    const err = await fetchCatalogCollection('scifact-jsonlgz-1', { baseUrl: server.url, split: 'dev' }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/no judgments for split "dev"/);
  });
});
