/**
 * Anserini's DefaultEnglishAnalyzer (io.anserini.analysis), the analyzer of every Anserini/Pyserini BM25
 * baseline, as its `createComponents` chains Lucene's parts:
 *
 *   StandardTokenizer → EnglishPossessiveFilter → LowerCaseFilter → StopFilter(ENGLISH_STOP_WORDS_SET)
 *   → PorterStemFilter
 *
 * - StandardTokenizer: `standard-tokenizer.ts` (UAX#29 words, Unicode 9, 255-unit cut).
 * - EnglishPossessiveFilter: a token ending in ' or U+2019 or U+FF07 followed by s or S loses those two
 *   units. It runs before lowercasing, as in Anserini.
 * - LowerCaseFilter: Java's `Character.toLowerCase` per code point, the simple (one-to-one) mapping: "İ"
 *   becomes "i" and a final "Σ" becomes "σ" (JavaScript's `toLowerCase` would give "i̇" and "ς").
 * - StopFilter: EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words, compared after lowercasing; removed
 *   tokens do not count towards a document's length.
 * - PorterStemFilter: `porter.ts`.
 */
import { porterStem } from './porter.ts';
import { scanTokens } from './standard-tokenizer.ts';

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

/**
 * An analyzer instance: Anserini's default English analysis with a cache of stems (the stemmer runs once per
 * distinct lowercased token; the cache is what makes indexing fast, and is bounded by the vocabulary).
 */
export class EnglishAnalyzer {
  readonly #stems = new Map<string, string>();

  /** Calls `term` for each indexed term of `text`, in order. */
  analyze(text: string, term: (t: string) => void): void {
    scanTokens(text, (start, end) => {
      const lower = javaLowerCase(stripPossessive(text.slice(start, end)));
      let stem = this.#stems.get(lower);
      if (stem === undefined) {
        stem = LUCENE_ENGLISH_STOP_WORDS.has(lower) ? '' : porterStem(lower);
        this.#stems.set(lower, stem);
      }
      if (stem !== '') term(stem);
    });
  }

  /** The indexed terms of `text`, in order (repeats kept). */
  terms(text: string): string[] {
    const out: string[] = [];
    this.analyze(text, (t) => out.push(t));
    return out;
  }
}

/** The indexed terms of `text` under Anserini's default English analysis (a fresh stem cache). */
export function analyzeEnglish(text: string): string[] {
  return new EnglishAnalyzer().terms(text);
}
