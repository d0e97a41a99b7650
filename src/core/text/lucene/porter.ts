/**
 * The Porter stemmer as Lucene's PorterStemFilter applies it (org.apache.lucene.analysis.en.PorterStemmer):
 * Martin Porter's own implementation of his 1980 algorithm (release 3 of the reference C/Java code, with its
 * two bug fixes and its departures from the paper: "bli" → "ble" where the paper has "abli" → "able", and
 * the extra "logi" → "log" rule). Words of one or two UTF-16 units are left alone; any character other than
 * a, e, i, o, u (and y after a consonant) counts as a consonant, digits and non-Latin letters included.
 * Written from the algorithm; the step names follow the reference code (its step3 is the paper's step 2).
 */

/** The stem of `word` (lowercase expected, as the analyzer lowercases before stemming). */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  return new Stemmer(word).stem();
}

class Stemmer {
  readonly #b: string[];
  /** Last index of the word as it stands. */
  #k: number;
  /** Last index of the stem before the suffix `ends` just matched. */
  #j = 0;

  constructor(word: string) {
    this.#b = word.split('');
    this.#k = word.length - 1;
  }

  stem(): string {
    this.#step1();
    this.#step2();
    this.#step3();
    this.#step4();
    this.#step5();
    this.#step6();
    return this.#b.slice(0, this.#k + 1).join('');
  }

  #cons(i: number): boolean {
    switch (this.#b[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u':
        return false;
      case 'y':
        return i === 0 ? true : !this.#cons(i - 1);
      default:
        return true;
    }
  }

  /** The number of vowel–consonant sequences in b[0..j]: [C](VC)^m[V]. */
  #m(): number {
    const j = this.#j;
    let n = 0;
    let i = 0;
    for (;;) {
      if (i > j) return n;
      if (!this.#cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > j) return n;
        if (this.#cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > j) return n;
        if (!this.#cons(i)) break;
        i++;
      }
      i++;
    }
  }

  #vowelInStem(): boolean {
    for (let i = 0; i <= this.#j; i++) if (!this.#cons(i)) return true;
    return false;
  }

  #doubleC(j: number): boolean {
    return j >= 1 && this.#b[j] === this.#b[j - 1] && this.#cons(j);
  }

  /** b[i-2..i] is consonant–vowel–consonant and b[i] is not w, x or y. */
  #cvc(i: number): boolean {
    if (i < 2 || !this.#cons(i) || this.#cons(i - 1) || !this.#cons(i - 2)) return false;
    const ch = this.#b[i];
    return ch !== 'w' && ch !== 'x' && ch !== 'y';
  }

  #ends(s: string): boolean {
    const o = this.#k - s.length + 1;
    if (o < 0) return false;
    for (let i = 0; i < s.length; i++) if (this.#b[o + i] !== s[i]) return false;
    this.#j = this.#k - s.length;
    return true;
  }

  #setTo(s: string): void {
    const o = this.#j + 1;
    for (let i = 0; i < s.length; i++) this.#b[o + i] = s[i]!;
    this.#k = this.#j + s.length;
  }

  #r(s: string): void {
    if (this.#m() > 0) this.#setTo(s);
  }

  /** Plurals, -ed and -ing. */
  #step1(): void {
    if (this.#b[this.#k] === 's') {
      if (this.#ends('sses')) this.#k -= 2;
      else if (this.#ends('ies')) this.#setTo('i');
      else if (this.#b[this.#k - 1] !== 's') this.#k--;
    }
    if (this.#ends('eed')) {
      if (this.#m() > 0) this.#k--;
    } else if ((this.#ends('ed') || this.#ends('ing')) && this.#vowelInStem()) {
      this.#k = this.#j;
      if (this.#ends('at')) this.#setTo('ate');
      else if (this.#ends('bl')) this.#setTo('ble');
      else if (this.#ends('iz')) this.#setTo('ize');
      else if (this.#doubleC(this.#k)) {
        const ch = this.#b[this.#k--];
        if (ch === 'l' || ch === 's' || ch === 'z') this.#k++;
      } else if (this.#m() === 1 && this.#cvc(this.#k)) this.#setTo('e');
    }
  }

  /** Terminal y to i when the stem has a vowel. */
  #step2(): void {
    if (this.#ends('y') && this.#vowelInStem()) this.#b[this.#k] = 'i';
  }

  /** Double suffixes to single ones (-ization → -ize, ...), when m > 0 before them. */
  #step3(): void {
    if (this.#k === 0) return;
    const rules = STEP3[this.#b[this.#k - 1]!];
    if (rules) this.#firstRule(rules);
  }

  /** -ic-, -full, -ness and the like. */
  #step4(): void {
    const rules = STEP4[this.#b[this.#k]!];
    if (rules) this.#firstRule(rules);
  }

  /** The first rule whose suffix the word ends with is applied (if m > 0) and no other is tried. */
  #firstRule(rules: readonly (readonly [string, string])[]): void {
    for (const [suffix, replacement] of rules) {
      if (this.#ends(suffix)) {
        this.#r(replacement);
        return;
      }
    }
  }

  /** -ant, -ence and the like, in context <c>vcvc<v> (m > 1). */
  #step5(): void {
    if (this.#k === 0) return;
    switch (this.#b[this.#k - 1]) {
      case 'a':
        if (this.#ends('al')) break;
        return;
      case 'c':
        if (this.#ends('ance') || this.#ends('ence')) break;
        return;
      case 'e':
        if (this.#ends('er')) break;
        return;
      case 'i':
        if (this.#ends('ic')) break;
        return;
      case 'l':
        if (this.#ends('able') || this.#ends('ible')) break;
        return;
      case 'n':
        if (this.#ends('ant') || this.#ends('ement') || this.#ends('ment') || this.#ends('ent')) break;
        return;
      case 'o':
        if (this.#ends('ion') && this.#j >= 0 && (this.#b[this.#j] === 's' || this.#b[this.#j] === 't')) break;
        if (this.#ends('ou')) break;
        return;
      case 's':
        if (this.#ends('ism')) break;
        return;
      case 't':
        if (this.#ends('ate') || this.#ends('iti')) break;
        return;
      case 'u':
        if (this.#ends('ous')) break;
        return;
      case 'v':
        if (this.#ends('ive')) break;
        return;
      case 'z':
        if (this.#ends('ize')) break;
        return;
      default:
        return;
    }
    if (this.#m() > 1) this.#k = this.#j;
  }

  /** A final -e when m > 1 (or m = 1 and not *o), and -ll → -l when m > 1. */
  #step6(): void {
    this.#j = this.#k;
    if (this.#b[this.#k] === 'e') {
      const a = this.#m();
      if (a > 1 || (a === 1 && !this.#cvc(this.#k - 1))) this.#k--;
    }
    if (this.#b[this.#k] === 'l' && this.#doubleC(this.#k) && this.#m() > 1) this.#k--;
  }
}

/** step3's rules by the word's second-to-last letter, in the reference's order. */
const STEP3: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
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

/** step4's rules by the word's last letter. */
const STEP4: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
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
