/**
 * Query terms highlighted in passages, as text segments (the view renders each segment as text inside or
 * outside a <mark>; nothing is ever parsed as HTML). A word is highlighted when its lowercase form is one
 * of the query's tokens under the paper's tokenizer (alphanumeric runs, stop words out), so the marks are
 * exactly the words BM25 matched.
 */
import { tokenize } from '../../../core/text/tokenize.ts';

export interface Segment {
  readonly text: string;
  readonly hit: boolean;
  /** A term the run searched for that the query does not have (RM3's expansion), not one of the query's. */
  readonly added?: boolean;
}

/** The query's tokens (stop words removed), for `highlight`. */
export function queryTerms(query: string): Set<string> {
  return new Set(tokenize(query));
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * `text` cut into segments: words that are `terms` (the query's) or `added` (terms a run searched for
 * besides the query's, e.g. RM3's expansion) are hits, the added ones flagged; a query term is never
 * flagged as added.
 */
export function highlight(text: string, terms: ReadonlySet<string>, added: ReadonlySet<string> = new Set()): Segment[] {
  if ((terms.size === 0 && added.size === 0) || text === '') return [{ text, hit: false }];
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const at = m.index;
    const word = m[0].toLowerCase();
    const own = terms.has(word);
    if (!own && !added.has(word)) continue;
    if (at > last) out.push({ text: text.slice(last, at), hit: false });
    out.push(own ? { text: m[0], hit: true } : { text: m[0], hit: true, added: true });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), hit: false });
  return out;
}
