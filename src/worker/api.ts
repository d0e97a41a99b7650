/**
 * The lab worker's API: the engine (src/worker/engine.ts) as comlink calls. Building it is separate from
 * exposing it, so workers/lab.worker.ts exposes one on its global scope and tests expose one on a
 * MessageChannel port (the page's `Lab` then drives the real engine in-process). Answers are small plain
 * objects; typed arrays are transferred, not copied.
 *
 * The calls are flat (the page calls `lab.runBm25(…)`), listed here by the engine's part they reach. Each part
 * declares the calls the page makes on it as they are (`Part.calls`: signatures and documentation in the part);
 * this file adds what the parts do not do themselves: reading files, jobs that can be cancelled, buffers
 * transferred instead of copied.
 *
 *   network      allowOrigins
 *   collection   openFiles cancelOpen summary evaluatedQueries passageTexts passage queryTexts keptRunFiles
 *                keepPassageText cancelPassageText sampleForQueries parseQueriesFile beirFolder
 *   retrievers   runBm25 runLexical addRunFile beginVectorRun addVectors removeRun runNames runText importPack
 *                exportPack storedRecipe
 *   judgments    setJudgments setModelLayer useModelLayer judgingPlan holes grades parseJudgmentsFile
 *                parseModelQrelsFile
 *   analysis     analyse significance differences track trecEval depthWarnings compare
 *   fusion       addFused prepareFrontier
 *   explorer     detail explain explainBm25 rm3Expansion
 *   answers      goldAnswers readerTasks parseGoldFile parsePredictionsFile
 */
import { transfer } from 'comlink';
import { readRunTop } from '../core/io/run-top.ts';
import { baseName, extensionOf, fileSource, normalizePath, wholeFile } from '../lab/data/bytes.ts';
import { runFileName, runFileNames } from '../core/io/beir-folder.ts';
import { beirFolderZip } from '../lab/data/beir-zip.ts';
import { parseGoldAny, parsePredictions } from '../core/io/answers.ts';
import { parseJudgments, type Judgment } from '../core/io/judgments.ts';
import { parseQrels } from '../core/io/trec.ts';
import { judgeAudit } from '../core/judging/audit.ts';
import { gradeScale, knownLabels } from '../core/judging/layer.ts';
import type { PreparedFlips } from '../core/flips/analyze.ts';
import type { SupportLabel } from '../core/flips/cohort.ts';
import type { PreparedFrontier } from '../core/flips/fusion.ts';
import type { MetricsRow } from '../report/metrics.ts';
import { ACCEPTED_QUERIES, loadCollection, loadCorpus, PASSAGE_TEXT_FILE } from './load.ts';
import { classifyFiles, type FileFormat } from '../lab/data/files.ts';
import { parseQueriesGroup } from './load-roles.ts';
import { ReadingJob } from './reading.ts';
import { InputError } from '../core/io/errors.ts';
import { truncateWords } from '../core/answers/prompt.ts';
import { QUERY_WRITER, samplePassages, sourceOf, type Stratum, type WriterPassage } from '../core/judging/synthetic.ts';
import { filterPassages, type PassageFilterProgress } from '../core/io/passages.ts';
import type { CollectionFile, LoadedCollection } from '../lab/data/types.ts';
import { keptRunFiles, type KeptRunFile } from '../lab/data/compact.ts';
import type { ReadingProgress } from './reading.ts';
import { LabEngine, type CollectionSummary, type RunSummary } from './engine.ts';
import { Analysis } from './engine/analysis.ts';
import { Answers } from './engine/answers.ts';
import { OpenCollection } from './engine/collection.ts';
import { Explorer } from './engine/explorer.ts';
import { Fusion } from './engine/fusion.ts';
import { Judgments } from './engine/judgments.ts';
import { Retrievers } from './engine/retrievers.ts';
import { guardNetwork } from './network-guard.ts';
import { exportPack, importPack, storedRecipeConfig, type PackImport } from './packs.ts';
import type { EncoderConfig } from '../encoders/presets.ts';

