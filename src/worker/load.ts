/**
 * Turn a set of files (a dropped folder, a zip, a catalog download) into a LoadedCollection: classify
 * them (files.ts), parse each role with the core's parsers/builders (load-roles.ts), cross-check judgments
 * against the corpus and queries, and gather every warning. Runs inside the lab worker (no DOM) and in Node.
 *
 * Decisions:
 * - Errors are the core's InputError (file path, 1-based line, reason): a malformed line in the corpus,
 *   queries or judgments stops the load and names its file and line. A bad run does not: it is read by the
 *   reader *Import runs* uses, its error becomes an error diagnostic (file, line, reason) and the run is left
 *   out, so one bad run among good ones never costs the collection. Unrecognised or ignored files do not stop
 *   it either: they become diagnostics (see files.ts).
 * - Corpus: required unless runs are given (BEIR corpus, parquet, CSV, aliased JSONL, or .txt/.md documents).
 *   Without one, the passages are the ids the runs rank (no text): the analysis, measures, explorer (ids,
 *   grades, ranks) and exports need nothing more; BM25 and encoders need text. Several corpus
 *   files are accepted only as shards of one set (same folder and format, names differing only in
 *   digits, e.g. corpus-00000-of-00002.parquet); they are read in path order.
 * - Queries: required, except when at least one run is given: then the lab can still compare the runs
 *   (flips need only ids), so the queries are the ids of the judgments and runs (judgments first, then
 *   runs, first appearance), with empty text and a warning. BM25 and encoders need query text, so
 *   without queries the lab can only use the imported runs.
 * - Judgments: optional (without them the lab compares retrievers by overlap@k and rank agreement).
 *   Splits come from `qrels/<split>.tsv` (or the file stem); the chosen split is `options.split`, else
 *   test, dev, validation, train, else the first by name. Only the chosen split is parsed.
 * - Runs: every TREC run file; named by its run tag, or by its file name when two runs share a tag. Read as
 *   streams and kept as the CLI keeps them (core/io/run-top.ts `keepRule`: 1,000 a query; a run of more than 2M
 *   documents in all keeps 100), with the judged documents' positions below that, so support ranks
 *   stay exact and memory follows the kept part.
 */
import type { Corpus, Diagnostic, DocId, DocIndex, Qrels, Queries, QueryId, Run } from '../core/types.ts';
import { keepRule, readRunTop, type KeepOptions } from '../core/io/run-top.ts';
import { readKeptRun } from '../core/io/kept-run.ts';
import { InputError, isInputError, quote } from '../core/io/errors.ts';
import { isGzip, type TextSource } from '../core/io/lines.ts';
import type { ParseResult } from '../core/io/trec.ts';
import { checkQrels } from '../core/io/validate.ts';
import { parseGoldFromQueries } from '../core/io/answers.ts';
import { baseName, fileSize, fileSource, fileText, normalizePath, wholeFile, withoutExtension } from '../lab/data/bytes.ts';
import { parseTextDocuments } from '../lab/data/custom.ts';
import { parseProvenance, type SyntheticProvenance } from '../core/judging/synthetic.ts';
import { classifyFiles, PASSAGE_TEXT_FILE, type ClassifiedFile } from '../lab/data/files.ts';
import type { CollectionFile, LoadedCollection, RunSource } from '../lab/data/types.ts';
import { parseCorpusGroup, parseQrelsGroup, parseQueriesGroup } from './load-roles.ts';
import { ReadingJob, type ReadingProgress } from './reading.ts';

export { PASSAGE_TEXT_FILE };

export interface LoadOptions {
  /** Display name; default: the folder or archive the files share, else "collection". */
  readonly name?: string;
  /** Qrels split to use; default test, dev, validation, train, else the first. */
  readonly split?: string;
  /** Cancel: reading stops at the next slice with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Bytes read of all the files, and the file being read (reading.ts). */
  readonly onProgress?: (p: ReadingProgress) => void;
}

const SPLIT_ORDER = ['test', 'dev', 'validation', 'train'];

export const ACCEPTED_CORPUS =
  'corpus.jsonl or corpus.jsonl.gz (BEIR), corpus/*.parquet, a CSV or JSONL with an id column (_id, id, docid, doc_id, pid) ' +
  'and a text column (text, contents, content, body, passage), or a folder of .txt/.md files';
