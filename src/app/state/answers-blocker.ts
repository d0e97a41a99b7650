/**
 * Why the answer level cannot show a table for the open collection, in words that say what would make it
 * apply. Pure: the panel's message and its tests use the same rules.
 */

/** `goldSource` of gold read from the open collection's own queries. */
export const METADATA_GOLD = 'queries metadata';

/**
 * Why the answer level cannot show a table for the open collection (null: it can), in words that say what
 * would make it apply. Pure: the panel's message and its tests use the same rules.
 */
export type AnswersBlocker =
  | { readonly kind: 'no-collection' | 'unjudged' | 'no-pair' | 'no-gold'; readonly text: string }
  | { readonly kind: 'depth'; readonly text: string };

export function answersBlocker(state: {
  readonly collection: { readonly judged: boolean } | null;
  readonly prepared: { readonly maxDepth: number } | null;
  readonly k: number;
  readonly goldQueries: number;
  readonly goldSource: string | null;
}): AnswersBlocker | null {
  if (state.collection === null)
    return {
      kind: 'no-collection',
      text:
        'No collection is open. Answer-level flips need a collection with relevance judgments (qrels), a reference and a ' +
        'candidate retriever, and gold answers (in the queries file or a gold file).',
    };
  if (!state.collection.judged)
    return {
      kind: 'unjudged',
      text:
        'This collection has no relevance judgments (qrels), so no query can be a negative flip and there is nothing to ' +
        'answer. Open a collection with a qrels file to use answer-level flips; without one the lab compares retrievers ' +
        'by agreement (above).',
    };
  if (state.prepared === null)
    return {
      kind: 'no-pair',
      text:
        'Answer-level flips compare a reference with a candidate: add a candidate retriever (Retrievers, above). The flip ' +
        'and control sets appear once both have been analysed.',
    };
  if (state.k > state.prepared.maxDepth)
    return {
      kind: 'depth',
      text: `k = ${state.k} is beyond the analysed depths (at most ${state.prepared.maxDepth}): lower k, or analyse a deeper depth.`,
    };
  if (state.goldQueries === 0)
    return {
      kind: 'no-gold',
      text:
        (state.goldSource === null
          ? "No gold answers: this collection's queries carry none (metadata.answer or metadata.answers in a JSONL queries file)"
          : `No usable gold answers in ${state.goldSource === METADATA_GOLD ? "this collection's queries" : state.goldSource} ` +
            '(none for its queries, or each empty once normalized)') +
        ', so no answer can be scored. Load a gold answers file: JSONL, one {"query_id": …, "answers": […]} per line.',
    };
  return null;
}