/** Files a user gives as queries, read as queries by their extension whatever else they could be. */
const QUERIES_BY_EXTENSION: Readonly<Record<string, FileFormat>> = {
  tsv: 'tsv',
  csv: 'csv',
  jsonl: 'jsonl-aliased',
  ndjson: 'jsonl-aliased',
  json: 'jsonl-aliased',
};

/** Passages drawn to write queries from (`sampleForQueries`). */
export interface QuerySample {
  /** Passages in the corpus. */
  readonly docs: number;
  readonly passages: readonly WriterPassage[];
  readonly strata: readonly Stratum[];
  readonly tooShort: number;
  readonly bounds: readonly [number, number];
}

function preparedBuffers(p: PreparedFlips): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [p.reference.ranks.any, p.reference.ranks.strict, p.reference.unjudged];
  for (const c of p.candidates) {
    arrays.push(c.ranks.any, c.ranks.strict, c.alternation.any, c.alternation.strict, c.rrf.any, c.rrf.strict, c.union.any, c.union.strict);
    arrays.push(c.alternationLength, c.rrfLength, c.unionSizeTotal, c.unjudged);
  }
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/**
 * A part's calls as the API's, with the part's signatures and documentation. Each is looked up on the part
 * when called, not bound once: a test's spy on a part sees the calls.
 */
function passThrough<P extends object, const K extends keyof P>(part: P, names: readonly K[]): Pick<P, K> {
  const call =
    (name: K) =>
    (...args: unknown[]) =>
      (part[name] as (...a: unknown[]) => unknown).apply(part, args);
  return Object.fromEntries(names.map((name) => [name, call(name)])) as unknown as Pick<P, K>;
}

