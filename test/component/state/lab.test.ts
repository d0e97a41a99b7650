/**
 * The real `Lab` (src/app/state/lab.svelte.ts) driving the real lab worker API (src/worker/api.ts: parsing, BM25,
 * runs, flips, measures) exposed on a MessageChannel in this process, on the bundled tiny-beir collection (12
 * passages, 8 judged queries). Encoders need a model, so encoder jobs go through the real EncodeBridge to a
 * fake encode worker on another MessageChannel that returns bag-of-words vectors and can be held mid-job.
 * Flip counts are checked against a literal computation from the runs' lists as the worker returns them
 * (top-k slices tested against the positives, test/unit/flips/oracle.ts).
 */
import { withFailure } from '../../../src/lab/problems.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expose } from 'comlink';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { anseriniNameProblem, Lab } from '../../../src/app/state/lab.svelte.ts';
import {
  EncodeBridge,
  type CorpusProgress,
  type CorpusRequest,
  type CorpusResult,
  type ModelCallback,
  type VectorsCallback,
} from '../../../src/app/bridge/encode-bridge.ts';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';
import { DEFAULT_VIEW, LAB_MEASURES } from '../../../src/app/types.ts';
import { trecEvalName } from '../../../src/report/metrics.ts';
import { LAB_SIGNIFICANCE } from '../../../src/report/significance.ts';
import { cli } from '../../support/cli.ts';
import { parseQrels, parseRun } from '../../../src/core/io/trec.ts';
import type { Qrels, Run } from '../../../src/core/types.ts';
import { anseriniLabRecipe, bm25Recipe, recipeLine } from '../../../src/report/recipe.ts';
import type { StoredVector } from '../../../src/encoders/pooling.ts';
import { createLabApi, type LabApi } from '../../../src/worker/api.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';
import { LabEngine } from '../../../src/worker/engine.ts';
import { encoderConfig, encoderRunId } from '../../../src/lab/retriever-ids.ts';
import type { EncoderConfig } from '../../../src/encoders/presets.ts';
import { listOf, positivesOf, supported, type Label } from '../../unit/flips/oracle.ts';
import { describeRowProgress, updatingText } from '../../../src/app/views/shell/progress.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/tiny-beir');
const read = (path: string): CollectionFile => ({ path, bytes: new Uint8Array(readFileSync(join(EXAMPLE, path))) });
const TINY: CollectionFile[] = [read('corpus.jsonl'), read('queries.jsonl'), read('qrels/test.tsv')];
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * A run made to flip against BM25 (whose top-1 supports all eight queries): q2, q3, q5 and q8 lose their
 * positives at k = 1 (q3 until rank 6, q5 for good), q6 is missing, q1, q4 and q7 keep theirs.
 */
const DESIGNED = [
  'q1 Q0 d2 1 9 designed',
  'q1 Q0 d1 2 8 designed',
  'q1 Q0 d8 3 7 designed',
  'q2 Q0 d5 1 9 designed',
  'q2 Q0 d3 2 8 designed',
  'q2 Q0 d10 3 7 designed',
  ...['d1', 'd2', 'd3', 'd5', 'd6', 'd4'].map((d, i) => `q3 Q0 ${d} ${i + 1} ${9 - i} designed`),
  'q4 Q0 d11 1 9 designed',
  'q4 Q0 d6 2 8 designed',
  'q5 Q0 d1 1 9 designed',
  'q7 Q0 d12 1 9 designed',
  'q8 Q0 d4 1 9 designed',
  'q8 Q0 d5 2 8 designed',
].join('\n');
const designedFile = (path = 'runs/designed.trec'): CollectionFile => ({ path, bytes: bytes(`${DESIGNED}\n`) });

const QRELS: Qrels = (await parseQrels(TINY[2]!.bytes, 'qrels/test.tsv')).value;

// ------------------------------------------------------------------------------------------- fake encoder

const VOCAB = 32;
/** A bag-of-words vector (hashed words, L2-normalised): enough for an encoder run to rank something. */
function embed(text: string): StoredVector {
  const v = new Float32Array(VOCAB);
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  for (const w of words) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % VOCAB, 7)]! += 1;
  const norm = Math.hypot(...v) || 1;
  return { dense: v.map((x) => x / norm), tokens: words.length };
}

/** A point where a fake job stops: it calls `wait()`, the test awaits `reached`, then calls `release()`. */
interface Hold {
  readonly wait: () => Promise<void>;
  readonly reached: Promise<void>;
  readonly release: () => void;
}
function hold(): Hold {
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((r) => (reached = r));
  const released = new Promise<void>((r) => (release = r));
  return { reached: reachedP, release, wait: () => (reached(), released) };
}

/**
 * Encode workers on MessageChannels that go through the real job's phases (src/encoders/job.ts) in its order:
 * the cache lookup (vectors found there come in lookup windows of `batch`), the model load (once per worker,
 * and only when something is missing), then encoding, committing batches of `batch` through `onVectors`. A
 * test may hold a job before its query vectors return, at a phase (`holdAt`), or around its first passage
 * batch (the first lookup window when everything is cached). Logs starts, calls and ends.
 */
interface FakeEncodeOptions {
  readonly batch?: number;
  readonly holdQueries?: Hold;
  readonly holdBeforeFirstBatch?: Hold;
  readonly holdAfterFirstBatch?: Hold;
  /** Hold a job (passages unless `role` says) just after it reports this phase ("looked-up": the lookup is over). */
  readonly holdAt?: {
    readonly role?: 'query' | 'passage';
    readonly phase: 'reading-cache' | 'looked-up' | 'loading-model' | 'encoding';
    readonly hold: Hold;
  };
  /** Called after each progress report has been handled by the page (the row shows it then). */
  readonly onReported?: (role: 'query' | 'passage', p: CorpusProgress) => void;
  /** The model load downloads this many bytes: the plan goes to the page (which may ask), as the real worker's does. */
  readonly downloadBytes?: number;
  /** Report every vector as found in the cache (a second visit). */
  readonly fromCache?: boolean;
  /** A resumed job: every query and the first `n` passages are in the cache. */
  readonly cachedPassages?: number;
  /** Fail loads from a local folder as the real worker does when no folder is registered (after a reload). */
  readonly noLocalFolder?: boolean;
}

