import type { Diagnostic, DocId, DocIndex, QueryId } from '../types.ts';
import { quote } from './errors.ts';

// The only place external ids and dense indices are minted. Everything else receives them typed.
export const asDocId = (s: string): DocId => s as DocId;
export const asQueryId = (s: string): QueryId => s as QueryId;
export const asDocIndex = (i: number): DocIndex => i as DocIndex;

/**
 * The one rule for ids with white space. TREC runs and qrels split their fields on white space, so an id
 * "week 2 notes" (a file name, a CSV cell) could be written but never read back, by fliplab or by
 * trec_eval. Every reader that takes an id from a format that allows white space (corpora, queries, topics,
 * BEIR qrels TSV, judgments, answers, passage text) therefore trims it and replaces each run of white space
 * inside it by "_", and says so once per file with an example (`IdRewrites`). Run files cannot hold such
 * ids, so they need no rule; a run that names "week_2_notes" finds the passage.
 */
export function normalizeId(raw: string): string {
  return WHITE.test(raw) ? raw.replace(WHITE_ENDS, '').replace(WHITE_RUNS, '_') : raw;
}

// JavaScript's \s less U+FEFF: a zero-width no-break space inside a field is data, as trec_eval keeps it.
const WHITE = /[^\S\uFEFF]/;
const WHITE_ENDS = /^[^\S\uFEFF]+|[^\S\uFEFF]+$/g;
const WHITE_RUNS = /[^\S\uFEFF]+/g;

/** Counts the ids one file's reader rewrote, for one warning with the first example. */
export class IdRewrites {
  private count = 0;
  private example: readonly [string, string] | undefined;

  /** The id as fliplab keeps it. */
  take(raw: string): string {
    const id = normalizeId(raw);
    if (id !== raw) {
      this.count++;
      this.example ??= [raw, id];
    }
    return id;
  }

  /** The warning for `file` (what: "document", "query", ...), or nothing when no id was rewritten. */
  warning(file: string, what: string): Diagnostic[] {
    if (this.example === undefined) return [];
    const [raw, id] = this.example;
    return [
      {
        severity: 'warning',
        file,
        message:
          `${this.count} ${what} id(s) held white space, which TREC runs and qrels cannot hold: each run of it is now "_" ` +
          `(e.g. ${quote(raw)} → ${quote(id)}), so runs written from them read back`,
      },
    ];
  }
}