/** The lab worker's calls over one engine (a fresh one unless a test passes its own, to look inside). */
export function createLabApi(engine: LabEngine = new LabEngine()) {
  const { collection, retrievers, judgments, analysis, fusion, explorer, answers } = engine;
  /** The collection being read (one at a time; a new one or cancelOpen stops it). */
  let openJob: AbortController | null = null;
  /** The open collection as loaded (its runs' sources, for keptRunFiles). */
  let loaded: LoadedCollection | null = null;
  /** A made collection's queries.jsonl and synthetic-queries.json, as they were opened. */
  let madeFiles: readonly CollectionFile[] = [];
  /** The passage-text job in progress (one at a time; a new one or cancelPassageText stops it). */
  let passageJob: AbortController | null = null;
  return {
    // ------------------------------------------------------------------------------------ network

    /** Only these origins may be fetched from this worker (the page's CSP does not reach workers). */
    allowOrigins(origins: readonly string[]): void {
      guardNetwork(origins);
    },

    // ------------------------------------------------------------------------------------ collection

    ...passThrough(collection, OpenCollection.calls),

    /** Read a collection's files (cancelOpen stops it: the collection open before stays open). */
    async openFiles(
      files: readonly CollectionFile[],
      options: { name: string; split?: string },
      onProgress?: (p: ReadingProgress) => void,
    ): Promise<CollectionSummary> {
      openJob?.abort();
      const job = new AbortController();
      openJob = job;
      try {
        const read = await loadCollection(files, {
          ...options,
          signal: job.signal,
          ...(onProgress ? { onProgress: (p: ReadingProgress) => void onProgress(p) } : {}),
        });
        const summary = engine.open(read);
        loaded = read;
        // Made queries keep their file (metadata: origin, source) and provenance for the BEIR folder export.
        madeFiles = read.synthetic
          ? files.filter((f) => /(^|\/)(queries\.jsonl|synthetic-queries\.json)$/.test(normalizePath(f.path)))
          : [];
        return summary;
      } finally {
        if (openJob === job) openJob = null;
      }
    },

    /**
     * Draw `n` passages of the files' corpus to write queries from (core/judging/synthetic.ts), with their text
     * cut to what the writer reads and the strata they came from.
     */
    async sampleForQueries(files: readonly CollectionFile[], options: { name: string; n: number; seed: number }): Promise<QuerySample> {
      const { corpus, documents } = await loadCorpus(files, { name: options.name });
      // A folder of text files: its subfolders are sources; a corpus file is one source.
      const sample = samplePassages(corpus.ids, corpus.texts, options.n, options.seed, documents ? sourceOf : () => '');
      return {
        docs: corpus.ids.length,
        passages: sample.indices.map((i) => ({
          id: corpus.ids[i]!,
          title: corpus.titles[i] ?? '',
          text: truncateWords(corpus.texts[i] ?? '', QUERY_WRITER.passageWords),
        })),
        strata: sample.strata,
        tooShort: sample.tooShort,
        bounds: sample.bounds,
      };
    },

    /**
     * Queries from a file the user gave as queries, to add to queries being made: TSV (`qid<TAB>text`), CSV or JSONL
     * with id and text fields under any alias, read as queries whatever else they could be; any other file as the
     * collection loader would classify it.
     */
    async parseQueriesFile(file: CollectionFile): Promise<{ id: string; text: string }[]> {
      const whole = await wholeFile(file);
      const format = QUERIES_BY_EXTENSION[extensionOf(whole.path)];
      const queries =
        format === undefined
          ? (await classifyFiles([whole])).files.filter((c) => c.role === 'queries')
          : [{ file: whole, role: 'queries' as const, format, by: 'name' as const }];
      if (queries.length === 0) throw new InputError(file.path, undefined, `expected queries: ${ACCEPTED_QUERIES}`);
      const parsed = await parseQueriesGroup(queries, new ReadingJob([file]));
      return parsed.value.ids.map((id, i) => ({ id, text: parsed.value.texts[i] ?? '' }));
    },

    /**
     * The open collection as a BEIR folder, zipped (core/io/beir-folder.ts): its corpus, queries, people's
     * judgments (the collection's and the user's own) as `qrels/<split>.tsv`, the runs named as TREC runs under
     * `runs/`, and `extra` files (a model layer, its provenance, a README) from the page.
     */
    async beirFolder(options: { runs: readonly string[]; extra?: Readonly<Record<string, string>> }): Promise<Uint8Array> {
      const c = collection.current;
      const kept = async (name: string) => {
        const f = madeFiles.find((m) => baseName(m.path) === name);
        return f === undefined ? undefined : (await wholeFile(f)).bytes;
      };
      const provenance = await kept('synthetic-queries.json');
      const queriesJsonl = await kept('queries.jsonl');
      const files = runFileNames(options.runs);
      const zip = beirFolderZip({
        folder: runFileName(c.name),
        corpus: c.corpus,
        queries: c.queries,
        ...(queriesJsonl === undefined ? {} : { queriesJsonl }),
        qrels: judgments.peopleQrels(),
        split: c.split ?? 'test',
        extra: {
          ...Object.fromEntries(options.runs.map((r) => [`runs/${files.get(r)!}.run`, retrievers.runText(r)])),
          ...(provenance === undefined ? {} : { 'synthetic-queries.json': provenance }),
          ...options.extra,
        },
      });
      return transfer(zip, [zip.buffer as ArrayBuffer]);
    },

    cancelOpen(): void {
      openJob?.abort(new DOMException('cancelled', 'AbortError'));
    },

    /**
     * The open collection's large run files as the lab keeps them (data/compact.ts), to be stored instead of
     * the files.
     */
    async keptRunFiles(): Promise<KeptRunFile[]> {
      if (loaded === null) return [];
      const files = await keptRunFiles(loaded);
      return transfer(
        files,
        files.map((f) => f.file.bytes.buffer as ArrayBuffer),
      );
    },

    /**
     * Text for a collection opened from runs (no corpus): the corpus file is streamed (`file.stream()`, so a 3 GB
     * collection.tsv never sits in memory) and only the passages the runs rank are kept. Returns those passages as
     * a BEIR jsonl file (what the collection store keeps, so a reload has the text) and the counts.
     */
    async keepPassageText(
      file: Blob,
      name: string,
      onProgress?: (p: PassageFilterProgress) => void,
    ): Promise<{ file: CollectionFile; kept: number; read: number; missing: number }> {
      passageJob?.abort();
      const job = new AbortController();
      passageJob = job;
      try {
        const keep = new Set<string>(collection.passageIds());
        const result = await filterPassages(file.stream() as ReadableStream<Uint8Array>, name, keep, {
          totalBytes: file.size,
          signal: job.signal,
          ...(onProgress ? { onProgress: (p: PassageFilterProgress) => void onProgress(p) } : {}),
        });
        const kept = result.value.corpus;
        collection.fillPassageText(kept);
        const line = (id: string, i: number) => `${JSON.stringify({ _id: id, title: kept.titles[i] ?? '', text: kept.texts[i] ?? '' })}\n`;
        const bytes = new TextEncoder().encode(kept.ids.map(line).join(''));
        const counts = { kept: kept.ids.length, read: result.value.passagesRead, missing: result.value.missing.length };
        const out = { file: { path: PASSAGE_TEXT_FILE, bytes }, ...counts };
        return transfer(out, [bytes.buffer as ArrayBuffer]);
      } finally {
        if (passageJob === job) passageJob = null;
      }
    },

    cancelPassageText(): void {
      passageJob?.abort(new DOMException('cancelled', 'AbortError'));
    },

    // ------------------------------------------------------------------------------------ retrievers

    ...passThrough(retrievers, Retrievers.calls),

    /** A run file the user imports: streamed and kept as a collection's runs are (load.ts), judged tails included. */
    async addRunFile(file: CollectionFile, name?: string): Promise<RunSummary> {
      const parsed = await readRunTop(() => fileSource(file), file.path, {
        ...retrievers.keepOptions(file),
        ...(name === undefined ? {} : { name }),
      });
      return retrievers.addRun(parsed.value);
    },

    /** Check a vector pack against the open collection and add its vectors to the cache (see packs.ts). */
    async importPack(files: readonly CollectionFile[], onProgress?: (done: number, total: number) => void): Promise<PackImport> {
      const whole = await Promise.all(files.map(wholeFile));
      return importPack(whole, collection.packCollection(), onProgress ? { onProgress: (d, t) => void onProgress(d, t) } : {});
    },

    /** The cached vectors of an encoder over the open collection, as a zipped pack. */
    async exportPack(config: EncoderConfig, tool: string): Promise<Uint8Array> {
      const zip = await exportPack(config, collection.packCollection(), { tool });
      return transfer(zip, [zip.buffer as ArrayBuffer]);
    },

    /** A pack-made recipe run's configuration (ids like "pack:<model>~<fingerprint>"), found in the embedding cache. */
    storedRecipe(id: string): Promise<EncoderConfig | null> {
      return storedRecipeConfig(id);
    },

    // ------------------------------------------------------------------------------------ judgments

    ...passThrough(judgments, Judgments.calls),

    /** Added judgments from a file (TREC qrels or fliplab JSONL), parsed with file:line errors. */
    async parseJudgmentsFile(file: CollectionFile): Promise<Judgment[]> {
      return (await parseJudgments(fileSource(file), file.path)).value;
    },

    /**
     * A model's judgments made elsewhere (TREC or BEIR qrels: UMBRELA's output, another tool's), read as a model layer:
     * grades outside people's scale refused with the file and line; labels for queries or passages the collection
     * does not have counted and left out; the audit against people's pairs the file also grades.
     */
    async parseModelQrelsFile(file: CollectionFile, level: number) {
      const people = judgments.peopleQrels();
      if (people === null) throw new Error('this collection has no judgments to layer a model under');
      const scale = gradeScale(people);
      const parsed = await parseQrels(fileSource(file), file.path, { grades: { ...scale, of: "the collection's grades, with 0 and 1" } });
      const { corpus, queries } = collection.current;
      const known = knownLabels(parsed.value, {
        query: (qid) => queries.indexOf.has(qid),
        passage: (_qid, docid) => corpus.indexOf.has(docid),
      });
      const labels: { qid: string; docId: string; grade: number }[] = [];
      for (const [qid, docs] of known.qrels.byQuery) for (const [docId, grade] of docs) labels.push({ qid, docId, grade });
      const audit = judgeAudit(people, known.qrels, level);
      return {
        labels,
        unknownQueries: known.unknownQueries,
        unknownQueryLabels: known.unknownQueryLabels,
        unknownPassages: known.unknownPassages,
        audit: audit.pairs === 0 ? null : audit,
        warnings: parsed.warnings.map((w) => w.message),
      };
    },

    // ------------------------------------------------------------------------------------ analysis

    ...passThrough(analysis, Analysis.calls),

    /**
     * Measures and prepared flips in one call, so both read one state of the judgments (a judgment arriving
     * between two calls would otherwise land in the flips but not the measures), and how many added pairs
     * that state holds.
     */
    analyse(
      reference: string,
      candidates: readonly string[],
      partial: readonly string[],
      options: {
        maxDepth: number;
        relevanceLevel: number;
        judgedOnly: boolean;
        cohortAt?: number;
        label?: SupportLabel;
        /** Holes filled by the model's labels (the view's choice; every later call reads the same). */
        modelLabels?: boolean;
      },
    ): {
      metrics: MetricsRow[];
      prepared: PreparedFlips | null;
      preparedPeople: PreparedFlips | null;
      modelLabels: boolean;
      modelStats: { filled: number; setAside: number; modelOnlyQueries: number } | null;
      judgments: number;
    } {
      const { modelLabels, ...flipOptions } = options;
      if (modelLabels !== undefined) judgments.useModelLayer(modelLabels);
      options = flipOptions;
      const metrics = analysis.metrics([reference, ...candidates], partial, options.relevanceLevel, options.judgedOnly);
      const prepared = candidates.length > 0 ? analysis.prepare(reference, candidates, options) : null;
      // With a model's labels filling the holes: the same ranks on people's judgments alone, to tell which flips rest on them.
      const preparedPeople = prepared === null ? null : analysis.preparePeople(reference, candidates, options);
      const out = {
        metrics,
        prepared,
        preparedPeople,
        modelLabels: judgments.modelInUse(),
        modelStats: judgments.modelStats(),
        judgments: judgments.addedPairs(),
      };
      const buffers = [prepared, preparedPeople].flatMap((p) => (p === null ? [] : preparedBuffers(p)));
      return buffers.length === 0 ? out : transfer(out, buffers);
    },

    // ------------------------------------------------------------------------------------ fusion

    ...passThrough(fusion, Fusion.calls),

    /** The fusion frontier of `candidate` with `reference` (fusion.ts), its rank arrays transferred. */
    prepareFrontier(
      reference: string,
      candidate: string,
      options: { maxDepth: number; relevanceLevel?: number; label?: SupportLabel },
    ): PreparedFrontier {
      const prepared = fusion.prepareFrontier(reference, candidate, options);
      const buffers = [prepared.reference, prepared.candidate, ...prepared.mixes.map((m) => m.ranks)].map((a) => a.buffer as ArrayBuffer);
      return transfer(prepared, buffers);
    },

    // ------------------------------------------------------------------------------------ explorer

    ...passThrough(explorer, Explorer.calls),

    // ------------------------------------------------------------------------------------ answers

    ...passThrough(answers, Answers.calls),

    /** A gold-answers JSONL (or a BEIR queries.jsonl with metadata answers), parsed with file:line errors. */
    async parseGoldFile(file: CollectionFile): Promise<{ gold: Record<string, string[]>; warnings: string[] }> {
      const parsed = await parseGoldAny(new TextDecoder().decode((await wholeFile(file)).bytes), file.path);
      return { gold: Object.fromEntries(parsed.value), warnings: parsed.warnings.map((w) => w.message) };
    },

    /** A predictions JSONL ({"query_id", "prediction"}), parsed with file:line errors. */
    async parsePredictionsFile(file: CollectionFile): Promise<Record<string, string>> {
      return Object.fromEntries((await parsePredictions(fileSource(file), file.path)).value);
    },
  };
}

export type LabApi = ReturnType<typeof createLabApi>;
