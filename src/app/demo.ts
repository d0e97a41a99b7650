/**
 * The demo: `<app>/#demo` (or the empty state's button) opens a ready analysis with no download and no
 * clicks. SciFact when it is already stored in this browser; otherwise the bundled classroom collection
 * (examples/demo-beir: 88 original passages, 32 judged queries, built into the app). Either way the
 * reference is the paper's BM25 and the candidates are the two instant ones, BM25 + RM3 and Dirichlet query
 * likelihood: no model to download, seconds to rank.
 */
import corpus from '../../examples/demo-beir/corpus.jsonl?raw';
import queries from '../../examples/demo-beir/queries.jsonl?raw';
import qrels from '../../examples/demo-beir/qrels/test.tsv?raw';
import { catalogId } from '../lab/data/catalog.ts';
import type { CollectionFile } from '../lab/data/types.ts';
import type { Collections } from './state/collections.svelte.ts';
import type { Lab } from './state/lab.svelte.ts';

export const DEMO_ID = 'example:demo';
export const DEMO_NAME = 'fliplab classroom collection';
/** The hash that starts the demo. */
export const DEMO_HASH = '#demo';

export function demoFiles(): CollectionFile[] {
  const enc = new TextEncoder();
  return [
    { path: 'demo-beir/corpus.jsonl', bytes: enc.encode(corpus) },
    { path: 'demo-beir/queries.jsonl', bytes: enc.encode(queries) },
    { path: 'demo-beir/qrels/test.tsv', bytes: enc.encode(qrels) },
  ];
}

/** Open the demo collection and its instant candidates. SciFact is used when it is stored here. */
export async function openDemo(lab: Lab, collections: Collections, options: { preferStored?: boolean } = {}): Promise<void> {
  const scifact = catalogId('scifact');
  await collections.refresh();
  const useScifact = (options.preferStored ?? true) && collections.isStored(scifact);
  // A fresh view: the demo's candidates, not whatever an earlier link named.
  lab.setView({ collection: null, reference: null, candidates: [], query: null, state: 'all', text: '', candidate: null });
  const opened = useScifact ? await collections.openStored(scifact) : await lab.openFiles(DEMO_ID, DEMO_NAME, demoFiles());
  if (!opened) return;
  // The small collection flips at shallow depths; SciFact at the paper's k = 10.
  if (!useScifact) lab.setView({ depths: [1, 3, 5, 10, 20], k: 3 });
  await Promise.all([lab.addRm3(), lab.addQl()]);
}