function fakeEncodeWorkers(options: FakeEncodeOptions = {}) {
  const batch = options.batch ?? 4;
  const log: string[] = [];
  /** The revision of every encode request, in order (local folders: their fingerprint). */
  const revisions: string[] = [];
  let started = 0;
  const create = (): Worker => {
    const id = ++started;
    const { port1, port2 } = new MessageChannel();
    let modelLoaded = false;
    expose(
      {
        init: () => void log.push(`init ${id}`),
        registerLocalModel: () => undefined,
        unregisterLocalModel: () => true,
        async encodeCorpus(
          request: CorpusRequest,
          onProgress?: (p: CorpusProgress) => unknown,
          onVectors?: VectorsCallback,
          onModel?: ModelCallback,
        ): Promise<CorpusResult> {
          log.push(`encode ${request.role} ${request.texts.length} on ${id}`);
          revisions.push(request.config.revision);
          const load = {
            device: 'wasm' as const,
            reason: null,
            adapterInfo: null,
            dtype: request.config.dtype,
            model: request.config.model,
          };
          const vectors = request.texts.map(embed);
          const total = vectors.length;
          const passages = request.role === 'passage';
          const cached = options.fromCache
            ? total
            : options.cachedPassages === undefined
              ? 0
              : passages
                ? Math.min(options.cachedPassages, total)
                : total;
          const at = async (phase: NonNullable<FakeEncodeOptions['holdAt']>['phase']) => {
            if (options.holdAt?.phase === phase && (options.holdAt.role ?? 'passage') === request.role) await options.holdAt.hold.wait();
          };
          const send = async (p: CorpusProgress) => {
            await onProgress?.(p);
            options.onReported?.(request.role, p);
          };
          const report = (p: Partial<CorpusProgress> & Pick<CorpusProgress, 'phase' | 'checked' | 'done' | 'cached'>) =>
            send({ total, tokens: 0, elapsedMs: 1, etaMs: null, perSecond: null, device: null, ...p });
          if (!passages) await options.holdQueries?.wait();
          await report({ phase: 'reading-cache', checked: 0, done: 0, cached: 0 });
          await at('reading-cache');
          // The lookup, window by window: what is found is delivered as it is found.
          for (let from = 0; from < total; from += batch) {
            const positions = vectors.slice(from, from + batch).map((_, i) => from + i);
            const hits = positions.filter((p) => p < cached);
            if (hits.length > 0 && onVectors)
              await onVectors(
                hits,
                hits.map((p) => vectors[p]!),
                'cache',
              );
            const found = Math.min(cached, from + positions.length);
            const over = from + positions.length === total;
            await report({
              phase: 'reading-cache',
              checked: from + positions.length,
              done: found,
              cached: found,
              ...(over && cached === total ? { etaMs: 0, device: 'cache' } : {}),
            });
            if (cached === total && passages && from === 0) await options.holdAfterFirstBatch?.wait();
          }
          await at('looked-up');
          if (cached === total) return { vectors: request.returnVectors === false ? [] : vectors, cached, encoded: 0, load: null };
          if (!modelLoaded) {
            await report({ phase: 'loading-model', checked: total, done: cached, cached });
            if (options.downloadBytes === undefined || !onModel) await at('loading-model');
            else {
              const files = [{ path: 'onnx/model.onnx', bytes: options.downloadBytes, cached: false, exists: true }];
              const plan = { model: request.config.model, revision: request.config.revision, dtype: request.config.dtype };
              const answered = onModel({
                kind: 'plan',
                plan: { ...plan, onnxFolder: 'onnx', externalData: false, files, downloadBytes: options.downloadBytes, cachedBytes: 0 },
              });
              // The plan and the progress cross on different ports: a report may arrive after the plan.
              await report({ phase: 'loading-model', checked: total, done: cached, cached });
              await at('loading-model');
              await answered;
              await onModel({ kind: 'download', file: 'onnx/model.onnx', loaded: options.downloadBytes, total: options.downloadBytes });
            }
            if (options.noLocalFolder && request.load.source.localModelPath !== undefined) {
              throw withFailure(
                new Error(`Could not load ${request.config.model}: no local model folder registered as ${request.config.model}`),
                'folder-not-registered',
              );
            }
            modelLoaded = true;
          }
          const encoding = (done: number): CorpusProgress => ({
            phase: 'encoding',
            total,
            checked: total,
            done,
            cached,
            tokens: done - cached,
            elapsedMs: 1,
            etaMs: done === total ? 0 : done === cached ? null : 1,
            perSecond: done === cached ? null : (done - cached) * 1000,
            device: 'wasm',
            load,
          });
          await send(encoding(cached));
          await at('encoding');
          if (onVectors === undefined) {
            await send(encoding(total));
            return { vectors, cached, encoded: total - cached, load };
          }
          for (let from = cached; from < total; from += batch) {
            if (from === cached) await options.holdBeforeFirstBatch?.wait();
            const positions = vectors.slice(from, from + batch).map((_, i) => from + i);
            await onVectors(
              positions,
              positions.map((p) => vectors[p]!),
              'encoder',
            );
            await send(encoding(from + positions.length));
            if (from === cached) await options.holdAfterFirstBatch?.wait();
          }
          return { vectors: request.returnVectors === false ? [] : vectors, cached, encoded: total - cached, load };
        },
      },
      port2,
    );
    return Object.assign(port1, { terminate: () => (log.push(`terminate ${id}`), port1.close(), port2.close()) }) as unknown as Worker;
  };
  return { log, revisions, create, started: () => started };
}

// ------------------------------------------------------------------------------------------- the lab

/**
 * The real API as this test's worker. One adaptation: jsdom replaces the typed-array globals, while Node's
 * MessageChannel clones into Node's own, so bytes arriving over the port fail the core's `instanceof
 * Uint8Array` (a browser worker has no such second realm). They are copied into this realm on arrival.
 */
function labApiForTest(engine: LabEngine): LabApi {
  const api = createLabApi(engine);
  const here = (f: CollectionFile): CollectionFile => ({ path: f.path, bytes: new Uint8Array(f.bytes) });
  return {
    ...api,
    openFiles: (files, options) => api.openFiles(files.map(here), options),
    addRunFile: (file, name) => api.addRunFile(here(file), name),
  };
}

const labs: Lab[] = [];
afterEach(() => {
  for (const lab of labs.splice(0)) lab.dispose();
});

/** A Lab whose lab worker is the real API on a MessageChannel (its engine kept, to look inside). */
function setup(options: { encode?: ReturnType<typeof fakeEncodeWorkers> } = {}) {
  const engine = new LabEngine();
  let labWorkerEnded = false;
  const createLabWorker = (): Worker => {
    const { port1, port2 } = new MessageChannel();
    expose(labApiForTest(engine), port2);
    return Object.assign(port1, { terminate: () => ((labWorkerEnded = true), port1.close(), port2.close()) }) as unknown as Worker;
  };
  const encode = options.encode ?? fakeEncodeWorkers();
  const bridge = new EncodeBridge({ createWorker: encode.create });
  const lab = new Lab({ settings: { ...DEFAULT_SETTINGS, device: 'wasm' }, createLabWorker, bridge });
  labs.push(lab);
  return { lab, engine, encode, labWorkerEnded: () => labWorkerEnded };
}

async function opened(files: readonly CollectionFile[] = TINY, id = 'files:tiny') {
  const s = setup();
  expect(await s.lab.openFiles(id, 'tiny', files)).toBe(true);
  await s.lab.settled();
  return s;
}

/** The tiny collection open, and an encoder job started on fake encode workers (`options` may hold it). */
async function encoding(options: FakeEncodeOptions, config: EncoderConfig = encoderConfig('bge-small')) {
  const encode = fakeEncodeWorkers(options);
  const s = setup({ encode });
  await s.lab.openFiles('files:tiny', 'tiny', TINY);
  const id = encoderRunId(config);
  return { ...s, config, id, job: s.lab.addEncoder(config) };
}

/** A run as the worker gives it out (its TREC text, read back by the core's parser). */
async function workerRun(lab: Lab, name: string): Promise<Run> {
  return (await parseRun(await lab.lab.runText(name), `${name}.trec`, name)).value;
}

type Counts = { reference: number; preserved: number; broken: number; fixed: number; unchanged: number };

/** Transitions at depth k, literally: slice both lists to k and test the positives. */
function literalCounts(reference: Run, candidate: Run, k: number, label: Label, level = 1): Counts {
  const c: Counts = { reference: 0, preserved: 0, broken: 0, fixed: 0, unchanged: 0 };
  for (const [q, pos] of positivesOf(QRELS, level)) {
    const b = supported(listOf(reference, q).slice(0, k), pos, label);
    const d = supported(listOf(candidate, q).slice(0, k), pos, label);
    if (b) c.reference++;
    c[b ? (d ? 'preserved' : 'broken') : d ? 'fixed' : 'unchanged']++;
  }
  return c;
}

