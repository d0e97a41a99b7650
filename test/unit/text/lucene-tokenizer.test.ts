import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_TOKEN_LENGTH, standardTokens } from '../../../src/core/text/lucene/standard-tokenizer.ts';

/**
 * Lucene's StandardTokenizer as the port should reproduce it. Unless a comment says otherwise, each expected
 * token list is copied from Lucene's own tests (lucene/core/src/test/org/apache/lucene/analysis/standard/
 * TestStandardAnalyzer.java, whose analyzer there is a bare StandardTokenizer, so tokens keep their case) or
 * from the Unicode 9.0 word-break conformance data Lucene generated (WordBreakTestUnicode_9_0_0.java); the
 * rest are worked out by hand from UAX#29 and the rules of StandardTokenizerImpl.jflex.
 */

const texts = (s: string): string[] => standardTokens(s).map((t) => t.text);
const types = (s: string): string[] => standardTokens(s).map((t) => t.type);
const spans = (s: string): [number, number][] => standardTokens(s).map((t) => [t.start, t.end]);

describe('StandardTokenizer: Lucene TestStandardAnalyzer cases', () => {
  const CASES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
    [
      'Armenian',
      'Վիքիպեդիայի 13 միլիոն հոդվածները (4,600` հայերեն վիքիպեդիայում) գրվել են կամավորների կողմից ու համարյա բոլոր ' +
        'հոդվածները կարող է խմբագրել ցանկաց մարդ ով կարող է բացել Վիքիպեդիայի կայքը։',
      [
        'Վիքիպեդիայի',
        '13',
        'միլիոն',
        'հոդվածները',
        '4,600',
        'հայերեն',
        'վիքիպեդիայում',
        'գրվել',
        'են',
        'կամավորների',
        'կողմից',
        'ու',
        'համարյա',
        'բոլոր',
        'հոդվածները',
        'կարող',
        'է',
        'խմբագրել',
        'ցանկաց',
        'մարդ',
        'ով',
        'կարող',
        'է',
        'բացել',
        'Վիքիպեդիայի',
        'կայքը',
      ],
    ],
    [
      'Amharic',
      'ዊኪፔድያ የባለ ብዙ ቋንቋ የተሟላ ትክክለኛና ነጻ መዝገበ ዕውቀት (ኢንሳይክሎፒዲያ) ነው። ማንኛውም',
      ['ዊኪፔድያ', 'የባለ', 'ብዙ', 'ቋንቋ', 'የተሟላ', 'ትክክለኛና', 'ነጻ', 'መዝገበ', 'ዕውቀት', 'ኢንሳይክሎፒዲያ', 'ነው', 'ማንኛውም'],
    ],
    [
      'Arabic',
      'الفيلم الوثائقي الأول عن ويكيبيديا يسمى "الحقيقة بالأرقام: قصة ويكيبيديا" (بالإنجليزية: Truth in Numbers: The Wikipedia ' +
        'Story)، سيتم إطلاقه في 2008.',
      [
        'الفيلم',
        'الوثائقي',
        'الأول',
        'عن',
        'ويكيبيديا',
        'يسمى',
        'الحقيقة',
        'بالأرقام',
        'قصة',
        'ويكيبيديا',
        'بالإنجليزية',
        'Truth',
        'in',
        'Numbers',
        'The',
        'Wikipedia',
        'Story',
        'سيتم',
        'إطلاقه',
        'في',
        '2008',
      ],
    ],
    ['Thai (one token per run)', 'การที่ได้ต้องแสดงว่างานดี. แล้วเธอจะไปไหน? ๑๒๓๔', ['การที่ได้ต้องแสดงว่างานดี', 'แล้วเธอจะไปไหน', '๑๒๓๔']],
    ['Lao', 'ສາທາລະນະລັດ ປະຊາທິປະໄຕ ປະຊາຊົນລາວ', ['ສາທາລະນະລັດ', 'ປະຊາທິປະໄຕ', 'ປະຊາຊົນລາວ']],
    [
      'Tibetan',
      'སྣོན་མཛོད་དང་ལས་འདིས་བོད་ཡིག་མི་ཉམས་གོང་འཕེལ་དུ་གཏོང་བར་ཧ་ཅང་དགེ་མཚན་མཆིས་སོ། །',
      ['སྣོན', 'མཛོད', 'དང', 'ལས', 'འདིས', 'བོད', 'ཡིག', 'མི', 'ཉམས', 'གོང', 'འཕེལ', 'དུ', 'གཏོང', 'བར', 'ཧ', 'ཅང', 'དགེ', 'མཚན', 'མཆིས', 'སོ'],
    ],
    [
      'Chinese: one ideograph per token, full-width digits and letters',
      '我是中国人。 １２３４ Ｔｅｓｔｓ ',
      ['我', '是', '中', '国', '人', '１２３４', 'Ｔｅｓｔｓ'],
    ],
    ['empty', '', []],
    ['a lone full stop', '.', []],
    ['a lone space', ' ', []],
    ['LUCENE-1545: a combining mark stays inside the word', 'mo\u0364chte', ['mo\u0364chte']],
    ['alphanumeric', 'B2B 2B', ['B2B', '2B']],
    ['hyphens split', 'some-dashed-phrase', ['some', 'dashed', 'phrase']],
    ['commas between letters split', 'dogs,chase,cats', ['dogs', 'chase', 'cats']],
    ['slash splits', 'ac/dc', ['ac', 'dc']],
    ['apostrophes', "O'Reilly you're she's Jim's don't O'Reilly's", ["O'Reilly", "you're", "she's", "Jim's", "don't", "O'Reilly's"]],
    ['decimal number', '21.35', ['21.35']],
    ['model numbers', 'R2D2 C3PO', ['R2D2', 'C3PO']],
    ['IP address', '216.239.63.104', ['216.239.63.104']],
    ['text with numbers', 'David has 5000 bones', ['David', 'has', '5000', 'bones']],
    ['case is kept', 'foo bar FOO BAR', ['foo', 'bar', 'FOO', 'BAR']],
    ['runs of punctuation and spaces', 'foo      bar .  FOO <> BAR', ['foo', 'bar', 'FOO', 'BAR']],
    ['quotes', '"QUOTED" word', ['QUOTED', 'word']],
    ['Korean words', '안녕하세요 한글입니다', ['안녕하세요', '한글입니다']],
    // testMid: runs of MidLetter / MidNumLet / MidNum split; ExtendNumLet ("_") joins
    ['A:B', 'A:B', ['A:B']],
    ['A::B', 'A::B', ['A', 'B']],
    ['1.2', '1.2', ['1.2']],
    ['A.B', 'A.B', ['A.B']],
    ['1..2', '1..2', ['1', '2']],
    ['A..B', 'A..B', ['A', 'B']],
    ['1,2', '1,2', ['1,2']],
    ['1,,2', '1,,2', ['1', '2']],
    ['A.:B', 'A.:B', ['A', 'B']],
    ['A:.B', 'A:.B', ['A', 'B']],
    ['1,.2', '1,.2', ['1', '2']],
    ['1.,2', '1.,2', ['1', '2']],
    ['A:B_A:B', 'A:B_A:B', ['A:B_A:B']],
    ['A:B_A::B', 'A:B_A::B', ['A:B_A', 'B']],
    ['1.2_1.2', '1.2_1.2', ['1.2_1.2']],
    ['A.B_A.B', 'A.B_A.B', ['A.B_A.B']],
    ['1.2_1..2', '1.2_1..2', ['1.2_1', '2']],
    ['A.B_A..B', 'A.B_A..B', ['A.B_A', 'B']],
    ['1,2_1,2', '1,2_1,2', ['1,2_1,2']],
    ['1,2_1,,2', '1,2_1,,2', ['1,2_1', '2']],
    ['C_A.:B', 'C_A.:B', ['C_A', 'B']],
    ['C_A:.B', 'C_A:.B', ['C_A', 'B']],
    ['3_1,.2', '3_1,.2', ['3_1', '2']],
    ['3_1.,2', '3_1.,2', ['3_1', '2']],
  ];
  for (const [name, input, want] of CASES) {
    it(name, () => expect(texts(input)).toEqual(want));
  }

  it('testHugeDoc: 4094 spaces, then two tokens', () => {
    const input = ' '.repeat(4094) + 'testing 1234';
    expect(standardTokens(input)).toEqual([
      { text: 'testing', type: '<ALPHANUM>', start: 4094, end: 4101 },
      { text: '1234', type: '<NUM>', start: 4102, end: 4106 },
    ]);
  });

  it('testOffsets and testTypes', () => {
    expect(spans('David has 5000 bones')).toEqual([
      [0, 5],
      [6, 9],
      [10, 14],
      [15, 20],
    ]);
    expect(types('David has 5000 bones')).toEqual(['<ALPHANUM>', '<ALPHANUM>', '<NUM>', '<ALPHANUM>']);
  });

  it('testSupplementary: ideographs outside the BMP are one token each', () => {
    const input = '\u{29B05}艱鍟䇹愯瀛';
    expect(texts(input)).toEqual(['\u{29B05}', '艱', '鍟', '䇹', '愯', '瀛']);
    expect(types(input)).toEqual(Array(6).fill('<IDEOGRAPHIC>'));
    expect(spans(input)[0]).toEqual([0, 2]);
  });

  it('testKorean and testJapanese: token types', () => {
    expect(standardTokens('훈민정음')).toEqual([{ text: '훈민정음', type: '<HANGUL>', start: 0, end: 4 }]);
    expect(texts('仮名遣い カタカナ')).toEqual(['仮', '名', '遣', 'い', 'カタカナ']);
    expect(types('仮名遣い カタカナ')).toEqual(['<IDEOGRAPHIC>', '<IDEOGRAPHIC>', '<IDEOGRAPHIC>', '<HIRAGANA>', '<KATAKANA>']);
  });

  it('testCombiningMarks: a voiced sound mark (U+3099) stays with the kana, ideograph or syllable before it', () => {
    expect(standardTokens('さ\u3099')).toEqual([{ text: 'さ\u3099', type: '<HIRAGANA>', start: 0, end: 2 }]);
    expect(standardTokens('サ\u3099')).toEqual([{ text: 'サ\u3099', type: '<KATAKANA>', start: 0, end: 2 }]);
    expect(standardTokens('壹\u3099')).toEqual([{ text: '壹\u3099', type: '<IDEOGRAPHIC>', start: 0, end: 2 }]);
    expect(standardTokens('아\u3099')).toEqual([{ text: '아\u3099', type: '<HANGUL>', start: 0, end: 2 }]);
  });

  it('testEmoji: single emoji, adjacent or not, are one token each', () => {
    expect(standardTokens('\u{1F4A9} \u{1F4A9}\u{1F4A9}')).toEqual([
      { text: '\u{1F4A9}', type: '<EMOJI>', start: 0, end: 2 },
      { text: '\u{1F4A9}', type: '<EMOJI>', start: 3, end: 5 },
      { text: '\u{1F4A9}', type: '<EMOJI>', start: 5, end: 7 },
    ]);
  });

  it('testEmojiSequence: a ZWJ sequence (woman, heart + VS16, woman) is one token', () => {
    const kiss = '\u{1F469}\u200D\u2764\uFE0F\u200D\u{1F469}';
    expect(standardTokens(kiss)).toEqual([{ text: kiss, type: '<EMOJI>', start: 0, end: 8 }]);
  });

  it('testEmojiSequenceWithModifier: ZWJ sequence with a skin-tone modifier', () => {
    const doctor = '\u{1F468}\u{1F3FC}\u200D\u2695\uFE0F';
    expect(standardTokens(doctor)).toEqual([{ text: doctor, type: '<EMOJI>', start: 0, end: 7 }]);
  });

  it('testEmojiRegionalIndicator: a flag is two regional indicators', () => {
    const us = '\u{1F1FA}\u{1F1F8}';
    expect(standardTokens(us + us)).toEqual([
      { text: us, type: '<EMOJI>', start: 0, end: 4 },
      { text: us, type: '<EMOJI>', start: 4, end: 8 },
    ]);
  });

  it('testEmojiVariationSequence: keycaps and text presentation selectors', () => {
    expect(standardTokens('#\uFE0F\u20E3')).toEqual([{ text: '#\uFE0F\u20E3', type: '<EMOJI>', start: 0, end: 3 }]);
    expect(standardTokens('3\uFE0F\u20E3')).toEqual([{ text: '3\uFE0F\u20E3', type: '<EMOJI>', start: 0, end: 3 }]);
    expect(standardTokens('#\uFE0E')).toEqual([]);
    // U+FE0E is WB:Extend, so it stays with the digit, which is a number
    expect(standardTokens('3\uFE0E')).toEqual([{ text: '3\uFE0E', type: '<NUM>', start: 0, end: 2 }]);
    // ...but the emoji rules exclude the presentation selectors, so U+FE0E after an emoji is dropped
    expect(standardTokens('\u2B55\uFE0E')).toEqual([{ text: '\u2B55', type: '<EMOJI>', start: 0, end: 1 }]);
    expect(texts('\u2B55\uFE0E\u200D\u2B55\uFE0E')).toEqual(['\u2B55', '\u200D\u2B55']);
    expect(types('\u2B55\uFE0E\u200D\u2B55\uFE0E')).toEqual(['<EMOJI>', '<EMOJI>']);
  });

  it('testEmojiTagSequence: the flag of England (black flag + tags + cancel tag) is one token', () => {
    const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    expect(standardTokens(england)).toEqual([{ text: england, type: '<EMOJI>', start: 0, end: 14 }]);
  });

  it('testEmojiTokenization: emoji next to Latin and Han', () => {
    expect(texts('poo\u{1F4A9}poo')).toEqual(['poo', '\u{1F4A9}', 'poo']);
    expect(types('poo\u{1F4A9}poo')).toEqual(['<ALPHANUM>', '<EMOJI>', '<ALPHANUM>']);
    expect(texts('\u{1F4A9}中國\u{1F4A9}')).toEqual(['\u{1F4A9}', '中', '國', '\u{1F4A9}']);
    expect(types('\u{1F4A9}中國\u{1F4A9}')).toEqual(['<EMOJI>', '<IDEOGRAPHIC>', '<IDEOGRAPHIC>', '<EMOJI>']);
  });

  it('testMaxTokenLengthDefault: a 255-unit token is whole; one more unit starts a new token', () => {
    const b = 'b'.repeat(MAX_TOKEN_LENGTH);
    expect(MAX_TOKEN_LENGTH).toBe(255);
    expect(texts(`x ${b} ${b}b`)).toEqual(['x', b, b, 'b']);
  });
});

