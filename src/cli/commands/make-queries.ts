/**
 * `fliplab make-queries <documents> --out <folder> [--reader <preset|repo|folder>] [--n 50] [--seed 1]
 * [--prompt file]`: the lab's *Make queries* from the CLI (for a GPU machine, or for CI): the same stratified sample
 * of passages, the same writer prompt, the same greedy reader on onnxruntime-node, so the same documents give the
 * lab's queries. `<documents>` is a folder of .txt/.md files (read by the lab's rule: core/io/documents.ts), a BEIR
 * folder, or a corpus.jsonl. Writes a BEIR folder: corpus.jsonl, queries.jsonl (origin and source in metadata),
 * qrels/test.tsv (each source passage at grade 2) and synthetic-queries.json; `<out>.written-queries.jsonl`, beside
 * the folder (so the folder stays a BEIR folder any loader opens), is the cache: a rerun, or one after Ctrl-C, writes
 * only what is missing. A reply with no query in it is left out and counted.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { templateName } from '../../core/answers/prompt.ts';
import { countOf } from '../../core/count.ts';
import { beirCorpusJsonl } from '../../core/io/beir-folder.ts';
import { parseCorpus } from '../../core/io/beir.ts';
import { textDocuments } from '../../core/io/documents.ts';
import { InputError } from '../../core/io/errors.ts';
import {
  checkWriterPrompt,
  cleanQuery,
  DEFAULT_QUERY_COUNT,
  editedWriter,
  QUERY_WRITER,
  samplePassages,
  sourceOf,
  SYNTHETIC_QUERIES_FILE,
  writerName,
  syntheticFiles,
  writerTasks,
  type MadeQuery,
} from '../../core/judging/synthetic.ts';
import type { Corpus } from '../../core/types.ts';
import { answerWithCache } from '../../encoders/answer-job.ts';
import type { LoadedReader } from '../../encoders/reader.ts';
import { READER_DTYPES, READER_PRESETS } from '../../encoders/reader-presets.ts';
import { AnswersFile } from '../../node/answers-file.ts';
import { fileSource } from '../../node/files.ts';
import { parseIntFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { readerLoader, resolveReader } from '../reader-options.ts';

interface MakeQueriesOpts {
  out: string;
  reader: string;
  n: number;
  seed: number;
  prompt?: string;
  device: string;
  dtype?: string;
  modelDir?: string;
  host?: string;
  offline?: boolean;
}

const DOCUMENT = /\.(txt|text|md|markdown)$/i;
/** The cache beside the output folder: `my-collection` → `my-collection.written-queries.jsonl`. */
const cacheFileOf = (out: string): string => `${resolve(out)}.written-queries.jsonl`;