/** The report's counts for one candidate at every depth, in the literal computation's shape. */
function reportCounts(lab: Lab, candidate: string): Record<number, Counts> {
  const out: Record<number, Counts> = {};
  for (const block of lab.report!.depths) {
    const row = block.candidates.find((c) => c.name === candidate)!;
    out[block.k] = {
      reference: block.reference.supported,
      preserved: row.preserved,
      broken: row.broken,
      fixed: row.fixed,
      unchanged: row.unchanged,
    };
  }
  return out;
}

async function expectLiteral(lab: Lab, reference: string, candidate: string): Promise<Record<number, Counts>> {
  expect(lab.report!.runs.find((r) => r.role === 'reference')!.name).toBe(reference);
  const [ref, cand] = [await workerRun(lab, reference), await workerRun(lab, candidate)];
  const expected: Record<number, Counts> = {};
  for (const k of lab.view.depths) expected[k] = literalCounts(ref, cand, k, lab.view.label, lab.view.level);
  expect(reportCounts(lab, candidate)).toEqual(expected);
  return expected;
}

/** MRR@10 literally: mean over the judged queries the run answered of 1 / rank of the first positive in its top 10. */
function literalMrr10(run: Run): number {
  const rr: number[] = [];
  for (const [q, pos] of positivesOf(QRELS, 1)) {
    if (!run.byQuery.has(q)) continue;
    const rank = listOf(run, q)
      .slice(0, 10)
      .findIndex((d) => pos.has(d));
    rr.push(rank < 0 ? 0 : 1 / (rank + 1));
  }
  return rr.reduce((a, b) => a + b, 0) / rr.length;
}

// ------------------------------------------------------------------------------------------- tests

describe('Lab opens a collection', () => {
  test('parses it in the worker and runs BM25 as the reference right away', async () => {
    const { lab, engine } = setup();
    const opening = lab.openFiles('files:tiny', 'tiny', TINY);
    expect(lab.busy).toBe('Reading tiny…');
    expect(await opening).toBe(true);
    expect(lab.busy).toBeNull();
    expect(lab.collectionError).toBeNull();
    expect(lab.collectionId).toBe('files:tiny');
    expect(lab.collection).toMatchObject({ name: 'tiny', docs: 12, queries: 8, evaluated: 8, judged: true, split: 'test', runs: [] });
    expect(lab.queryTexts['q3']).toBe('what causes tides');
    expect(lab.retrievers).toEqual([
      {
        id: 'bm25',
        name: 'bm25',
        kind: 'bm25',
        status: 'ready',
        device: 'cpu',
        progress: { done: 12, total: 12, cached: 0, etaMs: 0, unit: 'documents' },
        recipe: bm25Recipe(1.5, 0.75),
      },
    ]);
    expect(recipeLine(lab.retrievers[0]!.recipe!)).toMatch(/^BM25 .* · k1 1\.5 · b 0\.75 · tokenizer RAGFlip/);
    expect(engine.retrievers.runNames()).toEqual(['bm25']);
    expect(lab.reference).toBe('bm25');
    expect(lab.view).toMatchObject({ collection: 'files:tiny', reference: null, candidates: [] });
    expect(lab.candidates).toEqual([]);

    await lab.settled();
    // Measured, but nothing to compare yet.
    expect(lab.metrics.map((m) => [m.run, m.partial])).toEqual([['bm25', false]]);
    expect(lab.metrics[0]!.values['recip_rank_cut.10']).toBeCloseTo(literalMrr10(await workerRun(lab, 'bm25')), 12);
    expect(lab.prepared).toBeNull();
    expect(lab.report).toBeNull();
    expect(lab.analysisError).toBeNull();
  });

  test('runs bundled with the collection are listed as imported retrievers, BM25 still the reference', async () => {
    const { lab } = await opened([...TINY, designedFile()]);
    expect(lab.retrievers.map((r) => [r.id, r.kind, r.status])).toEqual([
      ['designed', 'imported', 'ready'],
      ['bm25', 'bm25', 'ready'],
    ]);
    expect(lab.retrievers[0]!.progress).toEqual({ done: 7, total: 7, cached: 0, etaMs: 0, unit: 'queries' });
    expect(lab.reference).toBe('bm25');
    // Listed, not selected: the user picks the candidates.
    expect(lab.view.candidates).toEqual([]);
  });
});