describe('StandardTokenizer: Unicode 9.0 word-break conformance cases (WordBreakTestUnicode_9_0_0)', () => {
  const CASES: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['\u0001\u0001', []],
    ['\u0001\u3031', ['\u3031']], // VERTICAL KANA REPEAT MARK is Katakana
    ['\u0001\u0308\u0041', ['\u0041']],
    ['\u0001\u003A', []],
    ['\u0001\u0030', ['\u0030']],
    ['\u0001\u005F', []], // ExtendNumLet alone is no token
    ['\u0001\u{1F1E6}', []], // one regional indicator alone is no token
    ['\u0001\u05D0', ['\u05D0']],
    ['\u0001\u261D', ['\u261D']],
    ['\u0001\u{1F3FB}', ['\u{1F3FB}']],
    ['\u0001\u2764', ['\u2764']],
    ['\u0001\u{1F466}', ['\u{1F466}']],
    ['\u0001\u00AD', []],
    ['\u0001\u200D', []],
    ['\u0001\u0061\u2060', ['\u0061\u2060']], // WORD JOINER (Format) stays with the letter
    ['\u0001\u0061\u003A', ['\u0061']],
    ['\u0001\u0061\u0027\u2060', ['\u0061']],
    ['\u0001\u0031\u003A', ['\u0031']],
    ['\u0031\u005F\u0061\u002C\u002E\u0061', ['\u0031\u005F\u0061', '\u0061']],
    ['\u0031\u002C\u002C\u0031', ['\u0031', '\u0031']],
    ['\u0061\u005F\u0031\u003A\u003A\u0031', ['\u0061\u005F\u0031', '\u0031']],
    ['\u0061\u002E\u003A\u0061', ['\u0061', '\u0061']],
  ];
  for (const [input, want] of CASES) {
    it(JSON.stringify(input), () => expect(texts(input)).toEqual(want));
  }
});

