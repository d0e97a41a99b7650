import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  EnglishAnalyzer,
  LUCENE_ENGLISH_STOP_WORDS,
  analyzeEnglish,
  javaLowerCase,
  stripPossessive,
} from '../../../src/core/text/lucene/english.ts';

/**
 * Anserini's DefaultEnglishAnalyzer: StandardTokenizer → EnglishPossessiveFilter → LowerCaseFilter →
 * StopFilter(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET) → PorterStemFilter. Expected terms come from Lucene's
 * TestEnglishAnalyzer, Anserini's EnglishStemmingAnalyzerTest, Java's Character.toLowerCase (simple case
 * mapping) and the Porter rules worked by hand.
 */

describe('EnglishPossessiveFilter (stripPossessive)', () => {
  it("removes a trailing 's with ', U+2019 or U+FF07, either case of s", () => {
    expect(stripPossessive("John's")).toBe('John');
    expect(stripPossessive("JOHN'S")).toBe('JOHN');
    expect(stripPossessive('dog\u2019s')).toBe('dog');
    expect(stripPossessive('steven\uFF07s')).toBe('steven');
  });

  it('leaves everything else', () => {
    expect(stripPossessive('dogs')).toBe('dogs');
    expect(stripPossessive("dogs'")).toBe("dogs'");
    expect(stripPossessive("x's'")).toBe("x's'");
    expect(stripPossessive('dog`s')).toBe('dog`s');
    expect(stripPossessive('dog\u2018s')).toBe('dog\u2018s');
    expect(stripPossessive('s')).toBe('s');
    expect(stripPossessive('')).toBe('');
    // only the last two units are looked at: "'s" alone becomes empty
    expect(stripPossessive("'s")).toBe('');
  });
});

describe('LowerCaseFilter (javaLowerCase): Java Character.toLowerCase per code point', () => {
  it('İ (U+0130) becomes a plain i, not i + combining dot', () => {
    expect(javaLowerCase('İstanbul')).toBe('istanbul');
    expect(javaLowerCase('İstanbul')).not.toBe('İstanbul'.toLowerCase());
  });

  it('capital sigma always becomes σ, never the final ς', () => {
    expect(javaLowerCase('ΟΔΟΣ')).toBe('οδοσ');
    expect(javaLowerCase('ΣΟΦΙΑΣ')).toBe('σοφιασ');
    expect(javaLowerCase('İΣ')).toBe('iσ');
    expect('ΟΔΟΣ'.toLowerCase()).toBe('οδος');
  });

  it('everything else lowercases as usual, supplementary letters and titlecase digraphs included', () => {
    expect(javaLowerCase('ABC xyz')).toBe('abc xyz');
    expect(javaLowerCase('ÀÉÎÕÜ')).toBe('àéîõü');
    expect(javaLowerCase('\u{10400}\u{10401}')).toBe('\u{10428}\u{10429}');
    expect(javaLowerCase('\u01C4\u01C5')).toBe('\u01C6\u01C6');
    expect(javaLowerCase('ẞ')).toBe('ß');
    expect(javaLowerCase('中文 123')).toBe('中文 123');
  });

  it('never changes the length in UTF-16 units (the simple mapping is one to one)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), (s) => {
        expect(javaLowerCase(s).length).toBe(s.length);
      }),
      { numRuns: 500, seed: 5 },
    );
  });
});

describe('StopFilter: ENGLISH_STOP_WORDS_SET', () => {
  it('holds exactly Lucene’s 33 words', () => {
    expect([...LUCENE_ENGLISH_STOP_WORDS].sort()).toEqual(
      [
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
      ].sort(),
    );
  });
});

