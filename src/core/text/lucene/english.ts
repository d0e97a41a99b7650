/**
 * Anserini's DefaultEnglishAnalyzer (io.anserini.analysis), the analyzer of every Anserini/Pyserini BM25
 * baseline, as its `createComponents` chains Lucene's parts:
 *
 *   StandardTokenizer → EnglishPossessiveFilter → LowerCaseFilter → StopFilter(ENGLISH_STOP_WORDS_SET)
 *   → PorterStemFilter
 *
 * - StandardTokenizer: `standard-tokenizer.ts` (UAX#29 words, Unicode 12.1 with 14.0 emoji data, 255-unit cut).
 * - EnglishPossessiveFilter: a token ending in ' or U+2019 or U+FF07 followed by s or S loses those two
 *   units. It runs before lowercasing, as in Anserini.
 * - LowerCaseFilter: Java's `Character.toLowerCase` per code point, the simple (one-to-one) mapping: "İ"
 *   becomes "i" and a final "Σ" becomes "σ" (JavaScript's `toLowerCase` would give "i̇" and "ς").
 * - StopFilter: EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words, compared after lowercasing; removed
 *   tokens do not count towards a document's length.
 * - PorterStemFilter: `porter.ts`.
 */
import { grow } from '../../grow.ts';
import { porterStem } from './porter.ts';
import { scanTokens, TokenRanges } from './standard-tokenizer.ts';

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET. */
export const LUCENE_ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

/** EnglishPossessiveFilter: strip a trailing 's, ’s or ＇s (either case of s). */
export function stripPossessive(token: string): string {
  const n = token.length;
  if (n < 2) return token;
  const s = token.charCodeAt(n - 1);
  const q = token.charCodeAt(n - 2);
  return (s === 0x73 || s === 0x53) && (q === 0x27 || q === 0x2019 || q === 0xff07) ? token.slice(0, n - 2) : token;
}

/** Java's per-code-point `Character.toLowerCase` (simple case mapping), as Lucene's LowerCaseFilter applies it. */
export function javaLowerCase(token: string): string {
  let ascii = true;
  for (let i = 0; i < token.length && ascii; i++) ascii = token.charCodeAt(i) < 0x80;
  if (ascii) return token.toLowerCase();
  // JavaScript's full mapping differs from the simple one only at U+0130 and in the final-sigma rule
  if (!token.includes('\u0130') && !token.includes('\u03a3')) return token.toLowerCase();
  let out = '';
  for (const ch of token) {
    if (ch === '\u0130') out += 'i';
    else if (ch === '\u03a3') out += '\u03c3';
    else out += ch.toLowerCase();
  }
  return out;
}

/** The analyzed term of one raw token ('' for a stop word): the filters after the tokenizer, in Anserini's order. */
export function englishTerm(raw: string): string {
  const lower = javaLowerCase(stripPossessive(raw));
  return LUCENE_ENGLISH_STOP_WORDS.has(lower) ? '' : porterStem(lower);
}

const STOP_ID = -1;
const INITIAL_SLOTS = 1 << 12;

/**
 * Anserini's default English analysis with its terms interned: `scan` maps each raw token straight to a
 * term id. Every distinct raw token (case and possessive included) is analyzed once and remembered in an
 * open-addressing table hashed from the input's char codes, so a repeated token costs one hash and one
 * comparison, and no string is built for it. Term ids follow first appearance; `terms[id]` is the term.
 */
export class EnglishAnalyzer {
  /** Term id → analyzed term. */
  readonly terms: string[] = [];
  /** Analyzed term → term id. */
  readonly vocabulary = new Map<string, number>();
  /** Raw tokens' code units, entry after entry: entry e is chars[keyStart[e], keyStart[e + 1]). */
  #chars = new Uint16Array(1 << 14);
  #keyStart = new Uint32Array(INITIAL_SLOTS / 2 + 1);
  /** Entry → term id, or STOP_ID. */
  #ids = new Int32Array(INITIAL_SLOTS / 2);
  /** Two Int32 per slot: entry + 1 (0 = empty), then the raw token's hash. */
  #slots = new Int32Array(2 * INITIAL_SLOTS);
  #mask = INITIAL_SLOTS - 1;
  #entries = 0;

  readonly #ranges = new TokenRanges();
  #out = new Uint32Array(256);