describe('StandardTokenizer: cases worked out from UAX#29 and the grammar', () => {
  it('numbers keep their , and . separators (WB11, WB12) and are <NUM>', () => {
    expect(standardTokens('1,000,000 3.5 0.05 2,000.50')).toEqual([
      { text: '1,000,000', type: '<NUM>', start: 0, end: 9 },
      { text: '3.5', type: '<NUM>', start: 10, end: 13 },
      { text: '0.05', type: '<NUM>', start: 14, end: 18 },
      { text: '2,000.50', type: '<NUM>', start: 19, end: 27 },
    ]);
    // a trailing or leading separator is not part of the number; symbols are dropped
    expect(texts('$5.00, 50% 7.')).toEqual(['5.00', '50', '7']);
  });

  it('a number joined to letters is <ALPHANUM> (WB9, WB10)', () => {
    expect(standardTokens('3.5x v1.2.3')).toEqual([
      { text: '3.5x', type: '<ALPHANUM>', start: 0, end: 4 },
      { text: 'v1.2.3', type: '<ALPHANUM>', start: 5, end: 11 },
    ]);
  });

  it('hyphens split: "IL-6" gives IL and 6', () => {
    expect(standardTokens('IL-6')).toEqual([
      { text: 'IL', type: '<ALPHANUM>', start: 0, end: 2 },
      { text: '6', type: '<NUM>', start: 3, end: 4 },
    ]);
    expect(texts('A1B2-C3 a-b_c')).toEqual(['A1B2', 'C3', 'a', 'b_c']);
  });

  it('apostrophes between letters join (WB6, WB7), including U+2019; a trailing one does not', () => {
    expect(texts("don't O'Neil's")).toEqual(["don't", "O'Neil's"]);
    expect(texts('O\u2019Neil\u2019s can\u2019t')).toEqual(['O\u2019Neil\u2019s', 'can\u2019t']);
    expect(texts("dogs' backs 'quoted'")).toEqual(['dogs', 'backs', 'quoted']);
  });

  it('abbreviations lose only the final full stop: "e.g." → "e.g", "U.S.A." → "U.S.A"', () => {
    expect(standardTokens('e.g. U.S.A.')).toEqual([
      { text: 'e.g', type: '<ALPHANUM>', start: 0, end: 3 },
      { text: 'U.S.A', type: '<ALPHANUM>', start: 5, end: 10 },
    ]);
    expect(texts('...abc... foo.bar.baz')).toEqual(['abc', 'foo.bar.baz']);
  });

  it('underscores (ExtendNumLet) join and may lead or trail (WB13a, WB13b)', () => {
    expect(texts('foo_bar _a_ a_ __')).toEqual(['foo_bar', '_a_', 'a_']);
    expect(standardTokens('1_')).toEqual([{ text: '1_', type: '<NUM>', start: 0, end: 2 }]);
    expect(standardTokens('カ_カ')).toEqual([{ text: 'カ_カ', type: '<ALPHANUM>', start: 0, end: 3 }]);
  });

  it('e-mail addresses and URLs split as UAX#29 splits them (no special rule)', () => {
    expect(texts('test@example.com')).toEqual(['test', 'example.com']);
    expect(standardTokens('http://www.example.com/a?b=c')).toEqual([
      { text: 'http', type: '<ALPHANUM>', start: 0, end: 4 },
      { text: 'www.example.com', type: '<ALPHANUM>', start: 7, end: 22 },
      { text: 'a', type: '<ALPHANUM>', start: 23, end: 24 },
      { text: 'b', type: '<ALPHANUM>', start: 25, end: 26 },
      { text: 'c', type: '<ALPHANUM>', start: 27, end: 28 },
    ]);
    expect(texts('C++ C# AT&T')).toEqual(['C', 'C', 'AT', 'T']);
  });

  it('CJK: one ideograph per token; hiragana one per token; katakana and hangul runs', () => {
    expect(standardTokens('東京タワーとスカイツリー')).toEqual([
      { text: '東', type: '<IDEOGRAPHIC>', start: 0, end: 1 },
      { text: '京', type: '<IDEOGRAPHIC>', start: 1, end: 2 },
      { text: 'タワー', type: '<KATAKANA>', start: 2, end: 5 },
      { text: 'と', type: '<HIRAGANA>', start: 5, end: 6 },
      { text: 'スカイツリー', type: '<KATAKANA>', start: 6, end: 12 },
    ]);
    expect(texts('ひらがな')).toEqual(['ひ', 'ら', 'が', 'な']);
    expect(types('ひらがな')).toEqual(Array(4).fill('<HIRAGANA>'));
    // half-width katakana with its half-width voiced mark, and the prolonged sound mark
    expect(standardTokens('ﾊﾟｶﾀｶﾅｰ')).toEqual([{ text: 'ﾊﾟｶﾀｶﾅｰ', type: '<KATAKANA>', start: 0, end: 7 }]);
    // katakana then digits: no WB rule joins them
    expect(texts('ｱｲ123')).toEqual(['ｱｲ', '123']);
    // a Hangul syllable run with a digit is a word, no longer <HANGUL>
    expect(standardTokens('아3')).toEqual([{ text: '아3', type: '<ALPHANUM>', start: 0, end: 2 }]);
    // Han never joins letters or digits (WB999)
    expect(texts('中a a中 3中')).toEqual(['中', 'a', 'a', '中', '3', '中']);
  });

  it('Thai is one <SOUTHEAST_ASIAN> token per run, split from Latin and Arabic-Indic digits', () => {
    expect(standardTokens('ภาษาไทยabc กข١٢')).toEqual([
      { text: 'ภาษาไทย', type: '<SOUTHEAST_ASIAN>', start: 0, end: 7 },
      { text: 'abc', type: '<ALPHANUM>', start: 7, end: 10 },
      { text: 'กข', type: '<SOUTHEAST_ASIAN>', start: 11, end: 13 },
      { text: '١٢', type: '<NUM>', start: 13, end: 15 },
    ]);
  });

  it('combining marks stay inside the word (WB4), in Latin, Devanagari and Hebrew', () => {
    expect(texts('cafe\u0301 x\u0301\u0302y')).toEqual(['cafe\u0301', 'x\u0301\u0302y']);
    expect(texts('नमस्ते')).toEqual(['नमस्ते']);
    expect(texts('\u05D0\u05B0')).toEqual(['\u05D0\u05B0']);
    // SOFT HYPHEN is Format: it does not break a word
    expect(texts('x\u00ADy')).toEqual(['x\u00ADy']);
  });

  it('Hebrew letters take a trailing single quote (WB7a) and a double quote between letters (WB7b, WB7c)', () => {
    expect(texts('\u05D0"\u05D1')).toEqual(['\u05D0"\u05D1']);
    expect(texts("\u05D0'")).toEqual(["\u05D0'"]);
    expect(texts("a'")).toEqual(['a']);
  });

  it('superscripts and vulgar fractions are not numbers (Line_Break AI), Roman numerals are letters', () => {
    expect(texts('x² ½')).toEqual(['x']);
    expect(standardTokens('Ⅻ')).toEqual([{ text: 'Ⅻ', type: '<ALPHANUM>', start: 0, end: 1 }]);
  });

  it('emoji: flags, an odd regional indicator, skin tones, ZWJ families, keycaps, presentation selectors', () => {
    const us = '\u{1F1FA}\u{1F1F8}';
    // a third regional indicator alone is no token
    expect(standardTokens(us + '\u{1F1FA}')).toEqual([{ text: us, type: '<EMOJI>', start: 0, end: 4 }]);
    expect(texts('a\u{1F1E6}\u{1F1E7}\u{1F1E8}b')).toEqual(['a', '\u{1F1E6}\u{1F1E7}', 'b']);
    // thumbs up + medium skin tone
    expect(standardTokens('\u{1F44D}\u{1F3FD}')).toEqual([{ text: '\u{1F44D}\u{1F3FD}', type: '<EMOJI>', start: 0, end: 4 }]);
    // baby + dark skin tone, then another baby: no ZWJ, two tokens
    expect(texts('\u{1F476}\u{1F3FF}\u{1F476}')).toEqual(['\u{1F476}\u{1F3FF}', '\u{1F476}']);
    // family: man ZWJ woman ZWJ girl
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(standardTokens(family)).toEqual([{ text: family, type: '<EMOJI>', start: 0, end: 8 }]);
    // keycap one: 1 U+FE0F U+20E3, and without the selector
    expect(standardTokens('1\uFE0F\u20E3')).toEqual([{ text: '1\uFE0F\u20E3', type: '<EMOJI>', start: 0, end: 3 }]);
    expect(standardTokens('*\u20E3')).toEqual([{ text: '*\u20E3', type: '<EMOJI>', start: 0, end: 2 }]);
    // a digit with only the emoji presentation selector is a number (the selector is WB:Extend)
    expect(standardTokens('1\uFE0F')).toEqual([{ text: '1\uFE0F', type: '<NUM>', start: 0, end: 2 }]);
    // heart + VS16, copyright sign (an "accidental" emoji, still \p{Emoji})
    expect(standardTokens('\u2764\uFE0F \u00A9')).toEqual([
      { text: '\u2764\uFE0F', type: '<EMOJI>', start: 0, end: 2 },
      { text: '\u00A9', type: '<EMOJI>', start: 3, end: 4 },
    ]);
    // a letter keeps a ZWJ after it (WB4); the emoji after is its own token
    expect(texts('a\u200D\u{1F6D1}')).toEqual(['a\u200D', '\u{1F6D1}']);
  });

  it('surrogate pairs: 𝒜 (U+1D49C, Word_Break ALetter in Unicode 9) is a letter; offsets count UTF-16 units', () => {
    expect(standardTokens('𝒜bc d')).toEqual([
      { text: '𝒜bc', type: '<ALPHANUM>', start: 0, end: 4 },
      { text: 'd', type: '<ALPHANUM>', start: 5, end: 6 },
    ]);
    // Deseret (letters with case) and mathematical bold capitals
    expect(texts('\u{10400}\u{10428} \u{1D400}\u{1D401}')).toEqual(['\u{10400}\u{10428}', '\u{1D400}\u{1D401}']);
    // Lucene's testSplitSurrogatePairWithSpoonFeedReader text: OLD ITALIC LETTER A joins the digits (WB10)
    expect(standardTokens('12345678\uD800\uDF00')).toEqual([{ text: '12345678\uD800\uDF00', type: '<ALPHANUM>', start: 0, end: 10 }]);
  });

  it('lone surrogates are skipped like any other unmatched character', () => {
    expect(spans('a\uD800b \uDC00c \uD800')).toEqual([
      [0, 1],
      [2, 3],
      [5, 6],
    ]);
  });
});

