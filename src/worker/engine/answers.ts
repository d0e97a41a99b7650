/**
 * The engine's answers: the gold answers the collection brought and the reader's tasks for a run
 * (core/answers/prompt.ts). No state of its own: the questions and passages are the collection's, the
 * rankings the retrievers'.
 */
import { readerTasks, type ReaderTaskSet, type ReaderTemplate } from '../../core/answers/prompt.ts';
import type { QueryId } from '../../core/types.ts';
import type { OpenCollection } from './collection.ts';
import type { Retrievers } from './retrievers.ts';

export class Answers {
  /** The calls the page makes on this part (the lab API passes them through: api.ts). */
  static readonly calls = ['goldAnswers', 'readerTasks'] as const satisfies readonly (keyof Answers)[];

  readonly #collection: OpenCollection;
  readonly #retrievers: Retrievers;

  constructor(collection: OpenCollection, retrievers: Retrievers) {
    this.#collection = collection;
    this.#retrievers = retrievers;
  }

  /** Gold answers from the queries' metadata (empty when the collection has none). */
  goldAnswers(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [id, answers] of this.#collection.current.gold ?? []) out[id] = [...answers];
    return out;
  }

  /** The reader's tasks for `queryIds` under run `name`: question, top-k passages, messages (core/answers/prompt.ts). */
  readerTasks(name: string, queryIds: readonly string[], k: number, template: ReaderTemplate): ReaderTaskSet {
    const c = this.#collection.current;
    const run = this.#retrievers.run(name);
    const questions = new Map(c.queries.ids.map((id, i) => [id as string, c.queries.texts[i] ?? '']));
    return readerTasks(template, c.corpus, questions, (q) => run.byQuery.get(q as QueryId)?.docs, queryIds, k);
  }
}
