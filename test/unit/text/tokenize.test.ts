import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RAGFLIP_STOP_WORD_LIST, RAGFLIP_STOP_WORDS } from '../../../src/core/text/stopwords.ts';
import { isAlnumCodePoint, tokenize, tokenizeKeepingStopWords } from '../../../src/core/text/tokenize.ts';
import { TermTable } from '../../../src/core/text/term-table.ts';

/**
 * Expected tokens were produced by the reference expression itself, run under CPython 3.11.7
 * (Unicode 14.0):
 *   [t for t in "".join(c.lower() if c.isalnum() else " " for c in text).split() if t and t not in STOP]
 */
const PYTHON_CASES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['punctuation and an apostrophe', "Hello, world! It's 2024.", ['hello', 'world', 's', '2024']],
  ['stop words in any case', 'The cat AND the Hat: what is it?', ['cat', 'hat']],
  ['empty', '', []],
  ['whitespace and punctuation only', '   \t\n  ...  ', []],
  ['precomposed accents are letters', 'Café, naïve, Ünïcödé; résumé', ['café', 'naïve', 'ünïcödé', 'résumé']],
  // U+0301 COMBINING ACUTE ACCENT is category Mn: not alphanumeric, so it splits the word and vanishes.
  ['combining mark splits', 'cafe\u0301 ok', ['cafe', 'ok']],
  // 'İ'.lower() is 'i' + U+0307 (two code points); the mark stays inside the token.
  ['dotted capital I', 'İstanbul ISTANBUL', ['i\u0307stanbul', 'istanbul']],
  // Each character is lowercased alone, so a final capital sigma becomes σ, never ς.
  ['Greek sigma per character', 'ΟΔΟΣ Σ σοφία ΣΟΦΙΑ', ['οδοσ', 'σ', 'σοφία', 'σοφια']],
  // ² ½ (No), ٣ (Nd, Arabic-Indic), Ⅻ (Nl) are numeric; Ⅻ lowercases to ⅻ.
  ['numeric categories', 'x² + 5½ = ٣ and Ⅻ ⅻ', ['x²', '5½', '٣', 'ⅻ', 'ⅻ']],
  ['CJK and Hangul runs', '中文分词 テスト 한국어', ['中文分词', 'テスト', '한국어']],
  ['e-mail and underscores', 'e-mail: user@example.com (v2.0_beta)', ['e', 'mail', 'user', 'example', 'com', 'v2', '0', 'beta']],
  ['Unicode spaces', 'naïve\u00a0space\u2003em\u3000ideographic', ['naïve', 'space', 'em', 'ideographic']],
  // Astral: math bold capitals have no lowercase; Deseret capitals do; emoji are separators.
  ['astral letters and emoji', '𝐀𝐁𝐂 𐐀𐐁 😀smile😀', ['𝐀𝐁𝐂', '𐐨𐐩', 'smile']],
  ['titlecase digraphs', 'ǅemal ǈ ǋ', ['ǆemal', 'ǉ', 'ǌ']],
  ['sharp s is not expanded by lower()', 'Straße STRASSE ß', ['straße', 'strasse', 'ß']],
  ['fullwidth forms', 'ＦＵＬＬ ｗｉｄｔｈ １２３', ['ｆｕｌｌ', 'ｗｉｄｔｈ', '１２３']],
  // ₂ ³ are No (numeric); ⁻ is Sm (a separator).
  ['sub- and superscripts', 'CO₂ H₂O 10⁻³', ['co₂', 'h₂o', '10', '³']],
  // KELVIN SIGN and ANGSTROM SIGN lowercase to ASCII k and to å.
  ['letterlike symbols', 'K\u212a \u212b', ['kk', 'å']],
  ['contractions leave fragments', "don't won't it's THEIR Their there's", ['don', 't', 'won', 't', 's', 's']],
  ['biomedical names', 'α-helix β-sheet TNF-α IL-1β', ['α', 'helix', 'β', 'sheet', 'tnf', 'α', 'il', '1β']],
];

function tableTokens(text: string, table = new TermTable()): string[] {
  const out: string[] = [];
  table.scan(text, (id) => out.push(table.terms[id]!));
  return out;
}

describe('RAGFlip stop words', () => {
  it('are the 43 words of the paper, lowercase, unique', () => {
    expect(RAGFLIP_STOP_WORD_LIST).toHaveLength(43);
    expect(RAGFLIP_STOP_WORDS.size).toBe(43);
    for (const w of RAGFLIP_STOP_WORD_LIST) expect(w).toMatch(/^[a-z]+$/);
    expect(RAGFLIP_STOP_WORD_LIST.join(' ')).toBe(
      'the a an of in to and is are was were for on that this what which who whom whose when where why how did does do with from by or as at be been it its their his her they them there',
    );
  });
});

