/**
 * The lab worker's API: the engine (src/worker/engine.ts) as comlink calls. Building it is separate from
 * exposing it, so workers/lab.worker.ts exposes one on its global scope and tests expose one on a
 * MessageChannel port (the page's `Lab` then drives the real engine in-process). Answers are small plain
 * objects; typed arrays are transferred, not copied.
 */
import { transfer } from 'comlink';
import { readRunTop } from '../core/io/run-top.ts';
import { fileSource, wholeFile } from '../lab/data/bytes.ts';
import { parseGoldAny, parsePredictions } from '../core/io/answers.ts';
import { parseJudgments, type Judgment } from '../core/io/judgments.ts';
import type { PreparedFlips } from '../core/flips/analyze.ts';
import type { SupportLabel } from '../core/flips/cohort.ts';
import type { PreparedFrontier } from '../core/flips/fusion.ts';
import type { MetricsRow } from '../report/metrics.ts';
import { loadCollection, PASSAGE_TEXT_FILE } from './load.ts';
import { filterPassages, type PassageFilterProgress } from '../core/io/passages.ts';
import type { CollectionFile, LoadedCollection } from '../lab/data/types.ts';
import { keptRunFiles, type KeptRunFile } from '../lab/data/compact.ts';
import type { ReadingProgress } from './reading.ts';
import { LabEngine, type CollectionSummary, type RunSummary } from './engine.ts';
import { guardNetwork } from './network-guard.ts';
import { exportPack, importPack, storedRecipeConfig, type PackImport } from './packs.ts';
import type { EncoderConfig } from '../encoders/presets.ts';

function preparedBuffers(p: PreparedFlips): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [p.reference.ranks.any, p.reference.ranks.strict, p.reference.unjudged];
  for (const c of p.candidates) {
    arrays.push(c.ranks.any, c.ranks.strict, c.alternation.any, c.alternation.strict, c.rrf.any, c.rrf.strict, c.union.any, c.union.strict);
    arrays.push(c.alternationLength, c.rrfLength, c.unionSizeTotal, c.unjudged);
  }
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/**
 * The engine's calls the page makes as they are: their signatures and documentation are the engine's
 * (engine.ts). The rest of the API adds what the engine does not do itself: reading files, jobs that can be
 * cancelled, buffers transferred instead of copied.
 */
const ENGINE_CALLS = [
  'summary',
  'runBm25',
  'runLexical',
  'evaluatedQueries',
  'passageTexts',
  'beginVectorRun',
  'addVectors',
  'removeRun',
  'runNames',
  'setJudgments',
  'addFused',
  'holes',
  'grades',
  'detail',
  'explainBm25',
  'explain',
  'rm3Expansion',
  'passage',
  'queryTexts',
  'goldAnswers',
  'readerTasks',
  'runText',
  'trecEval',
  'compare',
  'depthWarnings',
  'significance',
  'track',
  'differences',
] as const satisfies readonly (keyof LabEngine)[];

type EngineCalls = Pick<LabEngine, (typeof ENGINE_CALLS)[number]>;

function engineCalls(engine: LabEngine): EngineCalls {
  // Looked up at each call, not bound once: a test's spy on the engine sees the calls.
  const call =
    (name: (typeof ENGINE_CALLS)[number]) =>
    (...args: unknown[]) =>
      (engine[name] as (...a: unknown[]) => unknown).apply(engine, args);
  return Object.fromEntries(ENGINE_CALLS.map((name) => [name, call(name)])) as unknown as EngineCalls;
}

