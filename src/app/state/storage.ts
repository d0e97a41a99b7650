/**
 * What the lab keeps in this browser, with sizes, and how to delete it: collections (their own store),
 * embeddings per encoding (IndexedDB, src/store) and model files (transformers.js's Cache Storage, keyed by
 * URL; grouped here by model repo), reader answers (written queries among them), a judge's verdicts and imported
 * model layers. Plain async functions: the storage panel calls them on demand.
 */
import { MODEL_FILE_CACHE } from '../../encoders/presets.ts';
import { EmbeddingStore, type EncodingRecord } from '../../store/embeddings.ts';
import { AnswerStore } from '../../store/answers.ts';
import { AnswerInputStore, type StoredInputsSummary } from '../../store/answer-inputs.ts';
import { CollectionStore } from '../../lab/data/collection-store.ts';
import { JudgmentStore } from '../../store/judgments.ts';
import { VerdictStore } from '../../store/verdicts.ts';
import { ModelLayerStore } from '../../store/model-layers.ts';
import { tabChannel } from './tabs.ts';
import { withStore } from '../../store/with-store.ts';

export interface ModelFiles {
  /** "host/org/name" (mirrors are listed apart). */
  readonly model: string;
  readonly files: number;
  readonly bytes: number;
  readonly urls: readonly string[];
}

export interface StorageOverview {
  readonly usage: number | null;
  readonly quota: number | null;
  readonly persisted: boolean | null;
  readonly encodings: readonly EncodingRecord[];
  readonly models: readonly ModelFiles[];
  /** Reader answers kept for answer-level flips (src/store/answers.ts). */
  readonly answers: number;
  /** Gold files and imported predictions, per collection (src/store/answer-inputs.ts), with the collection's name when it is stored. */
  readonly answerInputs: readonly (StoredInputsSummary & { readonly name: string | null })[];
  /** A model judge's verdicts, cached by judge and pair (src/store/verdicts.ts). */
  readonly verdicts: number;
  /** Model layers imported from files (src/store/model-layers.ts): how many, and their labels in all. */
  readonly modelLayers: { readonly layers: number; readonly labels: number };
  /** Judgments the user added, per collection (src/store/judgments.ts). */
  readonly judgments: readonly { readonly collectionId: string; readonly judgments: number; readonly name: string | null }[];
}

/** "https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model.onnx" → "huggingface.co/Xenova/bge-small-en-v1.5". */
export function modelOf(url: string): string {
  const u = new URL(url);
  const at = u.pathname.indexOf('/resolve/');
  const repo = at >= 0 ? u.pathname.slice(1, at) : u.pathname.slice(1).split('/').slice(0, 2).join('/');
  return `${u.host}/${decodeURIComponent(repo)}`;
}

async function modelFiles(): Promise<ModelFiles[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(MODEL_FILE_CACHE);
  const groups = new Map<string, { files: number; bytes: number; urls: string[] }>();
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    const length = Number(response?.headers.get('content-length') ?? NaN);
    const bytes = Number.isFinite(length) ? length : ((await response?.blob())?.size ?? 0);
    const key = modelOf(request.url);
    const g = groups.get(key) ?? { files: 0, bytes: 0, urls: [] };
    g.files++;
    g.bytes += bytes;
    g.urls.push(request.url);
    groups.set(key, g);
  }
  return [...groups].map(([model, g]) => ({ model, ...g })).sort((a, b) => a.model.localeCompare(b.model));
}

