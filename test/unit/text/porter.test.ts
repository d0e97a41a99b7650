import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { porterStem } from '../../../src/core/text/lucene/porter.ts';

/**
 * Lucene's PorterStemmer is Martin Porter's reference implementation (release 3), which departs from the
 * 1980 paper in two places: step 2's "abli" → "able" is "bli" → "ble", and "logi" → "log" is added. Every
 * expectation below is a full stem (all six steps), checked by hand against that code; the paper and the
 * reference comments list the output of one step, which is said where it differs.
 */

describe('porterStem: the reference code comments (step 1: plurals, -ed, -ing)', () => {
  const CASES: ReadonlyArray<readonly [string, string]> = [
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['caress', 'caress'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['matting', 'mat'],
    ['mating', 'mate'],
    ['meeting', 'meet'],
    ['milling', 'mill'],
    ['messing', 'mess'],
    ['meetings', 'meet'],
  ];
  for (const [word, stem] of CASES) it(`${word} → ${stem}`, () => expect(porterStem(word)).toBe(stem));

  // The comments give step 1's output ("agree", "disable"); the later steps go on: step 6 drops the final e
  // of "agree" (m = 1 and "gre" is not consonant–vowel–consonant), and of "disable" (m = 2; step 5 leaves
  // "able" since m("dis") = 1).
  it('agreed → agre (step 1 gives "agree")', () => expect(porterStem('agreed')).toBe('agre'));
  it('disabled → disabl (step 1 gives "disable")', () => expect(porterStem('disabled')).toBe('disabl'));
});

describe("porterStem: the examples of Porter's 1980 paper, as full stems", () => {
  const CASES: ReadonlyArray<readonly [string, string]> = [
    // step 2 (the reference code's step3), then the rest
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['rational', 'ration'],
    ['valenci', 'valenc'],
    ['hesitanci', 'hesit'],
    ['digitizer', 'digit'],
    // "bli" → "ble" gives "conformable", then step 4 removes "able" (m("conform") = 2)
    ['conformabli', 'conform'],
    ['radicalli', 'radic'],
    ['differentli', 'differ'],
    ['vileli', 'vile'],
    ['analogousli', 'analog'],
    ['vietnamization', 'vietnam'],
    ['predication', 'predic'],
    ['operator', 'oper'],
    ['feudalism', 'feudal'],
    ['decisiveness', 'decis'],
    ['hopefulness', 'hope'],
    ['callousness', 'callous'],
    ['formaliti', 'formal'],
    ['sensitiviti', 'sensit'],
    ['sensibiliti', 'sensibl'],
    // step 3
    ['triplicate', 'triplic'],
    ['formative', 'form'],
    ['formalize', 'formal'],
    ['electriciti', 'electr'],
    ['electrical', 'electr'],
    ['hopeful', 'hope'],
    ['goodness', 'good'],
    // step 4
    ['revival', 'reviv'],
    ['allowance', 'allow'],
    ['inference', 'infer'],
    ['airliner', 'airlin'],
    ['gyroscopic', 'gyroscop'],
    ['adjustable', 'adjust'],
    ['defensible', 'defens'],
    ['irritant', 'irrit'],
    ['replacement', 'replac'],
    ['adjustment', 'adjust'],
    ['dependent', 'depend'],
    ['adoption', 'adopt'],
    ['homologou', 'homolog'],
    ['communism', 'commun'],
    ['activate', 'activ'],
    ['angulariti', 'angular'],
    ['homologous', 'homolog'],
    ['effective', 'effect'],
    ['bowdlerize', 'bowdler'],
    // step 5
    ['probate', 'probat'],
    ['rate', 'rate'],
    ['cease', 'ceas'],
    ['controll', 'control'],
    ['roll', 'roll'],
    // whole words through several steps
    ['generalizations', 'gener'],
    ['oscillators', 'oscil'],
  ];
  for (const [word, stem] of CASES) it(`${word} → ${stem}`, () => expect(porterStem(word)).toBe(stem));
});

describe('porterStem: the reference departures from the paper, and other rules', () => {
  it('"bli" → "ble" (the paper has "abli" → "able")', () => {
    // step 2 makes "possible", step 4 leaves "ible" (m("poss") = 1), step 6 drops the e (m = 2)
    expect(porterStem('possibli')).toBe('possibl');
  });

  it('"logi" → "log" (not in the paper)', () => {
    expect(porterStem('archaeologi')).toBe('archaeolog');
    // "-logy": y → i (the stem has a vowel), then logi → log when m > 0 before it
    expect(porterStem('psychology')).toBe('psycholog');
    // m("bio") = 0: "biologi" keeps its i
    expect(porterStem('biology')).toBe('biologi');
  });

  it('y is a vowel after a consonant, a consonant first or after a vowel', () => {
    expect(porterStem('happy')).toBe('happi');
    expect(porterStem('sky')).toBe('sky');
    expect(porterStem('toy')).toBe('toi');
    expect(porterStem('syzygy')).toBe('syzygi');
  });

  it('-ion is removed only after s or t', () => {
    expect(porterStem('adoption')).toBe('adopt');
    expect(porterStem('decision')).toBe('decis');
    expect(porterStem('opinion')).toBe('opinion');
  });

  it('Lucene tests and Anserini tests', () => {
    // TestPorterStemFilter.testWithKeywordAttribute (the unprotected word)
    expect(porterStem('yours')).toBe('your');
    expect(porterStem('yourselves')).toBe('yourselv');
    // TestEnglishAnalyzer.testBasics
    expect(porterStem('books')).toBe('book');
    // Anserini's EnglishStemmingAnalyzerTest: "City buses are running on schedule."
    expect(['city', 'buses', 'running', 'schedule'].map(porterStem)).toEqual(['citi', 'buse', 'run', 'schedul']);
  });

  it('words of one or two units are left alone, even when a rule would apply', () => {
    for (const w of ['', 'a', 's', 'is', 'as', 'us', 'ed', 'y', 'ly']) expect(porterStem(w)).toBe(w);
    // three units: "ies" → "i", "sss" stays; "aed" and "oed" lose "ed" and leave k at 0 (the reference's bug 1,
    // fixed by the k == k0 guards of steps 3 and 5), "eed" keeps its "eed" (m = 0)
    expect(porterStem('ies')).toBe('i');
    expect(porterStem('sss')).toBe('sss');
    expect(porterStem('aed')).toBe('a');
    expect(porterStem('oed')).toBe('o');
    expect(porterStem('eed')).toBe('eed');
    // "ion" alone (the reference's bug 2)
    expect(porterStem('ion')).toBe('ion');
  });

  it('digits and non-ASCII letters count as consonants', () => {
    // "ing" is removed only when the stem has a vowel: é is none, a is
    expect(porterStem('éing')).toBe('éing');
    expect(porterStem('12ing')).toBe('12ing');
    // "ho" + consonant + "ing": m = 1 and consonant–vowel–consonant, so an e is restored, then kept
    expect(porterStem('hoping')).toBe('hope');
    expect(porterStem('ho1ing')).toBe('ho1e');
    expect(porterStem('hoéing')).toBe('hoée');
    // -ness needs m > 0 before it: "1234" has no vowel, "a1b2" has one VC
    expect(porterStem('1234ness')).toBe('1234ness');
    expect(porterStem('a1b2ness')).toBe('a1b2');
  });

  it('uppercase is not lowercased (the analyzer lowercases first)', () => {
    // S is a consonant letter the rules never match
    expect(porterStem('CATS')).toBe('CATS');
    expect(porterStem('cats')).toBe('cat');
  });
});

// ---------------------------------------------------------------------------------------------------------
// An independent transliteration of Lucene's PorterStemmer.java (char array, k0 = 0), as the oracle of a
// differential test over words built from the suffixes the rules look for.

function referenceStem(word: string): string {
  const b = word.split('');
  let k = b.length - 1;
  let j = 0;
  const cons = (i: number): boolean => {
    switch (b[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u':
        return false;
      case 'y':
        return i === 0 ? true : !cons(i - 1);
      default:
        return true;
    }
  };
  const m = (): number => {
    let n = 0;
    let i = 0;
    while (true) {
      if (i > j) return n;
      if (!cons(i)) break;
      i++;
    }
    i++;
    while (true) {
      while (true) {
        if (i > j) return n;
        if (cons(i)) break;
        i++;
      }
      i++;
      n++;
      while (true) {
        if (i > j) return n;
        if (!cons(i)) break;
        i++;
      }
      i++;
    }
  };
  const vowelinstem = (): boolean => {
    for (let i = 0; i <= j; i++) if (!cons(i)) return true;
    return false;
  };
  const doublec = (jj: number): boolean => jj >= 1 && b[jj] === b[jj - 1] && cons(jj);
  const cvc = (i: number): boolean => {
    if (i < 2 || !cons(i) || cons(i - 1) || !cons(i - 2)) return false;
    return b[i] !== 'w' && b[i] !== 'x' && b[i] !== 'y';
  };
  const ends = (s: string): boolean => {
    const o = k - s.length + 1;
    if (o < 0) return false;
    for (let i = 0; i < s.length; i++) if (b[o + i] !== s[i]) return false;
    j = k - s.length;
    return true;
  };
  const setto = (s: string): void => {
    for (let i = 0; i < s.length; i++) b[j + 1 + i] = s[i]!;
    k = j + s.length;
  };
  const r = (s: string): void => {
    if (m() > 0) setto(s);
  };
  const firstOf = (pairs: readonly (readonly [string, string])[]): void => {
    for (const [suffix, to] of pairs) {
      if (ends(suffix)) {
        r(to);
        return;
      }
    }
  };

  if (k <= 1) return word;
  // step1
  if (b[k] === 's') {
    if (ends('sses')) k -= 2;
    else if (ends('ies')) setto('i');
    else if (b[k - 1] !== 's') k--;
  }
  if (ends('eed')) {
    if (m() > 0) k--;
  } else if ((ends('ed') || ends('ing')) && vowelinstem()) {
    k = j;
    if (ends('at')) setto('ate');
    else if (ends('bl')) setto('ble');
    else if (ends('iz')) setto('ize');
    else if (doublec(k)) {
      const ch = b[k--];
      if (ch === 'l' || ch === 's' || ch === 'z') k++;
    } else if (m() === 1 && cvc(k)) setto('e');
  }
  // step2
  if (ends('y') && vowelinstem()) b[k] = 'i';
  // step3
  if (k !== 0) {
    const step3: Record<string, readonly (readonly [string, string])[]> = {
      a: [
        ['ational', 'ate'],
        ['tional', 'tion'],
      ],
      c: [
        ['enci', 'ence'],
        ['anci', 'ance'],
      ],
      e: [['izer', 'ize']],
      l: [
        ['bli', 'ble'],
        ['alli', 'al'],
        ['entli', 'ent'],
        ['eli', 'e'],
        ['ousli', 'ous'],
      ],
      o: [
        ['ization', 'ize'],
        ['ation', 'ate'],
        ['ator', 'ate'],
      ],
      s: [
        ['alism', 'al'],
        ['iveness', 'ive'],
        ['fulness', 'ful'],
        ['ousness', 'ous'],
      ],
      t: [
        ['aliti', 'al'],
        ['iviti', 'ive'],
        ['biliti', 'ble'],
      ],
      g: [['logi', 'log']],
    };
    firstOf(step3[b[k - 1]!] ?? []);
  }
  // step4
  const step4: Record<string, readonly (readonly [string, string])[]> = {
    e: [
      ['icate', 'ic'],
      ['ative', ''],
      ['alize', 'al'],
    ],
    i: [['iciti', 'ic']],
    l: [
      ['ical', 'ic'],
      ['ful', ''],
    ],
    s: [['ness', '']],
  };
  firstOf(step4[b[k]!] ?? []);
  // step5
  step5: if (k !== 0) {
    let hit = false;
    switch (b[k - 1]) {
      case 'a':
        hit = ends('al');
        break;
      case 'c':
        hit = ends('ance') || ends('ence');
        break;
      case 'e':
        hit = ends('er');
        break;
      case 'i':
        hit = ends('ic');
        break;
      case 'l':
        hit = ends('able') || ends('ible');
        break;
      case 'n':
        hit = ends('ant') || ends('ement') || ends('ment') || ends('ent');
        break;
      case 'o':
        hit = (ends('ion') && j >= 0 && (b[j] === 's' || b[j] === 't')) || ends('ou');
        break;
      case 's':
        hit = ends('ism');
        break;
      case 't':
        hit = ends('ate') || ends('iti');
        break;
      case 'u':
        hit = ends('ous');
        break;
      case 'v':
        hit = ends('ive');
        break;
      case 'z':
        hit = ends('ize');
        break;
    }
    if (!hit) break step5;
    if (m() > 1) k = j;
  }
  // step6
  j = k;
  if (b[k] === 'e') {
    const a = m();
    if (a > 1 || (a === 1 && !cvc(k - 1))) k--;
  }
  if (b[k] === 'l' && doublec(k) && m() > 1) k--;
  return b.slice(0, k + 1).join('');
}

describe('porterStem: differential test against a transliteration of the reference Java', () => {
  it('the oracle agrees with the hand-checked examples', () => {
    expect(referenceStem('generalizations')).toBe('gener');
    expect(referenceStem('conformabli')).toBe('conform');
    expect(referenceStem('agreed')).toBe('agre');
    expect(referenceStem('ies')).toBe('i');
  });

  const piece = fc.constantFrom(
    ...'abcdefgilmnorstuvyz'.split(''),
    '1',
    'é',
    'ss',
    'll',
    'at',
    'bl',
    'iz',
    'ed',
    'eed',
    'ing',
    'ies',
    'sses',
    'ational',
    'tional',
    'enci',
    'anci',
    'izer',
    'bli',
    'alli',
    'entli',
    'eli',
    'ousli',
    'ization',
    'ation',
    'ator',
    'alism',
    'iveness',
    'fulness',
    'ousness',
    'aliti',
    'iviti',
    'biliti',
    'logi',
    'icate',
    'ative',
    'alize',
    'iciti',
    'ical',
    'ful',
    'ness',
    'al',
    'ance',
    'ence',
    'er',
    'ic',
    'able',
    'ible',
    'ant',
    'ement',
    'ment',
    'ent',
    'sion',
    'tion',
    'ion',
    'ou',
    'ism',
    'ate',
    'iti',
    'ous',
    'ive',
    'ize',
  );
  const word = fc.array(piece, { minLength: 1, maxLength: 5 }).map((ps) => ps.join(''));

  it('agrees on random words made of suffixes and letters', () => {
    fc.assert(
      fc.property(word, (w) => {
        expect(porterStem(w)).toBe(referenceStem(w));
      }),
      { numRuns: 20_000, seed: 1980 },
    );
  });

  it('agrees on short random strings over a small alphabet', () => {
    const short = fc
      .array(fc.constantFrom('a', 'e', 'i', 'y', 's', 'l', 't', 'd', 'n', 'g', 'z'), { maxLength: 7 })
      .map((cs) => cs.join(''));
    fc.assert(
      fc.property(short, (w) => {
        expect(porterStem(w)).toBe(referenceStem(w));
      }),
      { numRuns: 20_000, seed: 1979 },
    );
  });

  it('never lengthens a word', () => {
    fc.assert(
      fc.property(word, (w) => {
        expect(porterStem(w).length).toBeLessThanOrEqual(w.length);
      }),
      { numRuns: 2_000, seed: 7 },
    );
  });
});