/** The lab worker's calls over one engine (a fresh one unless a test passes its own, to look inside). */
export function createLabApi(engine: LabEngine = new LabEngine()) {
  /** The passage-text job in progress (one at a time; a new one or cancelPassageText stops it). */
  let passageJob: AbortController | null = null;
  /** The collection being read (one at a time; a new one or cancelOpen stops it). */
  let openJob: AbortController | null = null;
  /** The open collection as loaded (its runs' sources, for keptRunFiles). */
  let loaded: LoadedCollection | null = null;
  return {
    ...engineCalls(engine),

    /** Only these origins may be fetched from this worker (the page's CSP does not reach workers). */
    allowOrigins(origins: readonly string[]): void {
      guardNetwork(origins);
    },

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
        const collection = await loadCollection(files, {
          ...options,
          signal: job.signal,
          ...(onProgress ? { onProgress: (p: ReadingProgress) => void onProgress(p) } : {}),
        });
        const summary = engine.open(collection);
        loaded = collection;
        return summary;
      } finally {
        if (openJob === job) openJob = null;
      }
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

    cancelOpen(): void {
      openJob?.abort(new DOMException('cancelled', 'AbortError'));
    },

    /** A run file the user imports: streamed and kept as a collection's runs are (load.ts), judged tails included. */
    async addRunFile(file: CollectionFile, name?: string): Promise<RunSummary> {
      const parsed = await readRunTop(() => fileSource(file), file.path, {
        ...engine.keepOptions(file),
        ...(name === undefined ? {} : { name }),
      });
      return engine.addRun(parsed.value);
    },

    /**
     * Measures and prepared flips in one call, so both read one state of the judgments (a judgment arriving
     * between two calls would otherwise land in the flips but not the measures), and how many added pairs
     * that state holds.
     */
    analyse(
      reference: string,
      candidates: readonly string[],
      partial: readonly string[],
      options: { maxDepth: number; relevanceLevel: number; judgedOnly: boolean; cohortAt?: number; label?: SupportLabel },
    ): { metrics: MetricsRow[]; prepared: PreparedFlips | null; judgments: number } {
      const metrics = engine.metrics([reference, ...candidates], partial, options.relevanceLevel, options.judgedOnly);
      const prepared = candidates.length > 0 ? engine.prepare(reference, candidates, options) : null;
      const out = { metrics, prepared, judgments: engine.addedPairs() };
      return prepared === null ? out : transfer(out, preparedBuffers(prepared));
    },

    prepareFrontier(
      reference: string,
      candidate: string,
      options: { maxDepth: number; relevanceLevel?: number; label?: SupportLabel },
    ): PreparedFrontier {
      const prepared = engine.prepareFrontier(reference, candidate, options);
      const buffers = [prepared.reference, prepared.candidate, ...prepared.mixes.map((m) => m.ranks)].map((a) => a.buffer as ArrayBuffer);
      return transfer(prepared, buffers);
    },

    /** Added judgments from a file (TREC qrels or fliplab JSONL), parsed with file:line errors. */
    async parseJudgmentsFile(file: CollectionFile): Promise<Judgment[]> {
      return (await parseJudgments(fileSource(file), file.path)).value;
    },

    /** A gold-answers JSONL (or a BEIR queries.jsonl with metadata answers), parsed with file:line errors. */
    async parseGoldFile(file: CollectionFile): Promise<{ gold: Record<string, string[]>; warnings: string[] }> {
      const parsed = await parseGoldAny(new TextDecoder().decode((await wholeFile(file)).bytes), file.path);
      return { gold: Object.fromEntries(parsed.value), warnings: parsed.warnings.map((w) => w.message) };
    },

    /** A predictions JSONL ({"query_id", "prediction"}), parsed with file:line errors. */
    async parsePredictionsFile(file: CollectionFile): Promise<Record<string, string>> {
      return Object.fromEntries((await parsePredictions(fileSource(file), file.path)).value);
    },

    /** Check a vector pack against the open collection and add its vectors to the cache (see packs.ts). */
    async importPack(files: readonly CollectionFile[], onProgress?: (done: number, total: number) => void): Promise<PackImport> {
      const whole = await Promise.all(files.map(wholeFile));
      return importPack(whole, engine.packCollection(), onProgress ? { onProgress: (d, t) => void onProgress(d, t) } : {});
    },

    /** A pack-made recipe run's configuration (ids like "pack:<model>~<fingerprint>"), found in the embedding cache. */
    storedRecipe(id: string): Promise<EncoderConfig | null> {
      return storedRecipeConfig(id);
    },

    /** The cached vectors of an encoder over the open collection, as a zipped pack. */
    async exportPack(config: EncoderConfig, tool: string): Promise<Uint8Array> {
      const zip = await exportPack(config, engine.packCollection(), { tool });
      return transfer(zip, [zip.buffer as ArrayBuffer]);
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
        const keep = new Set<string>(engine.passageIds());
        const result = await filterPassages(file.stream() as ReadableStream<Uint8Array>, name, keep, {
          totalBytes: file.size,
          signal: job.signal,
          ...(onProgress ? { onProgress: (p: PassageFilterProgress) => void onProgress(p) } : {}),
        });
        const kept = result.value.corpus;
        engine.fillPassageText(kept);
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
  };
}

export type LabApi = ReturnType<typeof createLabApi>;