describe('Lab analyses candidates against the reference', () => {
  test('a BM25 variant becomes a candidate and its report equals the literal top-k computation', async () => {
    const { lab, engine } = await opened();
    const runBm25 = vi.spyOn(engine.retrievers, 'runBm25');
    await lab.addBm25(1.2, 0.75);
    const id = 'bm25-k1=1.2-b=0.75';
    expect(lab.retrievers.map((r) => [r.id, r.kind, r.status])).toEqual([
      ['bm25', 'bm25', 'ready'],
      [id, 'bm25', 'ready'],
    ]);
    expect(runBm25).toHaveBeenCalledTimes(1);
    expect(runBm25.mock.calls[0]!.slice(0, 2)).toEqual([id, { k1: 1.2, b: 0.75 }]);
    expect(lab.view.candidates).toEqual([id]);
    expect(lab.candidates).toEqual([id]);
    expect(lab.reference).toBe('bm25');

    await lab.settled();
    expect(lab.report).not.toBeNull();
    expect(lab.report!.runs).toEqual([
      { name: 'bm25', role: 'reference', missing_queries: 0 },
      { name: id, role: 'candidate', missing_queries: 0 },
    ]);
    expect(lab.report!.depth_list).toEqual([1, 5, 10, 20, 50]);
    expect(lab.report!.queries).toBe(8);
    await expectLiteral(lab, 'bm25', id);
    // Another k1 scores differently (the variant is not a copy of the reference).
    const [ref, variant] = [await workerRun(lab, 'bm25'), await workerRun(lab, id)];
    expect(variant.byQuery.get('q1' as never)!.scores[0]).not.toBe(ref.byQuery.get('q1' as never)!.scores[0]);
    expect(lab.metrics.map((m) => m.run)).toEqual(['bm25', id]);

    // Adding a ready variant again only selects it: no second search, no second row.
    await lab.addBm25(1.2, 0.75);
    expect(runBm25).toHaveBeenCalledTimes(1);
    expect(lab.retrievers).toHaveLength(2);
    expect(lab.view.candidates).toEqual([id]);
  });

  test("BM25 (Anserini) becomes a candidate whose run is `fliplab bm25 --preset anserini`'s, byte for byte", async () => {
    const { lab, engine } = await opened();
    const runLexical = vi.spyOn(engine.retrievers, 'runLexical');
    await lab.addAnserini();
    const multifield = 'bm25-anserini-multifield-k1=1.2-b=0.75';
    await lab.addAnserini({ fields: 'multifield', k1: 1.2, b: 0.75 });
    expect(lab.retrievers.map((r) => [r.id, r.kind, r.status])).toEqual([
      ['bm25', 'bm25', 'ready'],
      ['bm25-anserini', 'lexical', 'ready'],
      [multifield, 'lexical', 'ready'],
    ]);
    expect(runLexical.mock.calls.map((c) => c.slice(0, 2))).toEqual([
      ['bm25-anserini', { kind: 'anserini', params: { k1: 0.9, b: 0.4, fields: 'flat' } }],
      [multifield, { kind: 'anserini', params: { k1: 1.2, b: 0.75, fields: 'multifield' } }],
    ]);
    expect(lab.retrievers[1]!.recipe).toEqual(anseriniLabRecipe({ k1: 0.9, b: 0.4, fields: 'flat' }));
    expect(recipeLine(lab.retrievers[1]!.recipe!)).toBe(
      "BM25 (Anserini) · recipe Lucene BM25 as Anserini runs it: k1 = 0.9, b = 0.4, title + text in one field, Anserini's English analyzer (Porter), -removeQuery",
    );
    expect(lab.view.candidates).toEqual(['bm25-anserini', multifield]);
    await lab.settled();
    await expectLiteral(lab, 'bm25', 'bm25-anserini');
    await expectLiteral(lab, 'bm25', multifield);

    // The lab's run file is the CLI's.
    for (const [preset, id, extra] of [
      ['anserini', 'bm25-anserini', []],
      ['anserini-multifield', multifield, ['--k1', '1.2', '--b', '0.75']],
    ] as const) {
      const out = await cli('bm25', EXAMPLE, '--preset', preset, ...extra);
      expect(out.code, out.stderr).toBe(0);
      expect(await lab.lab.runText(id)).toBe(out.stdout);
    }

    // The explorer's explanation: Lucene's clauses, title ones named as such, summing to the score before the tie adjustment.
    const run = await workerRun(lab, multifield);
    const [qid, list] = [...run.byQuery].find(([, l]) => l.docs.length > 0)!;
    const why = await lab.explain(qid, list.docs[0]!, multifield);
    expect(why?.kind).toBe('anserini');
    if (why?.kind !== 'anserini') return;
    expect(why.fields).toBe('multifield');
    expect(why.terms.some((t) => t.term.startsWith('title:'))).toBe(true);
    expect(Math.fround(why.terms.reduce((s, t) => s + t.weight, 0))).toBe(why.total);
    expect(Math.round(why.total * 1e4) / 1e4).toBeCloseTo(list.scores[0]!, 5); // the run file prints the float in 6 decimals

    // Adding a ready one again only selects it; removing it drops its run.
    await lab.addAnserini({});
    expect(runLexical).toHaveBeenCalledTimes(2);
    await lab.remove('bm25-anserini');
    expect(engine.retrievers.runNames()).not.toContain('bm25-anserini');
    expect(await lab.explain(qid, list.docs[0]!, 'bm25-anserini')).toBeNull();
  });

  test('BM25 (Anserini) with k1 or b out of range is refused in words, and nothing is added', async () => {
    const { lab, engine } = await opened();
    await expect(lab.addAnserini({ b: 1.5 })).rejects.toThrow('BM25 b must be in [0, 1], got 1.5');
    await expect(lab.addAnserini({ k1: -1 })).rejects.toThrow('BM25 k1 must be a finite number ≥ 0, got -1');
    // The worker refuses it too (a page that did not check).
    expect(() => engine.retrievers.runLexical('bm25-anserini', { kind: 'anserini', params: { k1: 0.9, b: 2, fields: 'flat' } })).toThrow(
      'BM25 b must be in [0, 1], got 2',
    );
    expect(lab.retrievers.map((r) => r.id)).toEqual(['bm25']);
    expect(engine.retrievers.runNames()).toEqual(['bm25']);
  });

  test('an imported run with flips: the report equals the literal computation both ways round, under both labels', async () => {
    const { lab } = await opened();
    await lab.addRunFile(designedFile('some/folder/designed.trec'));
    expect(lab.retrievers.at(-1)).toEqual({
      id: 'designed.trec',
      name: 'designed.trec',
      kind: 'imported',
      status: 'ready',
      progress: { done: 7, total: 7, cached: 0, etaMs: 0, unit: 'queries' },
      recipe: expect.any(Array),
    });
    // The recipe names the file and counts its lines (one per ranked document).
    expect(lab.retrievers.at(-1)!.recipe!.find((r) => r.label === 'file')!.value).toBe('designed.trec');
    expect(Number(lab.retrievers.at(-1)!.recipe!.find((r) => r.label === 'lines')!.value)).toBeGreaterThan(7);
    expect(lab.view.candidates).toEqual(['designed.trec']);
    await lab.settled();
    expect(lab.report!.runs.find((r) => r.name === 'designed.trec')!.missing_queries).toBe(1);

    const any = await expectLiteral(lab, 'bm25', 'designed.trec');
    // The oracle itself: BM25's top-1 supports every query; the designed run keeps q1, q4 and q7 at k = 1.
    expect(any[1]).toEqual({ reference: 8, preserved: 3, broken: 5, fixed: 0, unchanged: 0 });
    expect(any[10]).toEqual({ reference: 8, preserved: 6, broken: 2, fixed: 0, unchanged: 0 });

    lab.setView({ label: 'strict' });
    expect(lab.report!.label).toBe('strict');
    await expectLiteral(lab, 'bm25', 'designed.trec');

    // The imported run as the reference, BM25 as the candidate: the broken queries become fixed ones.
    lab.setView({ label: 'any', reference: 'designed.trec', candidates: ['bm25'] });
    expect(lab.reference).toBe('designed.trec');
    expect(lab.candidates).toEqual(['bm25']);
    await lab.settled();
    expect(lab.report!.runs.map((r) => [r.name, r.role])).toEqual([
      ['designed.trec', 'reference'],
      ['bm25', 'candidate'],
    ]);
    const reversed = await expectLiteral(lab, 'designed.trec', 'bm25');
    expect(reversed[1]).toMatchObject({ reference: 3, fixed: 5, broken: 0 });
    expect(lab.metrics.find((m) => m.run === 'designed.trec')!.values['recip_rank_cut.10']).toBeCloseTo(
      literalMrr10(await workerRun(lab, 'designed.trec')),
      12,
    );
  });

  test('tests each measure of the table once the analysis is in: the same rows as `fliplab significance` on its runs', async () => {
    const { lab } = await opened();
    await lab.addRunFile(designedFile());
    await lab.settled();
    const report = lab.analysis.significance!;
    expect(report.reference).toBe('bm25');
    expect(report.family.members).toHaveLength(LAB_MEASURES.length);
    expect(report.rows.map((r) => r.measure)).toEqual(LAB_MEASURES.map((m) => trecEvalName(m.key)));
    const dir = mkdtempSync(join(tmpdir(), 'fliplab-lab-significance-'));
    try {
      for (const name of ['bm25', 'designed.trec']) writeFileSync(join(dir, name), await lab.lab.runText(name));
      const out = await cli(
        'significance',
        join(EXAMPLE, 'qrels/test.tsv'),
        '--reference',
        join(dir, 'bm25'),
        '--candidate',
        join(dir, 'designed.trec'),
        ...LAB_MEASURES.flatMap((m) => ['-m', m.key]),
        '--bootstrap',
        String(LAB_SIGNIFICANCE.bootstrap),
        '--json',
      );
      expect(out.code, out.stderr).toBe(0);
      const cliReport = JSON.parse(out.stdout) as typeof report;
      // trec_eval prints measures in its own order; the lab in the table's.
      const byMeasure = (rows: typeof report.rows) => [...rows].sort((a, b) => a.measure.localeCompare(b.measure));
      expect(byMeasure(report.rows)).toEqual(byMeasure(cliReport.rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Wins, ties and losses cover every paired query, and the designed run loses some at MRR@10.
    const rr = report.rows.find((r) => r.measure === 'recip_rank_cut_10')!;
    expect(rr.wins + rr.ties + rr.losses).toBe(rr.n);
    expect(rr.losses).toBeGreaterThan(0);
  });

  test('setView re-slices the report by label, k and depths without the worker; deeper depths or another level ask it again', async () => {
    const { lab, engine } = await opened();
    await lab.addRunFile(designedFile());
    await lab.settled();
    const prepare = vi.spyOn(engine.analysis, 'prepare');
    const metrics = vi.spyOn(engine.analysis, 'metrics');
    const before = lab.report;

    lab.setView({ label: 'strict' });
    expect(lab.report).not.toBe(before);
    expect(lab.report!.label).toBe('strict');
    lab.setView({ k: 5 });
    expect(lab.view.k).toBe(5);
    lab.setView({ depths: [10, 1, 5, 1] });
    expect(lab.view.depths).toEqual([1, 5, 10]);
    expect(lab.report!.depth_list).toEqual([1, 5, 10]);
    await expectLiteral(lab, 'bm25', 'designed.trec');
    // k must be one of the depths: 10 when it is there, else the smallest.
    lab.setView({ k: 10, depths: [2, 3] });
    expect(lab.view.k).toBe(2);
    lab.setView({ depths: [3, 10] });
    expect(lab.view.k).toBe(10);
    await lab.settled();
    expect(prepare).not.toHaveBeenCalled();
    expect(metrics).not.toHaveBeenCalled();

    // Beyond the prepared maximum (50): the report shows what it can at once, then the worker prepares deeper.
    lab.setView({ depths: [1, 100] });
    expect(lab.report!.depth_list).toEqual([1]);
    await lab.settled();
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(prepare.mock.calls[0]![2]).toEqual({ maxDepth: 100, relevanceLevel: 1, judgedOnly: false });
    expect(lab.report!.depth_list).toEqual([1, 100]);
    await expectLiteral(lab, 'bm25', 'designed.trec');

    // Another relevance level changes the cohort: prepared again (q8 has no grade-2 judgment).
    lab.setView({ level: 2 });
    await lab.settled();
    expect(prepare).toHaveBeenCalledTimes(2);
    expect(lab.report!.relevance_level).toBe(2);
    expect(lab.report!.queries).toBe(7);
    await expectLiteral(lab, 'bm25', 'designed.trec');
    // The same level again is no change.
    lab.setView({ level: 2 });
    await lab.settled();
    expect(prepare).toHaveBeenCalledTimes(2);
  });
});

describe('Lab reference rule', () => {
  test('the view reference when it names a retriever, else BM25 when present, else the first retriever', async () => {
    const { lab } = await opened([...TINY, designedFile()]);
    expect(lab.retrievers.map((r) => r.id)).toEqual(['designed', 'bm25']);
    expect(lab.reference).toBe('bm25'); // not the first retriever
    lab.setView({ reference: 'designed' });
    expect(lab.reference).toBe('designed');
    lab.setView({ reference: 'not-a-retriever' });
    expect(lab.reference).toBe('bm25');
    lab.setView({ reference: null, candidates: ['designed', 'bm25'] });
    expect(lab.candidates).toEqual(['designed']); // the reference is never a candidate

    await lab.remove('bm25');
    expect(lab.reference).toBe('designed');
    expect(lab.candidates).toEqual([]);
    await lab.remove('designed');
    expect(lab.reference).toBeNull();
  });
});

describe('Lab reports bad input where it belongs', () => {
  test('a corpus line that is not JSON: collectionError names file and line, the open collection stays', async () => {
    const { lab } = await opened();
    await lab.addBm25(1.2, 0.75);
    await lab.settled();
    const snapshot = () => ({
      collection: lab.collection,
      id: lab.collectionId,
      retrievers: lab.retrievers.map((r) => r.id),
      view: JSON.stringify(lab.view),
      report: lab.report,
    });
    const before = snapshot();

    const corpus = readFileSync(join(EXAMPLE, 'corpus.jsonl'), 'utf8').split('\n');
    corpus[2] = '{"_id": "d3", "title": "Harbour ferries", "text": unquoted}';
    const bad = [{ path: 'corpus.jsonl', bytes: bytes(corpus.join('\n')) }, TINY[1]!, TINY[2]!];
    expect(await lab.openFiles('files:bad', 'bad', bad)).toBe(false);

    expect(lab.collectionError).toMatchObject({ file: 'corpus.jsonl', line: 3 });
    expect(lab.collectionError!.message).toMatch(/JSON/);
    expect(lab.collectionError!.message).not.toMatch(/corpus\.jsonl/); // the reason alone; file and line are fields
    expect(lab.busy).toBeNull();
    expect(snapshot()).toEqual(before);
    // The worker still holds the previous collection and its runs.
    expect((await lab.loadDetail('q1', ['bm25-k1=1.2-b=0.75'], 1)).lists[0]!.docs[0]!.docId).toBe('d1');

    expect(await lab.openFiles('files:tiny', 'tiny', TINY)).toBe(true);
    expect(lab.collectionError).toBeNull();
  });

  test('a run file with a bad line: the error, with its file and line, is kept beside the import, not as a row', async () => {
    const { lab } = await opened();
    const rowsBefore = lab.retrievers.map((r) => r.id);
    await lab.addRunFile({ path: 'runs/broken.trec', bytes: bytes('q1 Q0 d1 1 9 x\nq2 Q0 d3 1\n') });
    expect(lab.retrievers.map((r) => r.id)).toEqual(rowsBefore);
    expect(lab.runImportErrors).toEqual([
      { file: 'runs/broken.trec', line: 2, message: expect.stringMatching(/^expected 6 columns .*"q2 Q0 d3 1"$/) },
    ]);
    expect(lab.retrievers.find((r) => r.id === 'bm25')!.status).toBe('ready');
    expect(lab.view.candidates).toEqual([]);
    expect(lab.reference).toBe('bm25');

    // Binary junk: named as such, never quoted as garbage.
    const junk = new Uint8Array(600).map((_, i) => (i * 7919 + 13) % 256);
    await lab.addRunFile({ path: 'junk.run', bytes: junk });
    const j = lab.runImportErrors.find((e) => e.file === 'junk.run')!;
    expect(j.message).toMatch(/binary data, not text/);
    expect([...j.message].some((c) => c === '\uFFFD' || c.charCodeAt(0) < 0x09)).toBe(false);
    expect(j.message.length).toBeLessThan(200);

    // The same file name again, now readable: its error goes, the run is added and selected.
    await lab.addRunFile(designedFile('runs/broken.trec'));
    expect(lab.runImportErrors.map((e) => e.file)).toEqual(['junk.run']);
    expect(lab.retrievers.filter((r) => r.id === 'broken.trec')).toEqual([expect.objectContaining({ status: 'ready' })]);
    expect(lab.view.candidates).toEqual(['broken.trec']);
  });
});

describe('Lab remove and cancel', () => {
  test('remove drops the row, the worker run and the view entry; removing the view reference falls back to BM25', async () => {
    const { lab, engine } = await opened();
    await lab.addBm25(1.2, 0.75);
    await lab.addRunFile(designedFile());
    await lab.settled();
    expect(lab.report!.runs.map((r) => r.name)).toEqual(['bm25', 'bm25-k1=1.2-b=0.75', 'designed.trec']);

    await lab.remove('bm25-k1=1.2-b=0.75');
    expect(lab.retrievers.map((r) => r.id)).toEqual(['bm25', 'designed.trec']);
    expect(engine.retrievers.runNames()).toEqual(['bm25', 'designed.trec']);
    expect(lab.view.candidates).toEqual(['designed.trec']);
    await lab.settled();
    expect(lab.report!.runs.map((r) => r.name)).toEqual(['bm25', 'designed.trec']);
    expect(lab.metrics.map((m) => m.run)).toEqual(['bm25', 'designed.trec']);

    lab.setView({ reference: 'designed.trec', candidates: ['bm25'] });
    await lab.remove('designed.trec');
    expect(lab.view.reference).toBeNull();
    expect(lab.reference).toBe('bm25');
    expect(lab.view.candidates).toEqual(['bm25']);
    await lab.settled();
    expect(lab.prepared).toBeNull(); // BM25 alone: nothing to compare
    expect(lab.report).toBeNull();
    expect(lab.metrics.map((m) => m.run)).toEqual(['bm25']);

    // Without any retriever nothing is measured: no rows of removed runs linger.
    await lab.remove('bm25');
    await lab.settled();
    expect(lab.retrievers).toEqual([]);
    expect(lab.metrics).toEqual([]);
    expect(engine.retrievers.runNames()).toEqual([]);
  });

  test('an encoder run grows batch by batch, is analysed while partial, then is ready', async () => {
    const held = hold();
    const { lab, id, job, encode, engine } = await encoding({ batch: 4, holdAfterFirstBatch: held });
    await held.reached;
    await vi.waitFor(() => expect(lab.retrievers.find((r) => r.id === id)?.partial).toEqual({ encodedDocs: 4, totalDocs: 12 }));
    const row = lab.retrievers.find((r) => r.id === id)!;
    expect(row).toMatchObject({ kind: 'dense', status: 'encoding', device: 'wasm', dtype: 'fp32' });
    expect(lab.partial).toEqual([id]);
    expect(lab.usable).toContain(id);
    expect(lab.view.candidates).toEqual([id]);
    await vi.waitFor(() => expect(lab.analyzedPartial).toEqual([id]));
    await lab.settled();
    expect(lab.metrics.find((m) => m.run === id)!.partial).toBe(true);
    // Only the four passages seen so far can be ranked.
    const partialRun = await workerRun(lab, id);
    expect(new Set([...partialRun.byQuery.values()].flatMap((l) => l.docs))).toEqual(new Set(['d1', 'd2', 'd3', 'd4']));
    await expectLiteral(lab, 'bm25', id);

    held.release();
    await job;
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({
      status: 'ready',
      partial: { encodedDocs: 12, totalDocs: 12 },
      cached: false,
    });
    expect(lab.partial).toEqual([]);
    await lab.settled();
    expect(lab.analyzedPartial).toEqual([]);
    expect(lab.metrics.find((m) => m.run === id)!.partial).toBe(false);
    expect(engine.retrievers.run(id).byQuery.get('q1' as never)!.docs).toHaveLength(12);
    await expectLiteral(lab, 'bm25', id);
    expect(encode.log).toEqual(['init 1', 'encode query 8 on 1', 'encode passage 12 on 1']);
  });

  test('a run whose queries are encoded but no passage yet stays out of the analysis until its first batch', async () => {
    const held = hold();
    const { lab, id, job } = await encoding({ batch: 4, holdBeforeFirstBatch: held });
    await held.reached;
    await vi.waitFor(() => expect(lab.retrievers.find((r) => r.id === id)?.partial).toEqual({ encodedDocs: 0, totalDocs: 12 }));
    expect(lab.retrievers.find((r) => r.id === id)!.status).toBe('encoding');
    expect(lab.view.candidates).toEqual([id]); // chosen, but not analysed yet
    expect(lab.usable).not.toContain(id);
    expect(lab.candidates).toEqual([]);
    await lab.settled();
    expect(lab.report).toBeNull();
    expect(lab.metrics.map((m) => m.run)).toEqual(['bm25']);
    held.release();
    await vi.waitFor(() => expect(lab.candidates).toEqual([id]));
    await job;
    await lab.settled();
    expect(lab.report!.runs.map((r) => r.name)).toEqual(['bm25', id]);
  });

  test('a run replayed from the cache joins the analysis in one step (no counts climbing batch by batch)', async () => {
    const held = hold();
    const { lab, id, job } = await encoding({ batch: 4, holdAfterFirstBatch: held, fromCache: true });
    await held.reached;
    await vi.waitFor(() => expect(lab.retrievers.find((r) => r.id === id)?.progress).toMatchObject({ done: 4, cached: 4 }));
    expect(lab.restoring).toEqual([id]);
    await lab.settled();
    expect(lab.report).toBeNull(); // bm25 alone: nothing to compare yet, and no intermediate numbers for the replayed run
    held.release();
    await job;
    await lab.settled();
    expect(lab.restoring).toEqual([]);
    expect(lab.report!.runs.map((r) => r.name)).toEqual(['bm25', id]);
    expect(lab.analyzedPartial).toEqual([]);
  });

  test('resume continues a cancelled encoder (the same job again; committed batches come from the cache)', async () => {
    const held = hold();
    const { lab, id, job, encode } = await encoding({ holdAfterFirstBatch: held });
    await held.reached;
    lab.cancel(id);
    await job;
    expect(lab.retrievers.find((r) => r.id === id)!.status).toBe('cancelled');
    held.release();
    await lab.resume('bm25'); // not an encoder: nothing happens
    await lab.resume(id);
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({ status: 'ready', partial: { encodedDocs: 12, totalDocs: 12 } });
    expect(lab.retrievers.find((r) => r.id === id)!.recipe!.find((x) => x.label === 'passages encoded')!.value).toBe('12 of 12');
    expect(encode.started()).toBe(2);
  });

  test('cancel stops a running encoder job: cancelled row, encode worker ended, no longer a candidate; adding it again restarts', async () => {
    const held = hold();
    const { lab, id, job, encode, config } = await encoding({ holdAfterFirstBatch: held }, encoderConfig('e5-small', { dtype: 'q8' }));
    await held.reached;
    await vi.waitFor(() => expect(lab.candidates).toEqual([id]));

    lab.cancel('bm25'); // no job: nothing happens
    lab.cancel(id);
    await job;
    expect(lab.retrievers.find((r) => r.id === id)!.status).toBe('cancelled');
    expect(encode.log.at(-1)).toBe('terminate 1');
    expect(lab.retrievers.find((r) => r.id === 'bm25')!.status).toBe('ready');
    expect(lab.usable).toEqual(['bm25']);
    expect(lab.candidates).toEqual([]);
    await lab.settled();
    expect(lab.prepared).toBeNull();

    held.release(); // the ended worker's job may not touch the row any more
    const again = lab.addEncoder(config);
    await again;
    expect(lab.retrievers.find((r) => r.id === id)!.status).toBe('ready');
    expect(encode.started()).toBe(2);
    expect(lab.candidates).toEqual([id]);
  });

  test('removing an encoder while its run is being started leaves no row, no worker run and no candidate', async () => {
    const engine = new LabEngine();
    const api = labApiForTest(engine);
    const gate = hold();
    const begin = api.beginVectorRun;
    // The run starts in the worker at once (as the real, synchronous call does); only the answer is held.
    const withGate = {
      ...api,
      beginVectorRun: async (...args: Parameters<typeof begin>) => {
        const started = begin(...args);
        await gate.wait();
        return started;
      },
    };
    const createLabWorker = (): Worker => {
      const { port1, port2 } = new MessageChannel();
      expose(withGate, port2);
      return Object.assign(port1, { terminate: () => (port1.close(), port2.close()) }) as unknown as Worker;
    };
    const lab = new Lab({
      settings: { ...DEFAULT_SETTINGS, device: 'wasm' },
      createLabWorker,
      bridge: new EncodeBridge({ createWorker: fakeEncodeWorkers().create }),
    });
    labs.push(lab);
    await lab.openFiles('files:tiny', 'tiny', TINY);
    const config = encoderConfig('bge-small');
    const id = encoderRunId(config);
    const job = lab.addEncoder(config);
    await gate.reached;
    const removing = lab.remove(id);
    gate.release();
    await Promise.all([job, removing]);
    await lab.settled();
    expect(lab.retrievers.map((r) => r.id)).toEqual(['bm25']);
    expect(engine.retrievers.runNames()).toEqual(['bm25']);
    expect(lab.view.candidates).toEqual([]);
  });
});

describe('Lab deep links', () => {
  test('reopening the same collection restores the BM25 retrievers the view names, reference included', async () => {
    const { lab } = setup();
    lab.view = {
      ...DEFAULT_VIEW,
      collection: 'files:tiny',
      reference: 'bm25-k1=1.2-b=0.75',
      candidates: ['bm25-k1=0.9-b=0.4'],
      query: 'q3',
    };
    await lab.openFiles('files:tiny', 'tiny', TINY);
    await lab.settled();
    expect(lab.retrievers.map((r) => [r.id, r.status])).toEqual([
      ['bm25', 'ready'],
      ['bm25-k1=1.2-b=0.75', 'ready'],
      ['bm25-k1=0.9-b=0.4', 'ready'],
    ]);
    expect(lab.reference).toBe('bm25-k1=1.2-b=0.75');
    expect(lab.view.query).toBe('q3');
    expect(lab.candidates).toEqual(['bm25-k1=0.9-b=0.4']);
    expect(lab.report!.runs.map((r) => [r.name, r.role])).toEqual([
      ['bm25-k1=1.2-b=0.75', 'reference'],
      ['bm25-k1=0.9-b=0.4', 'candidate'],
    ]);
    await expectLiteral(lab, 'bm25-k1=1.2-b=0.75', 'bm25-k1=0.9-b=0.4');
  });

  test('BM25 (Anserini) runs named by a link come back; a malformed name is refused on its row, in words', async () => {
    const { lab } = setup();
    const bad = 'bm25-anserini-k1=x-b=0.4';
    lab.view = {
      ...DEFAULT_VIEW,
      collection: 'files:tiny',
      reference: 'bm25-anserini',
      candidates: ['bm25-anserini-multifield-k1=1.2-b=0.75', bad, 'bm25-anserini-k1=0.9-b=0.4'],
    };
    await lab.openFiles('files:tiny', 'tiny', TINY);
    await lab.settled();
    expect(lab.retrievers.map((r) => [r.id, r.status])).toEqual([
      ['bm25', 'ready'],
      ['bm25-anserini', 'ready'],
      ['bm25-anserini-multifield-k1=1.2-b=0.75', 'ready'],
      [bad, 'error'],
      // The defaults are never written out: "bm25-anserini" is that run's one name.
      ['bm25-anserini-k1=0.9-b=0.4', 'error'],
    ]);
    expect(lab.retrievers[3]!.error).toBe(anseriniNameProblem(bad));
    expect(lab.retrievers[3]!.error).toMatch(/^"bm25-anserini-k1=x-b=0\.4" is not a BM25 \(Anserini\) run name: expected bm25-anserini or/);
    expect(lab.reference).toBe('bm25-anserini');
    expect(lab.candidates).toEqual(['bm25-anserini-multifield-k1=1.2-b=0.75']);
    expect(lab.report!.runs.map((r) => [r.name, r.role])).toEqual([
      ['bm25-anserini', 'reference'],
      ['bm25-anserini-multifield-k1=1.2-b=0.75', 'candidate'],
    ]);
    await expectLiteral(lab, 'bm25-anserini', 'bm25-anserini-multifield-k1=1.2-b=0.75');
    // The refused row can be removed like any other.
    await lab.remove(bad);
    expect(lab.retrievers.map((r) => r.id)).not.toContain(bad);
  });

  test('an encoder named as the reference is restored too; the analysis waits for its run instead of failing', async () => {
    const held = hold();
    const { lab } = setup({ encode: fakeEncodeWorkers({ holdQueries: held }) });
    lab.view = { ...DEFAULT_VIEW, collection: 'files:tiny', reference: 'bge-small', candidates: ['bm25-k1=1.2-b=0.75'] };
    await lab.openFiles('files:tiny', 'tiny', TINY);
    await held.reached;
    await lab.settled();
    expect(lab.retrievers.map((r) => [r.id, r.status])).toEqual([
      ['bm25', 'ready'],
      // Held before the job's first report: it starts by looking in this browser's cache.
      ['bge-small', 'checking'],
      ['bm25-k1=1.2-b=0.75', 'ready'],
    ]);
    expect(lab.reference).toBe('bge-small');
    expect(lab.analysisError).toBeNull();
    expect(lab.metrics).toEqual([]);
    expect(lab.report).toBeNull();

    held.release();
    await vi.waitFor(() => expect(lab.retrievers.find((r) => r.id === 'bge-small')!.status).toBe('ready'));
    await lab.settled();
    expect(lab.analysisError).toBeNull();
    expect(lab.report!.runs.map((r) => [r.name, r.role])).toEqual([
      ['bge-small', 'reference'],
      ['bm25-k1=1.2-b=0.75', 'candidate'],
    ]);
    await expectLiteral(lab, 'bge-small', 'bm25-k1=1.2-b=0.75');
  });

  test('a local model folder named by the view: a cached run comes back without it; otherwise the row asks for it', async () => {
    const id = encoderRunId(encoderConfig('bge-small', { model: 'local/my-model', revision: 'abc123' }));
    // The folder's fingerprint (its revision, part of the cache keys) was kept when it was picked.
    localStorage.setItem('fliplab.localModelRevisions', JSON.stringify({ 'local/my-model': 'sha256-feedbeef' }));
    for (const fromCache of [true, false]) {
      const encode = fakeEncodeWorkers({ noLocalFolder: true, fromCache });
      const { lab } = setup({ encode });
      lab.view = { ...DEFAULT_VIEW, collection: 'files:tiny', candidates: [id] };
      await lab.openFiles('files:tiny', 'tiny', TINY);
      await vi.waitFor(() => expect(['ready', 'error']).toContain(lab.retrievers.find((r) => r.id === id)?.status));
      const row = lab.retrievers.find((r) => r.id === id)!;
      expect(encode.revisions[0]).toBe('sha256-feedbeef');
      if (fromCache) {
        expect(row.status).toBe('ready');
        await lab.settled();
        expect(lab.report!.runs.map((r) => r.name)).toEqual(['bm25', id]);
      } else {
        expect(row.status).toBe('error');
        expect(row.error).toMatch(/^pick the model folder "my-model" again to encode the rest/);
      }
    }
  });

  test('another collection starts from a clean view', async () => {
    const { lab } = setup();
    lab.view = {
      ...DEFAULT_VIEW,
      collection: 'beir:scifact',
      reference: 'bm25-k1=1.2-b=0.75',
      candidates: ['bm25-k1=0.9-b=0.4'],
      query: 'q3',
    };
    await lab.openFiles('files:tiny', 'tiny', TINY);
    await lab.settled();
    expect(lab.view).toMatchObject({ collection: 'files:tiny', reference: null, candidates: [], query: null });
    expect(lab.retrievers.map((r) => r.id)).toEqual(['bm25']);
  });

  test('dispose ends the lab worker and the encode worker', async () => {
    const encode = fakeEncodeWorkers();
    const { lab, labWorkerEnded } = setup({ encode });
    await lab.openFiles('files:tiny', 'tiny', TINY);
    await lab.addEncoder(encoderConfig('bge-small'));
    expect(encode.log.at(-1)).not.toMatch(/^terminate/);
    expect(labWorkerEnded()).toBe(false);
    lab.dispose();
    expect(encode.log.at(-1)).toBe('terminate 1');
    expect(labWorkerEnded()).toBe(true);
  });
});

describe('Lab says what an encoder is doing (phases from the job, not guessed from counts)', () => {
  type Seen = {
    role: 'query' | 'passage';
    phase: string;
    status: string;
    device: string | undefined;
    reason: string | null | undefined;
    text: string;
  };

  /** An encoder job on the fake workers, every report's effect on the row recorded (status, device, the row's progress line). */
  async function watched(options: FakeEncodeOptions) {
    const seen: Seen[] = [];
    const updating: string[] = [];
    const ref: { lab?: Lab } = {};
    const id = encoderRunId(encoderConfig('bge-small'));
    const encode = fakeEncodeWorkers({
      ...options,
      onReported: (role, p) => {
        const row = ref.lab!.retrievers.find((r) => r.id === id)!;
        seen.push({
          role,
          phase: p.phase,
          status: row.status,
          device: row.device,
          reason: row.deviceReason,
          text: row.progress ? describeRowProgress(row.status, row.progress) : '',
        });
        const held = ref.lab!.retrievers.filter((r) => ref.lab!.restoring.includes(r.id));
        if (held.length > 0) updating.push(updatingText(held));
      },
    });
    const s = setup({ encode });
    const lab = s.lab;
    ref.lab = lab;
    await lab.openFiles('files:tiny', 'tiny', TINY);
    const job = lab.addEncoder(encoderConfig('bge-small'));
    return { ...s, lab, id, job, seen, updating };
  }
  const FROM_CACHE = "no model loaded: every vector came from this browser's cache";

  test('a fresh encoder with an empty cache: checks the cache, loads the model, encodes on its device; never "restoring"', async () => {
    const { lab, id, job, seen, updating } = await watched({ batch: 4 });
    await job;
    expect(seen[0]).toMatchObject({ role: 'query', phase: 'reading-cache', status: 'checking', device: undefined });
    expect(seen.map((x) => x.status)).not.toContain('restoring');
    expect([...new Set(seen.map((x) => `${x.role} ${x.status}`))]).toEqual([
      'query checking',
      'query loading',
      'query encoding',
      'passage checking',
      // The model is loaded already (same worker): no second "loading model".
      'passage encoding',
    ]);
    // The lookup counts from the first report, and says nothing was found.
    expect(seen.find((x) => x.role === 'passage' && x.status === 'checking')!.text).toBe('0 of 12 passages looked up · none stored yet');
    const loading = seen.find((x) => x.status === 'loading')!;
    expect(loading).toMatchObject({ device: undefined, reason: undefined, text: '8 queries to encode once the model is loaded' });
    // While encoding, the device column names the device that encodes, with no reason (none was needed).
    for (const x of seen.filter((x) => x.status === 'encoding')) expect(x).toMatchObject({ device: 'wasm', reason: null });
    const passages = seen.filter((x) => x.role === 'passage' && x.status === 'encoding').map((x) => x.text);
    expect(passages[0]).toBe('0 of 12 passages · 0% · estimating…');
    expect(passages[1]).toBe('4 of 12 passages · 33% · 4,000 passages/s · less than a second left');
    expect(updating.some((t) => /restor/.test(t))).toBe(false);
    expect(updating).toContain("Updating: bge-small is checking this browser's cache; the analysis shows it when complete.");
    expect(updating).toContain('Updating: bge-small is encoding its first passages; the analysis shows it when complete.');
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({ status: 'ready', device: 'wasm', deviceReason: null, cached: false });
  });

  test('a fully cached encoder: checking, then restoring n of N; no model, and only then the device column says "cache"', async () => {
    const { lab, id, job, seen, updating } = await watched({ batch: 4, fromCache: true });
    await job;
    expect(seen.map((x) => x.status)).not.toContain('loading');
    expect(seen.map((x) => x.status)).not.toContain('encoding');
    expect(seen[0]).toMatchObject({ status: 'checking', text: '0 of 8 queries looked up · none stored yet' });
    const restoring = seen.filter((x) => x.role === 'passage' && x.status === 'restoring').map((x) => x.text);
    expect(restoring).toEqual([
      '4 of 12 passages restored · 4 looked up',
      '8 of 12 passages restored · 8 looked up',
      '12 of 12 passages restored',
    ]);
    // Nothing encodes while the cache is read: no device is named, and no reason.
    for (const x of seen) expect(x).toMatchObject({ device: undefined, reason: undefined });
    expect(updating).toContain(
      "Updating: bge-small is being restored from this browser's cache (4 of 12 passages); the analysis shows it when complete.",
    );
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({
      status: 'ready',
      device: 'cache',
      deviceReason: FROM_CACHE,
      cached: true,
    });
  });

  test('a resumed encoder, half cached: restores what is stored, loads the model, encodes the rest on its device', async () => {
    const held = hold();
    const { lab, id, job, seen, updating } = await watched({ batch: 4, cachedPassages: 6, holdAt: { phase: 'loading-model', hold: held } });
    await held.reached;
    // Loading the model: said as such, with what was restored and what is left; no device yet, and not "cache".
    const row = lab.retrievers.find((r) => r.id === id)!;
    expect(row).toMatchObject({ status: 'loading', progress: { done: 6, cached: 6, total: 12, checked: 12 } });
    expect(row.device).toBeUndefined();
    expect(row.deviceReason).toBeUndefined();
    expect(describeRowProgress(row.status, row.progress!)).toBe('6 of 12 passages restored · 6 to encode once the model is loaded');
    expect(updatingText([row])).toBe('Updating: bge-small is loading its model; the analysis shows it when complete.');
    held.release();
    await job;
    expect([...new Set(seen.map((x) => `${x.role} ${x.status}`))]).toEqual([
      'query checking',
      'query restoring',
      'passage checking',
      'passage restoring',
      'passage loading',
      'passage encoding',
    ]);
    expect(seen.filter((x) => x.role === 'passage' && x.status === 'restoring').at(-1)!.text).toBe('6 of 12 passages restored');
    const encoding = seen.filter((x) => x.status === 'encoding');
    for (const x of encoding) expect(x).toMatchObject({ device: 'wasm', reason: null });
    expect(encoding[0]!.text).toBe('6 of 12 passages (6 cached) · 50% · estimating…');
    expect(seen.some((x) => x.reason === FROM_CACHE)).toBe(false);
    expect(updating).toContain('Updating: bge-small is encoding its first passages; the analysis shows it when complete.');
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({
      status: 'ready',
      device: 'wasm',
      deviceReason: null,
      cached: false,
      progress: { cached: 6, done: 12, total: 12 },
    });
  });

  test('a download held for the go-ahead stays "download?" when a load report crosses the plan; then loads and encodes', async () => {
    const held = hold();
    const { lab, id, job } = await watched({ downloadBytes: 2e9, holdAt: { role: 'query', phase: 'loading-model', hold: held } });
    await held.reached; // the late "loading-model" report has been handled
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({ status: 'confirm', download: { downloadBytes: 2e9 } });
    held.release();
    lab.confirmDownload(id);
    await job;
    expect(lab.retrievers.find((r) => r.id === id)).toMatchObject({ status: 'ready', device: 'wasm', deviceReason: null });
  });
});
