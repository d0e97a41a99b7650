/**
 * Which runs the analysis compares: the rules of the lab's `reference` and `candidates`, as pure functions so
 * the panels' test fakes follow the same rules as the real `Lab` (src/app/state/lab.svelte.ts).
 */
import { BM25_RUN_NAME } from '../../core/retrieve/bm25.ts';
import type { RetrieverInfo, ViewState } from '../types.ts';

type Retrievers = readonly Pick<RetrieverInfo, 'id' | 'status' | 'partial'>[];

/**
 * Runs that can be analysed: ready, or encoding with its queries encoded and at least one batch of passages
 * in its run. A run with no passage yet would rank nothing and show every supported query as broken.
 */
export function usableRetrievers(retrievers: Retrievers): string[] {
  return retrievers
    .filter((r) => r.status === 'ready' || (r.status === 'encoding' && r.partial !== undefined && r.partial.encodedDocs > 0))
    .map((r) => r.id);
}

/**
 * The reference: the view's when it names a listed retriever (whatever its status), else BM25 when listed,
 * else the first retriever; null without retrievers.
 */
export function chooseReference(view: Pick<ViewState, 'reference'>, retrievers: readonly Pick<RetrieverInfo, 'id'>[]): string | null {
  const ids = retrievers.map((r) => r.id);
  if (view.reference !== null && ids.includes(view.reference)) return view.reference;
  return ids.includes(BM25_RUN_NAME) ? BM25_RUN_NAME : (ids[0] ?? null);
}

/** The candidates: the view's, in its order, without the reference and without runs that are not usable. */
export function chooseCandidates(view: Pick<ViewState, 'reference' | 'candidates'>, retrievers: Retrievers): string[] {
  const usable = new Set(usableRetrievers(retrievers));
  const reference = chooseReference(view, retrievers);
  return view.candidates.filter((c) => c !== reference && usable.has(c));
}