  /**
   * The term ids of `text`'s indexed terms in order (stop words skipped, new terms added), in a buffer
   * reused by the next call: ids[0, count). `count` is the field length Lucene stores.
   */
  scan(text: string): { readonly ids: Uint32Array; readonly count: number } {
    const count = this.scanInto(text, 0);
    return { ids: this.#out, count };
  }

  /** The buffer `scanInto` writes (valid until the next call). */
  get ids(): Uint32Array {
    return this.#out;
  }

  /**
   * Appends the term ids of `text` to `ids` from position `at` (earlier ids are kept); returns the new end.
   * A field made of several texts is scanned text by text (no token spans two of them).
   */
  scanInto(text: string, at: number): number {
    const r = scanTokens(text, this.#ranges);
    if (this.#out.length < at + r.length) this.#out = grow(this.#out, at + r.length);
    const out = this.#out;
    const { starts, ends, hashes } = r;
    let slots = this.#slots;
    let mask = this.#mask;
    let ids = this.#ids;
    let chars = this.#chars;
    let keyStart = this.#keyStart;
    let count = at;
    for (let i = 0; i < r.length; i++) {
      const start = starts[i]!;
      const end = ends[i]!;
      const length = end - start;
      const h = hashes[i]!;
      let slot = h & mask;
      let id: number;
      for (;;) {
        const e = slots[2 * slot]! - 1;
        if (e < 0) {
          id = this.#add(text, start, end, h);
          slots = this.#slots;
          mask = this.#mask;
          ids = this.#ids;
          chars = this.#chars;
          keyStart = this.#keyStart;
          break;
        }
        if (slots[2 * slot + 1] === h) {
          const from = keyStart[e]!;
          let same = keyStart[e + 1]! - from === length;
          for (let c = 0; same && c < length; c++) same = chars[from + c] === text.charCodeAt(start + c);
          if (same) {
            id = ids[e]!;
            break;
          }
        }
        slot = (slot + 1) & mask;
      }
      if (id !== STOP_ID) out[count++] = id;
    }
    return count;
  }

  /** The indexed terms of `text`, in order (repeats kept). */
  analyze(text: string): string[] {
    const { ids, count } = this.scan(text);
    return Array.from(ids.subarray(0, count), (id) => this.terms[id]!);
  }

  #add(text: string, start: number, end: number, h: number): number {
    const term = englishTerm(text.slice(start, end));
    let id = STOP_ID;
    if (term !== '') {
      const known = this.vocabulary.get(term);
      if (known === undefined) {
        id = this.terms.length;
        this.terms.push(term);
        this.vocabulary.set(term, id);
      } else id = known;
    }
    const e = this.#entries++;
    if (e === this.#ids.length) this.#ids = grow(this.#ids, e + 1);
    if (e + 2 > this.#keyStart.length) this.#keyStart = grow(this.#keyStart, e + 2);
    const from = this.#keyStart[e]!;
    if (from + end - start > this.#chars.length) this.#chars = grow(this.#chars, from + end - start);
    for (let c = start; c < end; c++) this.#chars[from + c - start] = text.charCodeAt(c);
    this.#keyStart[e + 1] = from + end - start;
    this.#ids[e] = id;
    if ((e + 1) * 2 > this.#mask + 1) this.#rehash();
    place(this.#slots, this.#mask, e, h);
    return id;
  }

  #rehash(): void {
    const old = this.#slots;
    const slots = new Int32Array(old.length * 2);
    this.#mask = slots.length / 2 - 1;
    for (let s = 0; s < old.length; s += 2) if (old[s] !== 0) place(slots, this.#mask, old[s]! - 1, old[s + 1]!);
    this.#slots = slots;
  }
}

function place(slots: Int32Array, mask: number, e: number, h: number): void {
  let s = h & mask;
  while (slots[2 * s] !== 0) s = (s + 1) & mask;
  slots[2 * s] = e + 1;
  slots[2 * s + 1] = h;
}

/** The indexed terms of `text` under Anserini's default English analysis. */
export function analyzeEnglish(text: string): string[] {
  const r = scanTokens(text, new TokenRanges());
  const out: string[] = [];
  for (let i = 0; i < r.length; i++) {
    const term = englishTerm(text.slice(r.starts[i], r.ends[i]));
    if (term !== '') out.push(term);
  }
  return out;
}
