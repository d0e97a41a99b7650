/**
 * The RAGFlip BM25 tokenizer (RAGFlip paper §3; `_tokens` in the reference scripts):
 *
 *   [t for t in "".join(ch.lower() if ch.isalnum() else " " for ch in text).split() if t and t not in STOP]
 *
 * Every code point that is not alphanumeric becomes a space, alphanumeric code points are lowercased one at
 * a time, the result is split on whitespace and the 43 stop words are dropped. No stemming, no folding.
 *
 * How the Python predicates are matched, and where they can differ:
 * - `str.isalnum` (one code point) is `isalpha or isdecimal or isdigit or isnumeric`: general categories
 *   Lu Ll Lt Lm Lo plus every code point with a Numeric_Type (Nd, Nl, No and CJK numeral ideographs, which
 *   are Lo anyway). We use `[\p{L}\p{N}]`. Combining marks (Mn Mc Me, e.g. U+0301 in a decomposed "é")
 *   are NOT alphanumeric in Python, so a decomposed accent splits the word ("cafe\u0301" → "cafe");
 *   we do the same. Lone surrogates are alphanumeric on neither side. What is left is the Unicode version:
 *   checked over every code point, Node 20 (ICU, Unicode 17) and CPython 3.11 (Unicode 14) disagree only
 *   on code points unassigned in Unicode 14 (14,049 newer letters/digits, 55 newer lowercase mappings).
 *   No other Unicode category is involved: every code point Python calls numeric is in \p{L} or \p{N}.
 * - `str.lower` of one code point is the full, context-free lowercase mapping (SpecialCasing included),
 *   the same table as JS `toLowerCase`: "İ" (U+0130) becomes "i̇" (two code points, i + U+0307), "ǅ"
 *   becomes "ǆ". The only context rule JS applies to a whole string is Final_Sigma ("ΟΔΟΣ" → "οδος");
 *   Python lowercases each character alone, so "Σ" always becomes "σ". Tokens containing "Σ" are
 *   therefore lowercased one code point at a time; every other token is lowercased as a whole (same result).
 * - `str.split()` splits on Unicode whitespace. After the replacement only lowercased alphanumerics and
 *   spaces remain, and the lowercase of an alphanumeric is never whitespace (it may contain a combining
 *   mark, which stays inside the token, as in Python), so splitting at non-alphanumeric runs is identical.
 *
 * Speed: ASCII is classified from a 128-entry table by char code; other BMP code points go through the
 * regex once and are cached in a 64 KiB table; astral code points (rare) use the regex each time.
 * Tokens are sliced from the input, never built character by character. Index builders use
 * `TermTable.scan` (term-table.ts), the same tokenizer fused with interning, which avoids the strings.
 */
import { RAGFLIP_STOP_WORDS } from './stopwords.ts';

const ALNUM_RE = /^[\p{L}\p{N}]$/u;

/** 1 for [0-9A-Za-z]. */
const ASCII_ALNUM = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_ALNUM[c] = 1;
for (let c = 65; c <= 90; c++) ASCII_ALNUM[c] = 1;
for (let c = 97; c <= 122; c++) ASCII_ALNUM[c] = 1;

/** BMP cache of the Unicode predicate: 0 unknown, 1 alphanumeric, 2 not. Filled lazily. */
const BMP_CLASS = new Uint8Array(0x10000);

const CAPITAL_SIGMA = 0x03a3;

/** Python `str.isalnum()` for a single code point (see the module comment for the edge cases). */
export function isAlnumCodePoint(cp: number): boolean {
  if (cp < 128) return ASCII_ALNUM[cp] === 1;
  if (cp < 0x10000) {
    let k = BMP_CLASS[cp]!;
    if (k === 0) {
      // Lone surrogates (0xD800–0xDFFF) fail the regex, as they fail isalnum in Python.
      k = ALNUM_RE.test(String.fromCharCode(cp)) ? 1 : 2;
      BMP_CLASS[cp] = k;
    }
    return k === 1;
  }
  return ALNUM_RE.test(String.fromCodePoint(cp));
}

/** Python's per-character `lower()` over a token (Final_Sigma is not applied, see the module comment). */
function lowerPerCodePoint(s: string): string {
  let out = '';
  for (const ch of s) out += ch.toLowerCase();
  return out;
}

/**
 * Calls `visit` with every token of `text` in order, stop words included or not as `keepStopWords` says.
 * The shared scanner of `tokenize` and the index builder.
 */
export function scanTokens(text: string, visit: (token: string) => void, keepStopWords = false): void {
  const n = text.length;
  let start = -1;
  let upper = false;
  let nonAscii = false;
  let sigma = false;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let alnum: boolean;
    let width = 1;
    if (c < 128) {
      alnum = ASCII_ALNUM[c] === 1;
      if (alnum && c <= 90 && c >= 65) upper = true;
    } else {
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      alnum = isAlnumCodePoint(cp);
      if (alnum) {
        nonAscii = true;
        if (cp === CAPITAL_SIGMA) sigma = true;
      }
    }
    if (alnum) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      emit(text, start, i, upper, nonAscii, sigma, visit, keepStopWords);
      start = -1;
      upper = nonAscii = sigma = false;
    }
    i += width;
  }
  if (start >= 0) emit(text, start, n, upper, nonAscii, sigma, visit, keepStopWords);
}

function emit(
  text: string,
  start: number,
  end: number,
  upper: boolean,
  nonAscii: boolean,
  sigma: boolean,
  visit: (token: string) => void,
  keepStopWords: boolean,
): void {
  let tok = text.slice(start, end);
  if (sigma) tok = lowerPerCodePoint(tok);
  else if (upper || nonAscii) tok = tok.toLowerCase();
  if (keepStopWords || !RAGFLIP_STOP_WORDS.has(tok)) visit(tok);
}

/** The RAGFlip tokens of `text`: lowercased alphanumeric runs, stop words removed. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scanTokens(text, (t) => out.push(t));
  return out;
}

/** Tokens without stop-word removal (the paper's query-length strata count these). */
export function tokenizeKeepingStopWords(text: string): string[] {
  const out: string[] = [];
  scanTokens(text, (t) => out.push(t), true);
  return out;
}