describe('StandardTokenizer: the 255-unit limit', () => {
  it('a 300-letter word is cut into 255 + 45 with correct offsets', () => {
    const long = 'a'.repeat(300);
    expect(standardTokens(`x ${long} y`)).toEqual([
      { text: 'x', type: '<ALPHANUM>', start: 0, end: 1 },
      { text: 'a'.repeat(255), type: '<ALPHANUM>', start: 2, end: 257 },
      { text: 'a'.repeat(45), type: '<ALPHANUM>', start: 257, end: 302 },
      { text: 'y', type: '<ALPHANUM>', start: 303, end: 304 },
    ]);
  });

  it('numbers, Thai runs and other token types are cut the same way', () => {
    expect(spans('1'.repeat(600))).toEqual([
      [0, 255],
      [255, 510],
      [510, 600],
    ]);
    expect(types('1'.repeat(600))).toEqual(['<NUM>', '<NUM>', '<NUM>']);
    expect(standardTokens('中中ภ' + 'ภ'.repeat(299)).map((t) => [t.type, t.start, t.end])).toEqual([
      ['<IDEOGRAPHIC>', 0, 1],
      ['<IDEOGRAPHIC>', 1, 2],
      ['<SOUTHEAST_ASIAN>', 2, 257],
      ['<SOUTHEAST_ASIAN>', 257, 302],
    ]);
  });

  it('the scanner sees only 255 units: a join that needs the 256th unit does not happen', () => {
    // "a"×254 + "'b" would be one word, but the apostrophe is the 255th unit and "b" the 256th
    const input = 'a'.repeat(254) + "'b";
    expect(spans(input)).toEqual([
      [0, 254],
      [255, 256],
    ]);
  });

  it('a surrogate pair is never split: a run of 𝒜 is cut after 127 pairs (254 units)', () => {
    // JFlex holds back a high surrogate that ends a full buffer (zzFinalHighSurrogate)
    expect(spans('𝒜'.repeat(200))).toEqual([
      [0, 254],
      [254, 400],
    ]);
    expect(spans('a'.repeat(254) + '𝒜')).toEqual([
      [0, 254],
      [254, 256],
    ]);
  });
});

