/**
 * The lab's engine: everything the app computes, kept off the main thread (workers/lab.worker.ts exposes it
 * through comlink, api.ts; unit tests drive it directly). It holds one collection and is made of parts, each
 * owning its own state and answering the views with small plain objects (engine/):
 *
 *   collection    the open collection: summary, evaluated queries, passages, query texts (collection.ts)
 *   retrievers    every run by name and the lexical indexes the lab's own runs use (retrievers.ts, indexes.ts)
 *   judgments     the added judgments over the collection's qrels, a model's labels under both, holes, grades
 *                 (judgments.ts)
 *   analysis      flips prepared, measures (cached), paired tests, track, trec_eval text, depth warnings,
 *                 agreement (analysis.ts)
 *   fusion        fused runs and the fusion frontier (fusion.ts)
 *   explorer      one query side by side, why a lexical run scored a passage, RM3's expansion (explorer.ts)
 *   answers       gold answers and the reader's tasks (answers.ts)
 *
 * A part reads the parts before it in this list (the collection's queries, the retrievers' runs, the judged
 * qrels) and never the ones after it; `open` resets them all for a new collection.
 */
import { Analysis } from './engine/analysis.ts';
import { Answers } from './engine/answers.ts';
import { OpenCollection, type CollectionSummary, type LabCollection } from './engine/collection.ts';
import { Explorer } from './engine/explorer.ts';
import { Fusion } from './engine/fusion.ts';
import { Judgments } from './engine/judgments.ts';
import { Retrievers } from './engine/retrievers.ts';

export type { CollectionSummary, LabCollection } from './engine/collection.ts';
export { RUN_DEPTH, type LexicalSpec, type RunSummary } from './engine/retrievers.ts';

export class LabEngine {
  readonly collection = new OpenCollection();
  readonly retrievers = new Retrievers(this.collection);
  readonly judgments = new Judgments(this.collection, this.retrievers);
  readonly analysis = new Analysis(this.collection, this.judgments, this.retrievers);
  readonly fusion = new Fusion(this.judgments, this.retrievers);
  readonly explorer = new Explorer(this.collection, this.judgments, this.retrievers);
  readonly answers = new Answers(this.collection, this.retrievers);

  /**
   * Make `collection` the open one: its own runs become the retrievers' only runs, indexes are built afresh
   * on first use, and no judgment is added yet (the page sends the collection's stored layer, and a model's labels
   * once they are restored).
   */
  open(collection: LabCollection): CollectionSummary {
    this.collection.open(collection);
    this.retrievers.reset(collection.runs);
    this.judgments.setJudgments([]);
    this.judgments.setModelLayer([]);
    return this.collection.summary();
  }
}
