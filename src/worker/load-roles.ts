/**
 * The per-role parsers of `loadCollection` (load.ts): the corpus, the queries and the judgments of one split,
 * each read from its files with the core's builders. Several files of one role are accepted only as shards of
 * one set (same folder and format, names differing only in digits), read in path order; an error a builder
 * raises names the shard it came from.
 */
import type { Corpus, Qrels, Queries } from '../core/types.ts';
import { parseTopics } from '../core/io/topics.ts';
import { CorpusBuilder, QueriesBuilder } from '../core/io/beir.ts';
import { InputError, isInputError } from '../core/io/errors.ts';
import { readLines } from '../core/io/lines.ts';
import { QrelsBuilder, type ParseResult } from '../core/io/trec.ts';
import { feedAliasedJsonl, feedCsv, feedQueriesTsv } from '../lab/data/custom.ts';
import type { ClassifiedFile } from '../lab/data/files.ts';
import { feedCorpusParquet, feedQrelsParquet, feedQueriesParquet } from '../lab/data/parquet.ts';
import type { ReadingJob } from './reading.ts';

function shardKey(c: ClassifiedFile): string {
  const p = c.file.path;
  const slash = p.lastIndexOf('/');
  return `${c.format}|${p.slice(0, slash + 1)}${p.slice(slash + 1).replace(/\d+/g, '#')}`;
}

/** The files of one role, in path order, if they are shards of one set; otherwise an InputError. */
function shards(what: string, list: readonly ClassifiedFile[]): ClassifiedFile[] {
  const sorted = [...list].sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const key = sorted[0] === undefined ? '' : shardKey(sorted[0]);
  const other = sorted.find((c) => shardKey(c) !== key);
  if (other) {
    throw new InputError(
      other.file.path,
      undefined,
      `expected one ${what}, but ${sorted[0]!.file.path} is one too (shards must share a folder and format, names differing ` +
        `only in digits); remove one of them`,
    );
  }
  return sorted;
}

/** Run `fn`, re-labelling errors the builder raised under `builderFile` with the shard's own path. */
async function asShard(builderFile: string, file: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (isInputError(e) && e.file === builderFile && file !== builderFile) throw new InputError(file, e.line, e.reason);
    throw e;
  }
}

async function feedRecords(
  builder: CorpusBuilder | QueriesBuilder,
  c: ClassifiedFile,
  role: 'corpus' | 'queries',
  job: ReadingJob,
): Promise<void> {
  const { path, bytes } = c.file;
  job.check();
  switch (c.format) {
    case 'jsonl':
      await readLines(job.source(path, bytes), (l, n) => builder.line(l, n), path);
      return;
    case 'jsonl-aliased':
      return feedAliasedJsonl(builder, bytes, path, role);
    case 'csv':
      return feedCsv(builder, bytes, path, role);
    case 'parquet':
      return role === 'corpus'
        ? feedCorpusParquet(builder as CorpusBuilder, bytes, path)
        : feedQueriesParquet(builder as QueriesBuilder, bytes, path);
    case 'tsv':
      if (role === 'queries') return feedQueriesTsv(builder as QueriesBuilder, bytes, path);
  }
  throw new InputError(path, undefined, `cannot read a ${c.format ?? 'unknown'} file as ${role}`);
}

export async function parseCorpusGroup(list: readonly ClassifiedFile[], job: ReadingJob): Promise<ParseResult<Corpus>> {
  const group = shards('corpus', list);
  const label = group[0]!.file.path;
  const b = new CorpusBuilder(label);
  for (const c of group) await asShard(label, c.file.path, () => feedRecords(b, c, 'corpus', job));
  return b.finish();
}

export async function parseQueriesGroup(list: readonly ClassifiedFile[], job: ReadingJob): Promise<ParseResult<Queries>> {
  // A TREC topic file is one file of its own (core/io/topics.ts): the query text is the title (SGML) or query (XML).
  const topics = list.find((c) => c.format === 'topics');
  if (topics !== undefined) {
    if (list.length > 1)
      throw new InputError(
        topics.file.path,
        undefined,
        `expected one queries or topics file, got ${list.map((c) => c.file.path).join(', ')}`,
      );
    return parseTopics(topics.file.bytes, topics.file.path);
  }
  const group = shards('queries file', list);
  const label = group[0]!.file.path;
  const b = new QueriesBuilder(label);
  for (const c of group) await asShard(label, c.file.path, () => feedRecords(b, c, 'queries', job));
  return b.finish();
}

export async function parseQrelsGroup(
  split: string,
  list: readonly ClassifiedFile[],
  job: ReadingJob,
): Promise<ParseResult<Qrels> & { file: string }> {
  const group = shards(`qrels file for split "${split}"`, list);
  const label = group[0]!.file.path;
  const b = new QrelsBuilder(label);
  for (const c of group) {
    job.check();
    await asShard(label, c.file.path, async () => {
      if (c.format === 'parquet') await feedQrelsParquet(b, c.file.bytes, c.file.path);
      else await readLines(job.source(c.file.path, c.file.bytes), (l, n) => b.line(l, n), c.file.path);
    });
  }
  return { ...b.finish(), file: group.length === 1 ? label : `${label} (+${group.length - 1} shard(s))` };
}