/** Document files under `dir`, as paths that start with the folder's own name (as a folder picked in the lab). */
function documentFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === '__MACOSX') continue;
      const path = join(at, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && DOCUMENT.test(e.name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** The corpus of `<documents>`: a corpus.jsonl, a BEIR folder's, or a folder's text files (`documents`: their folders are sources). */
async function readDocuments(path: string, io: Io): Promise<{ corpus: Corpus; documents: boolean }> {
  const expected = 'a folder of .txt/.md files, a BEIR folder (corpus.jsonl), or a corpus.jsonl';
  if (!existsSync(path)) throw new InputError(path, undefined, `not found; expected ${expected}`);
  const corpusFile = statSync(path).isDirectory() ? join(path, 'corpus.jsonl') : path;
  if (existsSync(corpusFile) && statSync(corpusFile).isFile()) {
    const parsed = await parseCorpus(fileSource(corpusFile), corpusFile);
    reportDiagnostics(io, parsed.warnings);
    return { corpus: parsed.value, documents: false };
  }
  const files = documentFiles(path);
  if (files.length === 0) throw new InputError(path, undefined, `holds no documents; expected ${expected}`);
  const top = basename(path);
  const texts = await Promise.all(
    files.map(async (f) => ({ path: `${top}/${relative(path, f).split('\\').join('/')}`, text: stripBom(await readFile(f, 'utf8')) })),
  );
  const parsed = textDocuments(texts, `${top} (documents)`);
  reportDiagnostics(io, parsed.warnings);
  return { corpus: parsed.value, documents: true };
}

const stripBom = (s: string): string => (s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);

export function registerMakeQueries(program: Command, io: Io): void {
  program
    .command('make-queries')
    .description(
      'make a test collection from documents with no queries: a reader writes one query for each of a stratified sample of ' +
        'passages (each passage its query\'s relevant judgment, grade 2); writes a BEIR folder, as the lab\'s "Make queries"',
    )
    .argument('<documents>', 'a folder of .txt/.md files, a BEIR folder, or a corpus.jsonl')
    .requiredOption(
      '--out <folder>',
      'the BEIR folder to write (<folder>.written-queries.jsonl beside it is the cache: a rerun writes only what is missing)',
    )
    .option('--reader <id>', `a preset (${Object.keys(READER_PRESETS).join(', ')}), a hub repo id, or a model folder`, 'qwen2.5-0.5b')
    .option('--n <count>', 'passages to sample', parseIntFlag('--n', 1), DEFAULT_QUERY_COUNT)
    .option('--seed <n>', 'seed of the sample (the lab uses 1)', parseIntFlag('--seed', 0), 1)
    .option('--prompt <file>', "the writer's user turn as text, holding {passage} once (default: the lab's published prompt)")
    .option('--device <d>', 'cpu or cuda', 'cpu')
    .option('--dtype <t>', `weights: ${READER_DTYPES.join(', ')} (default: the preset's, fp32 otherwise)`)
    .option('--model-dir <dir>', 'local models root (transformers.js layout); tried before the host')
    .option('--host <url>', 'hub-compatible model host or mirror (default https://huggingface.co/)')
    .option('--offline', 'never contact a host; only --model-dir or a folder')
    .action(async (documents: string, opts: MakeQueriesOpts) => {
      if (opts.device !== 'cpu' && opts.device !== 'cuda') throw new UsageError(`--device expects cpu or cuda, got "${opts.device}"`);
      let writer = QUERY_WRITER;
      if (opts.prompt !== undefined) {
        const user = await readFile(opts.prompt, 'utf8');
        const problem = checkWriterPrompt(user);
        if (problem !== null) throw new InputError(opts.prompt, undefined, problem);
        writer = editedWriter(QUERY_WRITER, user);
      }
      const { config, modelDir, folder } = resolveReader(opts);
      const { corpus, documents: fromFolder } = await readDocuments(documents, io);
      const sample = samplePassages(corpus.ids, corpus.texts, opts.n, opts.seed, fromFolder ? sourceOf : () => '');
      const passages = sample.indices.map((i) => ({ id: corpus.ids[i]!, title: corpus.titles[i] ?? '', text: corpus.texts[i] ?? '' }));
      if (passages.length === 0)
        throw new InputError(
          documents,
          undefined,
          `has no passage of 5 words or more to write a query for (${countOf(corpus.ids.length, 'passage')})`,
        );
      io.stderr(
        `make-queries: ${passages.length} of ${countOf(corpus.ids.length, 'passage')} drawn (seed ${opts.seed}, ` +
          `${countOf(sample.strata.length, 'stratum', 'strata')} by folder and length; ${sample.tooShort} under 5 words left out)\n`,
      );

      await mkdir(join(opts.out, 'qrels'), { recursive: true });
      const cachePath = cacheFileOf(opts.out);
      const cache = await AnswersFile.open(cachePath, 'make-queries');
      const identity = { model: folder ?? config.model, revision: config.revision, dtype: config.dtype };
      let reader: LoadedReader | null = null;
      const loadReader = readerLoader(
        { config, modelDir, folder, device: opts.device, host: opts.host, offline: opts.offline === true },
        io,
      );
      const replies = new Map<string, string>();
      try {
        await answerWithCache({ load: async () => (reader = await loadReader()) }, cache, writerTasks(writer, passages), {
          identity,
          template: writer,
          k: 1,
          onLookup: async ({ total, hits, toAnswer }) => {
            const { moved, aside } = await cache.keep(hits.map((h) => ({ key: h.record.key, queryId: h.task.queryId })));
            if (moved > 0) io.stderr(`warning: ${moved} queries in ${cachePath} were written with other settings: moved to ${aside}\n`);
            io.stderr(
              `make-queries: ${total} passages, ${hits.length} written before, ${toAnswer} to write with ` +
                `${config.model} (${config.dtype})\n`,
            );
          },
          onAnswer: (passageId, reply) => void replies.set(passageId, reply),
          onRefused: (passageId, reason) => io.stderr(`warning: no query for ${passageId}: ${reason}\n`),
        });
      } finally {
        await (reader as LoadedReader | null)?.dispose();
      }

      const made: MadeQuery[] = [];
      let empty = 0;
      for (const p of passages) {
        const query = cleanQuery(replies.get(p.id) ?? '');
        if (query === '') empty++;
        else made.push({ text: query, source: p.id, origin: 'reader', writer: writerName(identity, writer) });
      }
      if (made.length === 0) throw new UsageError(`${config.model} wrote no query for any of the ${passages.length} passages`);
      const files = syntheticFiles(made, {
        reader: identity,
        prompt: { name: templateName(writer), text: writer.user },
        sample: { asked: opts.n, seed: opts.seed, strata: sample.strata, tooShort: sample.tooShort },
        deleted: empty,
      });
      await writeFile(join(opts.out, 'corpus.jsonl'), beirCorpusJsonl(corpus));
      await writeFile(join(opts.out, 'queries.jsonl'), files.queries);
      await writeFile(join(opts.out, 'qrels', 'test.tsv'), files.qrels!);
      await writeFile(join(opts.out, SYNTHETIC_QUERIES_FILE), files.provenance);
      if (empty > 0) io.stderr(`warning: ${countOf(empty, 'reply', 'replies')} held no query: left out (counted as deleted)\n`);
      io.stderr(
        `make-queries: wrote ${countOf(made.length, 'query', 'queries')} to ${opts.out} (corpus.jsonl, queries.jsonl, qrels/test.tsv, ` +
          `${SYNTHETIC_QUERIES_FILE})\n`,
      );
    });
}