export const ACCEPTED_QUERIES =
  'queries.jsonl or queries.jsonl.gz (BEIR), queries/*.parquet, queries.tsv ("qid<TAB>text"), or a CSV/JSONL named queries.* ' +
  'with id and text columns (or give a TREC run: then queries are optional)';

/** Name the files share: the first folder (without .zip) when all paths start with it. */
export function guessName(files: readonly CollectionFile[]): string {
  const firsts = new Set(files.map((f) => normalizePath(f.path).split('/')[0] ?? ''));
  if (firsts.size === 1 && files.length > 0) {
    const only = [...firsts][0]!;
    const isFolder = files.some((f) => normalizePath(f.path).includes('/'));
    if (isFolder || /\.zip$/i.test(only)) return only.replace(/\.zip$/i, '') || 'collection';
  }
  return 'collection';
}

/** Splits in preference order: test, dev, validation, train, then the rest by name. */
export function orderSplits(splits: Iterable<string>): string[] {
  const rank = (s: string): number => {
    const i = SPLIT_ORDER.indexOf(s.toLowerCase());
    return i < 0 ? SPLIT_ORDER.length : i;
  };
  return [...new Set(splits)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function queriesFromIds(qrels: Qrels | null, runs: readonly Run[]): Queries {
  const ids: QueryId[] = [];
  const indexOf = new Map<QueryId, number>();
  const add = (q: QueryId): void => {
    if (indexOf.has(q)) return;
    indexOf.set(q, ids.length);
    ids.push(q);
  };
  if (qrels) for (const q of qrels.byQuery.keys()) add(q);
  for (const r of runs) for (const q of r.byQuery.keys()) add(q);
  return { ids, texts: ids.map(() => ''), indexOf };
}

/** `corpus` with the titles and texts `kept` has for its ids (the others keep theirs). */
export function withText(corpus: Corpus, kept: Corpus): Corpus {
  const titles = [...corpus.titles];
  const texts = [...corpus.texts];
  kept.ids.forEach((id, k) => {
    const i = corpus.indexOf.get(id);
    if (i === undefined) return;
    titles[i] = kept.titles[k] ?? '';
    texts[i] = kept.texts[k] ?? '';
  });
  return { ...corpus, titles, texts };
}

/**
 * How the lab keeps a run read from `file` (a collection's, or one imported later): core/io/run-top.ts
 * `keepRule` with no depth asked (the lab's depths reach the kept part), the judged documents' positions below
 * it, the file's size to foresee a large run.
 */
export function runKeepOptions(qrels: Qrels | null, file: CollectionFile): KeepOptions {
  return {
    ...keepRule(0),
    ...(isGzip(file.bytes) ? {} : { sizeHint: fileSize(file) }),
    ...(qrels === null ? {} : { judged: (q: QueryId) => qrels.byQuery.get(q) }),
  };
}

/** A collection's passages when it has no corpus: every id the runs rank (kept part), no text, first appearance. */
function corpusFromRuns(runs: readonly Run[]): Corpus {
  const ids: DocId[] = [];
  const indexOf = new Map<DocId, DocIndex>();
  for (const run of runs)
    for (const list of run.byQuery.values())
      for (const d of list.docs)
        if (!indexOf.has(d)) {
          indexOf.set(d, ids.length as DocIndex);
          ids.push(d);
        }
  const empty = ids.map(() => '');
  return { ids, titles: empty, texts: empty, indexOf };
}

function runName(run: Run, file: string, taken: Set<string>): string {
  let name = run.name;
  if (taken.has(name)) name = withoutExtension(baseName(file));
  for (let i = 2; taken.has(name); i++) name = `${withoutExtension(baseName(file))}-${i}`;
  taken.add(name);
  return name;
}

interface ReadRun {
  readonly run: Run;
  readonly source: RunSource;
  readonly diagnostics: readonly Diagnostic[];
}

/** One run file of a collection, read as *Import runs* reads one (the same reader, the same errors), and named. */
async function readRun(
  c: ClassifiedFile,
  job: ReadingJob,
  judgments: Qrels | null,
  split: string | null,
  taken: Set<string>,
): Promise<ReadRun> {
  const source = (): TextSource => job.source(c.file.path, fileSource(c.file));
  const bytes = fileSize(c.file);
  if (c.format === 'kept-run') {
    const kept = await readKeptRun(source(), c.file.path);
    const name = runName(kept.value, kept.info.source.file, taken);
    const diagnostics: Diagnostic[] = [...kept.warnings];
    if (kept.value.cut && kept.info.judged !== split) {
      const judgedBy = (s: string | null): string => (s === null ? 'no judgments' : `split ${quote(s)}`);
      diagnostics.push({
        severity: 'warning',
        file: c.file.path,
        message:
          `kept from ${kept.info.source.file} with the judged documents of ${judgedBy(kept.info.judged)}, not of ` +
          `${judgedBy(split)}: documents these judge below rank ${kept.value.depth} count as not retrieved (open the run ` +
          'file again to have them)',
      });
    }
    return {
      run: { ...kept.value, name },
      source: { run: name, file: c.file.path, source: kept.info.source.file, bytes, kept: true, warnings: kept.warnings },
      diagnostics,
    };
  }
  const parsed = await readRunTop(source, c.file.path, runKeepOptions(judgments, c.file));
  const name = runName(parsed.value, c.file.path, taken);
  return {
    run: { ...parsed.value, name },
    source: { run: name, file: c.file.path, source: c.file.path, bytes, kept: false, warnings: parsed.warnings },
    diagnostics: parsed.warnings,
  };
}

/** Load a collection from files (see the file comment for what is required and what is chosen). */
export async function loadCollection(files: readonly CollectionFile[], options: LoadOptions = {}): Promise<LoadedCollection> {
  const name = options.name ?? guessName(files);
  const job = new ReadingJob(files, options.signal, options.onProgress);
  const { files: sorted, diagnostics: found } = await classifyFiles(files);
  job.check();
  // Runs stream from their Blob when they are large; every other file is parsed from its whole bytes.
  const classified = await Promise.all(
    sorted.map(async (c) => (c.role === 'run' || c.file.blob === undefined ? c : { ...c, file: await wholeFile(c.file) })),
  );
  const diagnostics: Diagnostic[] = [...found];
  const of = (role: ClassifiedFile['role']): ClassifiedFile[] => classified.filter((c) => c.role === role);
  const listing =
    classified
      .map((c) => c.file.path)
      .slice(0, 12)
      .join(', ') || 'no files';

  const bySplit = new Map<string, ClassifiedFile[]>();
  for (const c of of('qrels')) {
    const s = c.split ?? 'test';
    bySplit.set(s, [...(bySplit.get(s) ?? []), c]);
  }
  const splits = orderSplits(bySplit.keys());
  let split: string | null = null;
  let qrels: (ParseResult<Qrels> & { file: string }) | null = null;
  if (options.split !== undefined && splits.length > 0 && !bySplit.has(options.split)) {
    throw new InputError(
      name,
      undefined,
      `no judgments for split ${quote(options.split)}; found splits ${splits.map((s) => quote(s)).join(', ')}`,
    );
  }
  if (splits.length > 0) {
    split = options.split ?? splits[0]!;
    qrels = await parseQrelsGroup(split, bySplit.get(split)!, job);
    diagnostics.push(...qrels.warnings);
  } else if (options.split !== undefined) {
    diagnostics.push({ severity: 'warning', file: name, message: `split ${quote(options.split)} asked for, but no judgments were given` });
  }

  // Runs after the judgments (their judged documents below the kept depth are recorded); they decide whether
  // the corpus and the queries are optional.
  const runs: Run[] = [];
  const taken = new Set<string>();
  const judgments = qrels?.value ?? null;
  const runSources: RunSource[] = [];
  // One bad run is reported (file, line, what was expected) and left out; the rest of the collection opens.
  const runErrors: InputError[] = [];
  for (const c of of('run')) {
    job.check();
    try {
      const read = await readRun(c, job, judgments, split, taken);
      runs.push(read.run);
      runSources.push(read.source);
      diagnostics.push(...read.diagnostics);
    } catch (e) {
      if (!isInputError(e)) throw e;
      runErrors.push(e);
      diagnostics.push({
        severity: 'error',
        file: e.file,
        ...(e.line === undefined ? {} : { line: e.line }),
        message: `run left out: ${e.reason}`,
      });
    }
  }

  let corpus: ParseResult<Corpus>;
  let passagesFromRuns = false;
  const given = await readGivenCorpus(of, name, job);
  if (given !== null) corpus = given;
  else if (runs.length > 0) {
    corpus = { value: corpusFromRuns(runs), warnings: [] };
    passagesFromRuns = true;
    // Text kept earlier from a corpus file (see PASSAGE_TEXT_FILE): the passages get it back by id.
    for (const c of of('passage-text')) corpus = { value: withText(corpus.value, (await parseCorpusGroup([c], job)).value), warnings: [] };
  } else if (runErrors.length > 0)
    throw runErrors[0]!; // only runs were given, and none could be read
  else throw new InputError(name, undefined, `no corpus found among ${listing}; expected ${ACCEPTED_CORPUS}, or TREC runs`);
  diagnostics.push(...corpus.warnings);

  let queries: Queries;
  let queriesSynthesized = false;
  const gold = new Map<string, string[]>();
  if (of('queries').length > 0) {
    const q = await parseQueriesGroup(of('queries'), job);
    queries = q.value;
    diagnostics.push(...q.warnings);
    // Gold answers riding in BEIR queries' metadata (HotpotQA: metadata.answer), for answer-level flips.
    // Queries without any are normal (most collections): no warning here; the answers panel says what it has.
    for (const c of of('queries')) {
      if (c.format !== 'jsonl') continue;
      for (const [id, answers] of (await parseGoldFromQueries(c.file.bytes, c.file.path)).value) gold.set(id, answers);
    }
  } else if (runs.length > 0) {
    queries = queriesFromIds(qrels?.value ?? null, runs);
    queriesSynthesized = true;
    diagnostics.push({
      severity: 'warning',
      file: name,
      message:
        `no queries file: using the ${queries.ids.length} query ids of the judgments and runs without text (imported ` +
        `runs can be compared; BM25 and encoders need ${ACCEPTED_QUERIES})`,
    });
  } else {
    // The documents alone: the lab offers to make queries from them (core/judging/synthetic.ts).
    throw Object.assign(new InputError(name, undefined, `no queries found among ${listing}; expected ${ACCEPTED_QUERIES}`), {
      corpusOnly: true,
    });
  }
  let synthetic: SyntheticProvenance | null = null;
  for (const c of of('synthetic')) synthetic = parseProvenance(await fileText(c.file.bytes, c.file.path), c.file.path);

  if (qrels) {
    // Without a corpus every judged passage the runs never rank is unknown to the collection: no warning for that.
    const against = passagesFromRuns ? {} : { corpus: corpus.value };
    diagnostics.push(...checkQrels(qrels.value, qrels.file, queriesSynthesized ? against : { ...against, queries }));
  }
  return {
    name,
    corpus: corpus.value,
    queries,
    qrels: qrels?.value ?? null,
    split,
    splits,
    runs,
    runSources,
    diagnostics,
    gold,
    passagesFromRuns,
    synthetic,
  };
}

/** The corpus the files give (a corpus file, or .txt/.md documents); null when they give none. */
async function readGivenCorpus(
  of: (role: ClassifiedFile['role']) => ClassifiedFile[],
  name: string,
  job: ReadingJob,
): Promise<ParseResult<Corpus> | null> {
  if (of('corpus').length > 0) return parseCorpusGroup(of('corpus'), job);
  if (of('document').length > 0)
    return parseTextDocuments(
      of('document').map((c) => c.file),
      `${name} (documents)`,
    );
  return null;
}

/**
 * The corpus alone of a set of files (to make queries from it), and whether it came from text documents (their
 * folders are sources) or a corpus file; an InputError when they hold none.
 */
export async function loadCorpus(
  files: readonly CollectionFile[],
  options: LoadOptions = {},
): Promise<{ corpus: Corpus; documents: boolean }> {
  const name = options.name ?? guessName(files);
  const job = new ReadingJob(files, options.signal, options.onProgress);
  const { files: sorted } = await classifyFiles(files);
  const whole = await Promise.all(sorted.map(async (c) => (c.file.blob === undefined ? c : { ...c, file: await wholeFile(c.file) })));
  const of = (role: ClassifiedFile['role']) => whole.filter((c) => c.role === role);
  const corpus = await readGivenCorpus(of, name, job);
  if (corpus === null) throw new InputError(name, undefined, `no corpus found; expected ${ACCEPTED_CORPUS}`);
  return { corpus: corpus.value, documents: of('corpus').length === 0 };
}