describe('StandardTokenizer: invariants on random text', () => {
  const alphabet = fc.constantFrom(
    'a',
    'Z',
    '7',
    ' ',
    '.',
    ',',
    "'",
    '_',
    '-',
    '\u2019',
    '\u0301',
    '中',
    'ひ',
    'カ',
    '한',
    'ก',
    '\u{1F4A9}',
    '\u{1F3FD}',
    '\u200D',
    '\uFE0F',
    '\u{1F1FA}',
    '𝒜',
    '\uD800',
    '\n',
  );
  const text = fc.array(alphabet, { maxLength: 80 }).map((cs) => cs.join(''));

  it('tokens are in order, do not overlap, hold their own slice, are 1..255 units long and contain no white space', () => {
    fc.assert(
      fc.property(text, (s) => {
        let prev = 0;
        for (const t of standardTokens(s)) {
          expect(t.start).toBeGreaterThanOrEqual(prev);
          expect(t.end).toBeGreaterThan(t.start);
          expect(t.end - t.start).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
          expect(t.text).toBe(s.slice(t.start, t.end));
          expect(/[ \n]/.test(t.text)).toBe(false);
          prev = t.end;
        }
      }),
      { numRuns: 500, seed: 29 },
    );
  });

  it('tokenizing words separated by spaces gives the words (cut at 255 units)', () => {
    const word = fc.stringMatching(/^[a-z]{1,600}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        const want: string[] = [];
        for (const w of words) for (let i = 0; i < w.length; i += 255) want.push(w.slice(i, i + 255));
        expect(texts(words.join(' '))).toEqual(want);
      }),
      { numRuns: 100, seed: 37 },
    );
  });
});
