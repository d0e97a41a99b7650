/**
 * Fakes of the lab's state objects for the shell panel tests. The real `Lab` starts Web Workers (jsdom has
 * none) and `Collections` talks to IndexedDB and the network, so the panels get objects of the same shape:
 * runes-backed fields the test sets, and `vi.fn` spies in place of the methods. `asLab`/`asCollections`
 * check at compile time that the fakes have the members the panels use, with the real types.
 */
import type { SignificanceReport } from '../../../src/core/stats/significance.ts';
import { vi, type Mock } from 'vitest';
import type { FlipReport } from '../../../src/core/flips/analyze.ts';
import { BEIR_CATALOG } from '../../../src/lab/data/catalog.ts';
import type { CollectionFile, CollectionMeta } from '../../../src/lab/data/types.ts';
import type { CollectionSummary } from '../../../src/worker/engine.ts';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/app/settings.ts';
import type { Collections, DownloadState } from '../../../src/app/state/collections.svelte.ts';
import type { CollectionError, Lab } from '../../../src/app/state/lab.svelte.ts';
import { chooseCandidates, chooseReference } from '../../../src/app/state/reference.ts';
import type { EncoderConfig } from '../../../src/encoders/presets.ts';
import type { AnseriniParams } from '../../../src/core/retrieve/bm25-anserini.ts';
import { DEFAULT_VIEW, type MetricsRow, type RetrieverInfo, type ViewState } from '../../../src/app/types.ts';

type LabApi = Lab['lab'];
/** The call signature of one worker method as the main thread sees it (comlink: results as promises). */
type WorkerCall<K extends keyof LabApi> = LabApi[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;

/** The worker calls the panels make (`lab.lab.*`), as spies; each returns what the test tells it to. */
export interface FakeLabApi {
  compare: Mock<WorkerCall<'compare'>>;
  depthWarnings: Mock<WorkerCall<'depthWarnings'>>;
}

export class FakeLab {
  settings: Settings = $state({ ...DEFAULT_SETTINGS });
  view: ViewState = $state({ ...DEFAULT_VIEW });
  collection: CollectionSummary | null = $state.raw(null);
  collectionError: CollectionError | null = $state.raw(null);
  busy: string | null = $state(null);
  retrievers: RetrieverInfo[] = $state([]);
  report: FlipReport | null = $state.raw(null);
  metrics: MetricsRow[] = $state.raw([]);
  partial: string[] = $state([]);
  analyzedPartial: string[] = $state([]);
  /** The analysis' paired tests, as the real Analysis publishes them (tests set them). */
  analysis: { significance: SignificanceReport | null } = $state({ significance: null });
  settled = async (): Promise<void> => {};

  /** The real lab's rules (src/app/state/reference.ts), on the fields the test sets. */
  get reference(): string | null {
    return chooseReference(this.view, this.retrievers);
  }

  get candidates(): string[] {
    return chooseCandidates(this.view, this.retrievers);
  }

  setView = vi.fn((patch: Partial<ViewState>): void => {
    this.view = { ...this.view, ...patch };
  });
  cancel = vi.fn((_id: string): void => {});
  resume = vi.fn(async (_id: string): Promise<void> => {});
  addRm3 = vi.fn(async (): Promise<void> => {});
  addQl = vi.fn(async (_mu?: number): Promise<void> => {});
  addAnserini = vi.fn(async (_params?: Partial<AnseriniParams>): Promise<void> => {});
  remove = vi.fn(async (_id: string): Promise<void> => {});
  addEncoder = vi.fn(async (_config: EncoderConfig): Promise<void> => {});
  addBm25 = vi.fn(async (_k1: number, _b: number): Promise<void> => {});
  addRunFile = vi.fn(async (_file: CollectionFile): Promise<void> => {});
  runImportErrors: CollectionError[] = $state.raw([]);
  clearRunImportErrors = vi.fn((): void => {
    this.runImportErrors = [];
  });
  runText = vi.fn((_name: string): Promise<string> => Promise.reject(new Error('runText: not set up by the test')));
  trecEvalText = vi.fn((_name: string): Promise<string> => Promise.reject(new Error('trecEvalText: not set up by the test')));

  lab: FakeLabApi = {
    compare: vi.fn(() => Promise.reject(new Error('compare: not set up by the test'))),
    depthWarnings: vi.fn(() => Promise.resolve({ warnings: [], cut: [], corpus: 0 })),
  };
}

type LabMembers =
  | 'settings'
  | 'view'
  | 'collection'
  | 'collectionError'
  | 'busy'
  | 'retrievers'
  | 'report'
  | 'metrics'
  | 'partial'
  | 'reference'
  | 'candidates'
  | 'setView'
  | 'cancel'
  | 'resume'
  | 'addRm3'
  | 'addQl'
  | 'addAnserini'
  | 'remove'
  | 'addEncoder'
  | 'addBm25'
  | 'addRunFile'
  | 'clearRunImportErrors'
  | 'runImportErrors';

/** The fake as the `Lab` the panels are typed with (checked: the members they use have Lab's types). */
export function asLab(fake: FakeLab): Lab {
  const shape: Pick<Lab, LabMembers> = fake;
  return shape as Lab;
}

export class FakeCollections {
  stored: CollectionMeta[] = $state([]);
  download: DownloadState | null = $state(null);
  error: string | null = $state(null);
  failure: Collections['failure'] = $state(null);
  readonly catalog = BEIR_CATALOG;

  isStored(id: string): boolean {
    return this.stored.some((m) => m.id === id);
  }

  openCatalog = vi.fn(async (_name: string): Promise<void> => {});
  cancelDownload = vi.fn((): void => {});
  openUpload = vi.fn(async (_files: readonly CollectionFile[]): Promise<void> => {});
  openStored = vi.fn(async (_id: string): Promise<boolean> => true);
  remove = vi.fn(async (_id: string): Promise<void> => {});
  passageText: Collections['passageText'] = $state.raw(null);
  addPassageText = vi.fn(async (_file: File): Promise<void> => {});
  cancelPassageText = vi.fn((): void => {});
}

type CollectionsMembers =
  | 'stored'
  | 'download'
  | 'error'
  | 'failure'
  | 'catalog'
  | 'isStored'
  | 'openCatalog'
  | 'cancelDownload'
  | 'openUpload'
  | 'openStored'
  | 'remove'
  | 'passageText'
  | 'addPassageText'
  | 'cancelPassageText';

export function asCollections(fake: FakeCollections): Collections {
  const shape: Pick<Collections, CollectionsMembers> = fake;
  return shape as Collections;
}

/** A collection summary as the lab worker reports it. */
export function summary(patch: Partial<CollectionSummary> = {}): CollectionSummary {
  return {
    name: 'SciFact',
    docs: 5183,
    queries: 1109,
    evaluated: 300,
    judged: true,
    passagesFromRuns: false,
    nonRelevantJudgments: 0,
    synthetic: null,
    split: 'test',
    splits: ['test', 'train'],
    runs: [],
    diagnostics: [],
    ...patch,
  };
}