export async function storageOverview(dbName?: string): Promise<StorageOverview> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  const persisted = (await navigator.storage?.persisted?.().catch(() => null)) ?? null;
  const store = await EmbeddingStore.open(dbName);
  try {
    const encodings = (await store.list()).sort((a, b) => b.createdAt - a.createdAt);
    const answerStore = await AnswerStore.open();
    const answers = await answerStore.count().finally(() => answerStore.close());
    const answerInputs = await answerInputsOverview();
    const judgments = await judgmentsOverview();
    const verdicts = await withStore(
      () => VerdictStore.open(),
      (s) => s.count(),
    );
    const modelLayers = await withStore(
      () => ModelLayerStore.open(),
      (s) => s.summary(),
    );
    return {
      usage: estimate?.usage ?? null,
      quota: estimate?.quota ?? null,
      persisted,
      encodings,
      models: await modelFiles(),
      answers,
      answerInputs,
      judgments,
      verdicts,
      modelLayers,
    };
  } finally {
    store.close();
  }
}

export async function deleteEncoding(encoding: string, dbName?: string): Promise<void> {
  const store = await EmbeddingStore.open(dbName);
  try {
    await store.delete(encoding);
  } finally {
    store.close();
  }
}

export async function deleteModelFiles(urls: readonly string[]): Promise<void> {
  const cache = await caches.open(MODEL_FILE_CACHE);
  for (const url of urls) await cache.delete(url);
}

/** Delete every cached verdict of every judge (judging again judges each pair anew). */
export async function deleteVerdicts(): Promise<void> {
  await withStore(
    () => VerdictStore.open(),
    (s) => s.clear(),
  );
}

/** Delete every imported model layer (a page holding one keeps it until it reloads). */
export async function deleteModelLayers(): Promise<void> {
  await withStore(
    () => ModelLayerStore.open(),
    (s) => s.clear(),
  );
}

/** Delete every cached reader answer (the next request generates them again). */
export async function deleteAnswers(): Promise<void> {
  await withStore(
    () => AnswerStore.open(),
    (s) => s.clear(),
  );
}

const withAnswerInputs = <T>(use: (store: AnswerInputStore) => Promise<T>): Promise<T> => withStore(() => AnswerInputStore.open(), use);

async function answerInputsOverview(): Promise<StorageOverview['answerInputs']> {
  return named(await withAnswerInputs((s) => s.summaries()));
}

/** Per-collection rows with the collection's name when it is stored. */
async function named<T extends { readonly collectionId: string }>(rows: readonly T[]): Promise<(T & { readonly name: string | null })[]> {
  if (rows.length === 0) return [];
  const collections = new CollectionStore();
  try {
    const names = new Map((await collections.list()).map((m) => [m.id, m.name]));
    return rows.map((s) => ({ ...s, name: names.get(s.collectionId) ?? null }));
  } finally {
    collections.close();
  }
}

const withJudgments = <T>(use: (store: JudgmentStore) => Promise<T>): Promise<T> => withStore(() => JudgmentStore.open(), use);

async function judgmentsOverview(): Promise<StorageOverview['judgments']> {
  return named(await withJudgments((s) => s.summaries()));
}

/**
 * Delete the judgments added to one collection (all collections without an id). Every tab showing them,
 * this one too, is told and reads the layer again.
 */
export async function deleteJudgments(collectionId?: string): Promise<void> {
  const ids = await withJudgments(async (s) => {
    const held = collectionId === undefined ? (await s.summaries()).map((c) => c.collectionId) : [collectionId];
    if (collectionId === undefined) await s.clear();
    else await s.put(collectionId, []);
    return held;
  });
  const tabs = tabChannel(() => undefined);
  for (const id of ids) tabs.post({ kind: 'judgments', collectionId: id });
  tabs.close();
}

/**
 * Delete the gold file and imported predictions kept for one collection (all collections without an id). A
 * page showing them keeps them until that collection is opened again.
 */
export async function deleteAnswerInputs(collectionId?: string): Promise<void> {
  await withAnswerInputs((s) => (collectionId === undefined ? s.clear() : s.deleteCollection(collectionId)));
}

/** Ask the browser to keep the lab's storage under pressure (it may say no). */
export async function requestPersistence(): Promise<boolean> {
  return (await navigator.storage?.persist?.().catch(() => false)) ?? false;
}
