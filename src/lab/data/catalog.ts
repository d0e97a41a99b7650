/**
 * The BEIR catalog: which sets the lab offers, how big they are, and where the Hugging Face hub (or a
 * mirror with the same URL layout) serves their files.
 *
 * What the hub serves, and where that was found: docs/beir-on-the-hub.md.
 *
 * Order of preference (the next layout is tried when a file of the current one answers 404):
 *   1. `parquet`          main: corpus/corpus-*.parquet, queries/queries-*.parquet (what `main` serves now)
 *   2. `jsonl.gz`         main: corpus.jsonl.gz, queries.jsonl.gz (the original upload; smallest download)
 *   3. `jsonl`            main: corpus.jsonl, queries.jsonl (plain mirrors)
 *   4. `parquet-convert`  refs/convert/parquet: corpus/corpus/NNNN.parquet, queries/queries/NNNN.parquet
 * Qrels: `<split>.tsv` on main, then `default/<split>/NNNN.parquet` on refs/convert/parquet.
 */

export const DEFAULT_HUB_BASE = 'https://huggingface.co';
export const BEIR_ORG = 'BeIR';

export interface CatalogEntry {
  /** Hub repository name under `BeIR/` (the qrels live in `BeIR/<name>-qrels`). */
  readonly name: string;
  readonly displayName: string;
  /** Approximate corpus size (BEIR paper, Table 1). */
  readonly docs: number;
  /** Approximate number of judged queries in the test split. */
  readonly queries: number;
  /** The split BEIR evaluates on. */
  readonly testSplit: string;
  readonly domain: string;
}

export const BEIR_CATALOG: readonly CatalogEntry[] = [
  { name: 'scifact', displayName: 'SciFact', docs: 5_183, queries: 300, testSplit: 'test', domain: 'scientific claims' },
  { name: 'nfcorpus', displayName: 'NFCorpus', docs: 3_633, queries: 323, testSplit: 'test', domain: 'bio-medical' },
  { name: 'arguana', displayName: 'ArguAna', docs: 8_674, queries: 1_406, testSplit: 'test', domain: 'argument retrieval' },
  { name: 'scidocs', displayName: 'SciDocs', docs: 25_657, queries: 1_000, testSplit: 'test', domain: 'citation prediction' },
  { name: 'fiqa', displayName: 'FiQA-2018', docs: 57_638, queries: 648, testSplit: 'test', domain: 'financial QA' },
  { name: 'trec-covid', displayName: 'TREC-COVID', docs: 171_332, queries: 50, testSplit: 'test', domain: 'bio-medical' },
  { name: 'webis-touche2020', displayName: 'Touché-2020', docs: 382_545, queries: 49, testSplit: 'test', domain: 'argument retrieval' },
  { name: 'quora', displayName: 'Quora', docs: 522_931, queries: 10_000, testSplit: 'test', domain: 'duplicate questions' },
  { name: 'nq', displayName: 'Natural Questions', docs: 2_681_468, queries: 3_452, testSplit: 'test', domain: 'Wikipedia QA' },
  { name: 'dbpedia-entity', displayName: 'DBPedia', docs: 4_635_922, queries: 400, testSplit: 'test', domain: 'entity retrieval' },
  { name: 'hotpotqa', displayName: 'HotpotQA', docs: 5_233_329, queries: 7_405, testSplit: 'test', domain: 'multi-hop QA' },
  { name: 'fever', displayName: 'FEVER', docs: 5_416_568, queries: 6_666, testSplit: 'test', domain: 'fact checking' },
  { name: 'climate-fever', displayName: 'Climate-FEVER', docs: 5_416_593, queries: 1_535, testSplit: 'test', domain: 'fact checking' },
  { name: 'msmarco', displayName: 'MS MARCO (dev)', docs: 8_841_823, queries: 6_980, testSplit: 'dev', domain: 'web passages' },
];

export function catalogEntry(name: string): CatalogEntry | undefined {
  return BEIR_CATALOG.find((e) => e.name === name);
}

/** Collection id of a catalog set, as the store and the URL use it. */
export function catalogId(name: string): string {
  return `beir:${name}`;
}

export type HubLayout = 'parquet' | 'jsonl.gz' | 'jsonl' | 'parquet-convert';
export const LAYOUT_ORDER: readonly HubLayout[] = ['parquet', 'jsonl.gz', 'jsonl', 'parquet-convert'];
export const CONVERT_REVISION = 'refs/convert/parquet';

function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `${base}/datasets/BeIR/${repo}/resolve/${revision}/${file}` (revision URL-encoded, like the hub's). */
export function datasetFileUrl(base: string, repo: string, file: string, revision = 'main'): string {
  return `${trimBase(base)}/datasets/${BEIR_ORG}/${encodeURIComponent(repo)}/resolve/${encodeURIComponent(revision)}/${encodePath(file)}`;
}

/** A file of the corpus/queries repository `BeIR/<name>`. */
export function corpusRepoUrl(base: string, name: string, file: string, revision = 'main'): string {
  return datasetFileUrl(base, name, file, revision);
}

/** The qrels TSV of one split: `${base}/datasets/BeIR/${name}-qrels/resolve/main/${split}.tsv`. */
export function qrelsUrl(base: string, name: string, split: string): string {
  return datasetFileUrl(base, `${name}-qrels`, `${split}.tsv`);
}

/** The hub's tree API for one folder of a repository (lists shards). */
export function treeApiUrl(base: string, repo: string, dir: string, revision = 'main'): string {
  return `${trimBase(base)}/api/datasets/${BEIR_ORG}/${encodeURIComponent(repo)}/tree/${encodeURIComponent(revision)}/${encodePath(dir)}`;
}

/** Where one role's file(s) live in a layout. */
export interface LayoutFiles {
  readonly revision: string;
  /** A single file, or the first guess of a sharded set. */
  readonly file: string;
  /**
   * Sharded sets: `main-shards` lists `dir` with the tree API when the single-shard guess is missing;
   * `numbered` probes `dir/0000.parquet`, `dir/0001.parquet`, ... until a 404.
   */
  readonly shards: { readonly kind: 'main-shards' | 'numbered'; readonly dir: string; readonly prefix: string } | null;
}

/** The files of `role` ('corpus' | 'queries') in a layout. */
export function layoutFiles(layout: HubLayout, role: 'corpus' | 'queries'): LayoutFiles {
  switch (layout) {
    case 'parquet':
      return {
        revision: 'main',
        file: `${role}/${role}-00000-of-00001.parquet`,
        shards: { kind: 'main-shards', dir: role, prefix: `${role}-` },
      };
    case 'jsonl.gz':
      return { revision: 'main', file: `${role}.jsonl.gz`, shards: null };
    case 'jsonl':
      return { revision: 'main', file: `${role}.jsonl`, shards: null };
    case 'parquet-convert':
      return {
        revision: CONVERT_REVISION,
        file: `${role}/${role}/0000.parquet`,
        shards: { kind: 'numbered', dir: `${role}/${role}`, prefix: '' },
      };
  }
}

/** Qrels layouts in order of preference. */
export function qrelsLayouts(split: string): readonly LayoutFiles[] {
  return [
    { revision: 'main', file: `${split}.tsv`, shards: null },
    {
      revision: CONVERT_REVISION,
      file: `default/${split}/0000.parquet`,
      shards: { kind: 'numbered', dir: `default/${split}`, prefix: '' },
    },
  ];
}

/** Path a numbered shard has (`dir/0003.parquet`). */
export function numberedShard(dir: string, i: number): string {
  return `${dir}/${String(i).padStart(4, '0')}.parquet`;
}