describe('analyzeEnglish', () => {
  it("TestEnglishAnalyzer.testBasics: stemming, a stop word, possessives with ', ’ and ＇", () => {
    expect(analyzeEnglish('books')).toEqual(['book']);
    expect(analyzeEnglish('book')).toEqual(['book']);
    expect(analyzeEnglish('the')).toEqual([]);
    expect(analyzeEnglish("steven's")).toEqual(['steven']);
    expect(analyzeEnglish('steven\u2019s')).toEqual(['steven']);
    expect(analyzeEnglish('steven\uFF07s')).toEqual(['steven']);
  });

  it("Anserini's EnglishStemmingAnalyzerTest sentence", () => {
    expect(analyzeEnglish('City buses are running on schedule.')).toEqual(['citi', 'buse', 'run', 'schedul']);
  });

  it('possessives go before lowercasing and stemming', () => {
    expect(analyzeEnglish("John's")).toEqual(['john']);
    expect(analyzeEnglish("JOHN'S")).toEqual(['john']);
    expect(analyzeEnglish('dog\u2019s')).toEqual(['dog']);
    // "It's" loses its 's, and "it" is a stop word
    expect(analyzeEnglish("It's")).toEqual([]);
    // the possessive goes, the inner apostrophe stays; y → i
    expect(analyzeEnglish("O'Reilly's")).toEqual(["o'reilli"]);
  });

  it('stop words are matched after lowercasing', () => {
    expect(analyzeEnglish('THE The the a An AND Such THERE')).toEqual([]);
    // "was" is a stop word, "were" and "he" are not
    expect(analyzeEnglish('he was were')).toEqual(['he', 'were']);
  });

  it('Java lowercasing reaches the index terms', () => {
    expect(analyzeEnglish('İstanbul')).toEqual(['istanbul']);
    expect(analyzeEnglish('ΟΔΟΣ')).toEqual(['οδοσ']);
  });

  it('a sentence, term by term', () => {
    // foxes → foxe → fox (step 6 drops the e: m = 1 and "fox" ends in x); lazy → lazi; dogs' → dogs → dog
    expect(analyzeEnglish("The quick brown foxes were jumping over the lazy dogs' backs.")).toEqual([
      'quick',
      'brown',
      'fox',
      'were',
      'jump',
      'over',
      'lazi',
      'dog',
      'back',
    ]);
  });

  it('numbers, CJK and emoji pass through the filters unchanged', () => {
    expect(analyzeEnglish('IL-6 raised 3.5-fold in 中国 👍🏽')).toEqual(['il', '6', 'rais', '3.5', 'fold', '中', '国', '👍🏽']);
  });

  it('a stop word over the token limit is not removed: the pieces are what is filtered', () => {
    // a 256-letter "aaa…" is cut into 255 + "a", and the lone "a" is a stop word
    expect(analyzeEnglish('a'.repeat(256))).toEqual(['a'.repeat(255)]);
  });
});

describe('EnglishAnalyzer (the interning analyzer used to index)', () => {
  it('gives analyzeEnglish’s terms, text after text, with one analyzer', () => {
    const analyzer = new EnglishAnalyzer();
    const texts = ["John's books", 'JOHN\u2019S BOOKS', 'the Books of John', 'İstanbul ΟΔΟΣ', "John's books"];
    for (const t of texts) expect(analyzer.analyze(t)).toEqual(analyzeEnglish(t));
  });

  it('agrees with analyzeEnglish on random text, including after the table grows', () => {
    const analyzer = new EnglishAnalyzer();
    const token = fc.constantFrom(
      'run',
      'Running',
      'RUNS',
      "run's",
      'the',
      'The',
      'a',
      'İs',
      'Σ',
      'ΟΔΟΣ',
      '中',
      '3.5',
      'e.g.',
      'dog\u2019s',
      '👍🏽',
      'x_y',
    );
    const text = fc.array(fc.oneof(token, fc.stringMatching(/^[a-zA-Z]{1,8}$/)), { maxLength: 30 }).map((ts) => ts.join(' '));
    fc.assert(
      fc.property(text, (t) => {
        expect(analyzer.analyze(t)).toEqual(analyzeEnglish(t));
      }),
      { numRuns: 1000, seed: 11 },
    );
  });

  it('keeps apart two raw tokens whose 32-bit FNV-1a hashes collide', () => {
    const fnv1a = (s: string): number => {
      let h = 0x811c9dc5 | 0;
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
      return h;
    };
    const [x, y] = ["B15ux's", 'b31s6ing'];
    expect(fnv1a(x)).toBe(fnv1a(y));
    const analyzer = new EnglishAnalyzer();
    expect(analyzer.analyze(`${x} ${y} ${y} ${x}`)).toEqual(['b15ux', 'b31s6ing', 'b31s6ing', 'b15ux']);
    expect(analyzer.analyze(`${y} ${x}`)).toEqual(['b31s6ing', 'b15ux']);
  });

  it('keeps tens of thousands of distinct tokens apart (hash collisions and rehashing)', () => {
    const analyzer = new EnglishAnalyzer();
    // 60 000 distinct tokens: 32-bit hashes of this many strings collide with high probability
    const words: string[] = [];
    for (let i = 0; i < 60_000; i++) words.push(`w${i.toString(36)}x${(i * 7919) % 10007}`);
    const text = words.join(' ');
    expect(analyzer.analyze(text)).toEqual(analyzeEnglish(text));
    // a second pass hits the remembered entries
    const shuffled = [...words].reverse().join(' ');
    expect(analyzer.analyze(shuffled)).toEqual(analyzeEnglish(shuffled));
  });
});
