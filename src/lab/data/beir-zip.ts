/** A collection as a zipped BEIR folder (the files: core/io/beir-folder.ts). */
import { zipSync } from 'fflate';
import { beirCorpusJsonl, beirQrelsTsv, beirQueriesJsonl, runFileName } from '../../core/io/beir-folder.ts';
import type { Corpus, Qrels, Queries } from '../../core/types.ts';

export interface BeirFolderInput {
  /** The folder's name inside the archive. */
  readonly folder: string;
  readonly corpus: Corpus;
  readonly queries: Queries;
  /** The queries file as the collection had it (kept as is), instead of writing one from `queries`. */
  readonly queriesJsonl?: Uint8Array;
  readonly qrels: Qrels | null;
  readonly split: string;
  /** Further files: path inside the folder → text or bytes. */
  readonly extra?: Readonly<Record<string, string | Uint8Array | undefined>>;
}

/** The folder as a zip archive (deflated). */
export function beirFolderZip(input: BeirFolderInput): Uint8Array {
  const enc = new TextEncoder();
  const bytes = (v: string | Uint8Array): Uint8Array => (typeof v === 'string' ? enc.encode(v) : v);
  const files: Record<string, Uint8Array> = {
    'corpus.jsonl': enc.encode(beirCorpusJsonl(input.corpus)),
    'queries.jsonl': input.queriesJsonl ?? enc.encode(beirQueriesJsonl(input.queries)),
    ...(input.qrels === null ? {} : { [`qrels/${runFileName(input.split)}.tsv`]: enc.encode(beirQrelsTsv(input.qrels)) }),
  };
  for (const [path, v] of Object.entries(input.extra ?? {})) if (v !== undefined) files[path] = bytes(v);
  return zipSync(Object.fromEntries(Object.entries(files).map(([path, b]) => [`${input.folder}/${path}`, b])));
}
