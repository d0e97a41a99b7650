/**
 * What the Lab (lab.svelte.ts) hands its parts — the encoder jobs, the fusion state — so they can read and
 * change the retrievers without importing the Lab itself, and how it remembers how each retriever was made.
 */
import type { Remote } from 'comlink';
import type { EncoderConfig } from '../../encoders/presets.ts';
import type { LabApi } from '../../worker/api.ts';
import type { CollectionSummary, LexicalSpec } from '../../worker/engine.ts';
import type { Settings } from '../settings.ts';
import type { RetrieverInfo } from '../types.ts';

export interface Bm25Spec {
  readonly kind: 'bm25';
  readonly k1: number;
  readonly b: number;
}
export interface EncoderSpec {
  readonly kind: 'encoder';
  readonly config: EncoderConfig;
}
export type RetrieverSpec =
  Bm25Spec | EncoderSpec | { readonly kind: 'lexical'; readonly spec: LexicalSpec } | { readonly kind: 'imported' };

export interface EncoderHost {
  readonly settings: Settings;
  readonly collection: CollectionSummary | null;
  readonly retrievers: readonly RetrieverInfo[];
  readonly lab: Remote<LabApi>;
  readonly specs: Map<string, RetrieverSpec>;
  upsert(info: RetrieverInfo): void;
  patch(id: string, patch: Partial<RetrieverInfo>): void;
  statusOf(id: string): RetrieverInfo['status'] | undefined;
  /** A new run becomes a candidate unless it is the reference. */
  select(id: string): void;
  scheduleAnalysis(delayMs: number): void;
}
