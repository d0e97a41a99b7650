/**
 * Test/dev tooling (Node): write a local BEIR folder (corpus.jsonl[.gz], queries.jsonl[.gz],
 * qrels/<split>.tsv) in the Hugging Face hub's layout, so `startHubServer({ datasetsRoot: outDir })`
 * serves it exactly where src/lab/data/fetch.ts looks (see src/lab/data/catalog.ts for the layouts):
 *
 *   jsonl            datasets/BeIR/<name>/corpus.jsonl, queries.jsonl
 *   jsonl.gz         datasets/BeIR/<name>/corpus.jsonl.gz, queries.jsonl.gz
 *   parquet          datasets/BeIR/<name>/corpus/corpus-0000i-of-0000n.parquet, queries/queries-00000-of-00001.parquet
 *   parquet-convert  datasets/BeIR/<name>/corpus/corpus/000i.parquet, queries/queries/0000.parquet
 *   (all)            datasets/BeIR/<name>-qrels/<split>.tsv for every qrels/<split>.tsv of the source
 *
 * Parquet is written with hyparquet-writer (SNAPPY, string columns `_id`, `title`, `text`).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { BEIR_ORG, type HubLayout } from '../../src/lab/data/catalog.ts';

export interface BeirMirrorOptions {
  /** Local BEIR folder (corpus.jsonl or .gz, queries.jsonl or .gz, qrels/*.tsv). */
  readonly sourceDir: string;
  readonly name: string;
  readonly layout: HubLayout;
  /** Parquet layouts: split the corpus into this many shards (default 1). */
  readonly corpusShards?: number;
}

export interface BeirMirror {
  /** Files written, relative to outDir. */
  readonly files: string[];
}

async function readMaybeGz(dir: string, name: string): Promise<Buffer> {
  if (existsSync(join(dir, name))) return readFile(join(dir, name));
  if (existsSync(join(dir, `${name}.gz`))) return gunzipSync(await readFile(join(dir, `${name}.gz`)));
  throw new Error(`${join(dir, name)}: expected ${name} or ${name}.gz in the BEIR folder`);
}

function records(jsonl: Buffer, keys: readonly string[]): Record<string, string[]> {
  const cols: Record<string, string[]> = Object.fromEntries(keys.map((k) => [k, [] as string[]]));
  for (const line of jsonl.toString('utf8').split('\n')) {
    if (line.trim().length === 0) continue;
    const obj = JSON.parse(line) as Record<string, unknown>;
    for (const k of keys) cols[k]!.push(obj[k] === undefined || obj[k] === null ? '' : String(obj[k]));
  }
  return cols;
}

function parquetOf(cols: Record<string, string[]>, start: number, end: number): Uint8Array {
  const columnData = Object.entries(cols).map(([name, data]) => ({ name, data: data.slice(start, end), type: 'STRING' as const }));
  return new Uint8Array(parquetWriteBuffer({ columnData }));
}

export async function writeBeirMirror(outDir: string, options: BeirMirrorOptions): Promise<BeirMirror> {
  const { sourceDir, name, layout } = options;
  const repo = join('datasets', BEIR_ORG, name);
  const written: string[] = [];
  const put = async (rel: string, bytes: Uint8Array): Promise<void> => {
    const full = join(outDir, rel);
    await mkdir(join(full, '..'), { recursive: true });
    await writeFile(full, bytes);
    written.push(rel);
  };
  const corpus = await readMaybeGz(sourceDir, 'corpus.jsonl');
  const queries = await readMaybeGz(sourceDir, 'queries.jsonl');
  if (layout === 'jsonl' || layout === 'jsonl.gz') {
    const enc = (b: Buffer): Uint8Array => (layout === 'jsonl.gz' ? gzipSync(b) : b);
    const ext = layout === 'jsonl.gz' ? '.jsonl.gz' : '.jsonl';
    await put(join(repo, `corpus${ext}`), enc(corpus));
    await put(join(repo, `queries${ext}`), enc(queries));
  } else {
    const c = records(corpus, ['_id', 'title', 'text']);
    const q = records(queries, ['_id', 'text']);
    const n = c._id!.length;
    const shards = Math.max(1, Math.min(options.corpusShards ?? 1, n));
    const pad5 = (i: number): string => String(i).padStart(5, '0');
    for (let i = 0; i < shards; i++) {
      const bytes = parquetOf(c, Math.floor((i * n) / shards), Math.floor(((i + 1) * n) / shards));
      const rel =
        layout === 'parquet'
          ? `corpus/corpus-${pad5(i)}-of-${pad5(shards)}.parquet`
          : `corpus/corpus/${String(i).padStart(4, '0')}.parquet`;
      await put(join(repo, rel), bytes);
    }
    const qrel = layout === 'parquet' ? 'queries/queries-00000-of-00001.parquet' : 'queries/queries/0000.parquet';
    await put(join(repo, qrel), parquetOf(q, 0, q._id!.length));
  }
  const qrelsDir = join(sourceDir, 'qrels');
  for (const f of existsSync(qrelsDir) ? (await readdir(qrelsDir)).sort() : []) {
    if (!/\.tsv(\.gz)?$/.test(f)) continue;
    const bytes = await readFile(join(qrelsDir, f));
    await put(join('datasets', BEIR_ORG, `${name}-qrels`, f.replace(/\.gz$/, '')), f.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  }
  return { files: written };
}