describe('tokenize (Python reference parity)', () => {
  for (const [name, text, expected] of PYTHON_CASES) {
    it(name, () => {
      expect(tokenize(text)).toEqual(expected);
    });
  }

  it('keeps stop words only when asked', () => {
    expect(tokenizeKeepingStopWords('The cat AND the Hat')).toEqual(['the', 'cat', 'and', 'the', 'hat']);
    expect(tokenize('The cat AND the Hat')).toEqual(['cat', 'hat']);
  });

  it('does not stem', () => {
    expect(tokenize('running runs ran studies')).toEqual(['running', 'runs', 'ran', 'studies']);
  });

  it('classifies code points like str.isalnum', () => {
    expect(isAlnumCodePoint(0x41)).toBe(true); // A
    expect(isAlnumCodePoint(0x5f)).toBe(false); // _
    expect(isAlnumCodePoint(0x301)).toBe(false); // combining acute (Mn)
    expect(isAlnumCodePoint(0x903)).toBe(false); // Devanagari visarga (Mc)
    expect(isAlnumCodePoint(0xb2)).toBe(true); // ² (No)
    expect(isAlnumCodePoint(0x2167)).toBe(true); // Ⅷ (Nl)
    expect(isAlnumCodePoint(0x1f600)).toBe(false); // emoji (So)
    expect(isAlnumCodePoint(0xd800)).toBe(false); // lone surrogate
    expect(isAlnumCodePoint(0x1d400)).toBe(true); // 𝐀 (Lu, astral)
  });

  it('tokens are non-empty, whitespace-free, never stop words, and survive a second pass unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        for (const t of tokenize(text)) {
          expect(t.length).toBeGreaterThan(0);
          expect(t).not.toMatch(/\s/u);
          expect(RAGFLIP_STOP_WORDS.has(t)).toBe(false);
        }
        // Lowercase alphanumeric runs joined by spaces tokenize to themselves, except where lowercasing
        // produced a non-alphanumeric code point (the combining dot of 'İ'), which splits on the second pass.
        const once = tokenize(text);
        const twice = tokenize(once.join(' '));
        if (!once.some((t) => /\p{M}/u.test(t))) expect(twice).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });
});

describe('TermTable.scan (the index builder’s tokenizer)', () => {
  it('yields exactly the tokens of tokenize on the Python cases', () => {
    const table = new TermTable();
    for (const [, text, expected] of PYTHON_CASES) expect(tableTokens(text, table)).toEqual(expected);
  });

  it('interns: equal tokens get one id, ids follow first appearance, stop words get none', () => {
    const table = new TermTable();
    const ids: number[] = [];
    table.scan('Beta alpha BETA the beta Alpha', (id) => ids.push(id));
    expect(ids).toEqual([0, 1, 0, 0, 1]);
    expect(table.terms).toEqual(['beta', 'alpha']);
    expect(table.get('alpha')).toBe(1);
    expect(table.get('the')).toBe(-1);
    expect(table.get('gamma')).toBe(-1);
    expect(table.toMap()).toEqual(
      new Map([
        ['beta', 0],
        ['alpha', 1],
      ]),
    );
  });

  it('matches tokenize on arbitrary Unicode text, with one table reused across texts', () => {
    const tricky = fc.constantFrom(
      'a',
      'B',
      'z9',
      'É',
      'é',
      'e\u0301',
      'İ',
      'Σ',
      'ß',
      'K',
      '\u212a',
      '²',
      '½',
      '٣',
      'Ⅻ',
      '中',
      '𝐀',
      '𐐀',
      '😀',
      ' ',
      '-',
      '.',
      "'",
      '_',
      '\u00a0',
      '\u3000',
      '\ud800',
      '\udc00',
      'THE',
      'The',
      'and',
      'x',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.array(tricky, { maxLength: 40 }).map((parts) => parts.join('')),
    );
    const table = new TermTable();
    fc.assert(
      fc.property(text, (t) => {
        expect(tableTokens(t, table)).toEqual(tokenize(t));
      }),
      { numRuns: 1000 },
    );
    // Every interned term is unique.
    expect(new Set(table.terms).size).toBe(table.terms.length);
  });

  it('grows past its initial capacity without losing terms', () => {
    const table = new TermTable();
    const words = Array.from({ length: 20_000 }, (_, i) => `q${i.toString(36)}`); // never a stop word
    const ids: number[] = [];
    table.scan(words.join(' '), (id) => ids.push(id));
    table.scan(words.join(' ').toUpperCase(), (id) => ids.push(id));
    expect(table.size).toBe(words.length);
    expect(ids.slice(words.length)).toEqual(ids.slice(0, words.length));
    for (let i = 0; i < words.length; i += 997) expect(table.get(words[i]!)).toBe(i);
  });
});
