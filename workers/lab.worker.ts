/**
 * Lab worker: the engine (src/lab/engine.ts) behind comlink, so parsing a collection, indexing it for
 * BM25, growing encoder runs, preparing flips and measuring runs never block the page. Answers are small
 * plain objects; typed arrays are transferred, not copied.
 */
import { expose, transfer } from 'comlink';
import { installErrorTransfer } from '../src/lab/errors.ts';
import { parseRun } from '../src/core/io/trec.ts';
import type { PreparedFlips } from '../src/core/flips/analyze.ts';
import type { Bm25Params } from '../src/core/retrieve/bm25.ts';
import type { StoredVector } from '../src/encoders/pooling.ts';
import { loadCollection } from '../src/lab/data/load.ts';
import type { CollectionFile } from '../src/lab/data/types.ts';
import { LabEngine, type CollectionSummary, type RunSummary } from '../src/lab/engine.ts';
import { guardNetwork } from '../src/lab/network-guard.ts';
import type { MetricsRow } from '../src/report/metrics.ts';
import type { QueryDetail } from '../src/lab/types.ts';
import type { AgreementReport } from '../src/core/agreement/index.ts';

const engine = new LabEngine();

function preparedBuffers(p: PreparedFlips): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [p.reference.ranks.any, p.reference.ranks.strict];
  for (const c of p.candidates) {
    arrays.push(c.ranks.any, c.ranks.strict, c.alternation.any, c.alternation.strict, c.rrf.any, c.rrf.strict, c.union.any, c.union.strict);
    arrays.push(c.alternationLength, c.rrfLength, c.unionSizeTotal);
  }
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

const api = {
  /** Only these origins may be fetched from this worker (the page's CSP does not reach workers). */
  allowOrigins(origins: readonly string[]): void {
    guardNetwork(origins);
  },

  async openFiles(files: readonly CollectionFile[], options: { name: string; split?: string }): Promise<CollectionSummary> {
    const collection = await loadCollection(files, options.split === undefined ? { name: options.name } : { name: options.name, split: options.split });
    return engine.open(collection);
  },

  summary(): CollectionSummary {
    return engine.summary();
  },

  runBm25(name: string, params: Partial<Bm25Params>, onProgress?: (done: number, total: number) => void): RunSummary {
    return engine.runBm25(name, params, onProgress ? (d, t) => void onProgress(d, t) : undefined);
  },

  evaluatedQueries(): { ids: string[]; texts: string[] } {
    return engine.evaluatedQueries();
  },

  passageTexts(): string[] {
    return engine.passageTexts();
  },

  beginVectorRun(name: string, queryVectors: readonly StoredVector[]): RunSummary {
    return engine.beginVectorRun(name, queryVectors);
  },

  addVectors(name: string, positions: readonly number[], vectors: readonly StoredVector[]): RunSummary {
    return engine.addVectors(name, positions, vectors);
  },

  async addRunFile(file: CollectionFile, name?: string): Promise<RunSummary> {
    const parsed = await parseRun(file.bytes, file.path, name);
    return engine.addRun(parsed.value);
  },

  removeRun(name: string): void {
    engine.removeRun(name);
  },

  runNames(): string[] {
    return engine.runNames();
  },

  prepare(reference: string, candidates: readonly string[], options: { maxDepth: number; relevanceLevel?: number }): PreparedFlips {
    const prepared = engine.prepare(reference, candidates, options);
    return transfer(prepared, preparedBuffers(prepared));
  },

  metrics(names: readonly string[], partial: readonly string[], relevanceLevel = 1): MetricsRow[] {
    return engine.metrics(names, partial, relevanceLevel);
  },

  detail(qid: string, runs: readonly string[], k: number): QueryDetail {
    return engine.detail(qid, runs, k);
  },

  passage(docId: string): { title: string; text: string } {
    return engine.passage(docId);
  },

  queryTexts(): Record<string, string> {
    return engine.queryTexts();
  },

  runText(name: string): string {
    return engine.runText(name);
  },

  trecEval(name: string, relevanceLevel = 1): string {
    return engine.trecEval(name, relevanceLevel);
  },

  compare(reference: string, candidates: readonly string[], depths: readonly number[]): AgreementReport {
    return engine.compare(reference, candidates, depths);
  },
};

export type LabApi = typeof api;
installErrorTransfer();
expose(api);
