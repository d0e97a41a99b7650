/**
 * Lucene's StandardTokenizer (org.apache.lucene.analysis.standard, the JFlex grammar
 * StandardTokenizerImpl.jflex): word boundaries of Unicode UAX#29 as Lucene implements them, over the
 * Unicode 12.1 character database and Unicode 14.0 emoji data (the versions Lucene 9 and 10 compile the grammar
 * against; uax29-classes.ts is generated from them), with Lucene's token types and its 255-character limit.
 *
 * The grammar is written below rule for rule as the .jflex file has it, compiled once (on first use) into a
 * deterministic automaton over the character classes of `uax29-classes.ts`, and run the way a JFlex scanner
 * runs: from each position the longest match of any rule, the earlier rule on equal length; a position no
 * rule matches (punctuation, spaces, symbols) is skipped one code point at a time. The scanner never looks
 * more than 255 UTF-16 units past a token's start (JFlex's `%buffer 255`, Lucene's default max token
 * length): a longer word is cut into pieces of at most 255 units, as Lucene cuts it.
 */
import { FNV_OFFSET, FNV_PRIME } from '../../fnv.ts';
import { grow } from '../../grow.ts';
import { BIT, CLASS_MASKS, RUN_CLASSES, RUN_STARTS } from './uax29-classes.ts';

/** Lucene's token types (StandardTokenizer.TOKEN_TYPES), by grammar rule. */
export const TOKEN_TYPES = [
  '<EMOJI>',
  '<NUM>',
  '<HANGUL>',
  '<KATAKANA>',
  '<ALPHANUM>',
  '<SOUTHEAST_ASIAN>',
  '<IDEOGRAPHIC>',
  '<HIRAGANA>',
] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH: the scanner's buffer, in UTF-16 units. */
export const MAX_TOKEN_LENGTH = 255;

// ---------------------------------------------------------------------------------------------------------
// The grammar, as regular expressions over sets of character classes.

type Pred = (mask: number) => boolean;
type Re =
  | { readonly k: 'set'; readonly pred: Pred }
  | { readonly k: 'seq'; readonly items: readonly Re[] }
  | { readonly k: 'alt'; readonly items: readonly Re[] }
  | { readonly k: 'star'; readonly r: Re };

const has =
  (bits: number): Pred =>
  (m) =>
    (m & bits) !== 0;
const set = (pred: Pred): Re => ({ k: 'set', pred });
const seq = (...items: Re[]): Re => ({ k: 'seq', items });
const alt = (...items: Re[]): Re => ({ k: 'alt', items });
const star = (r: Re): Re => ({ k: 'star', r });
const plus = (r: Re): Re => seq(r, star(r));
const opt = (r: Re): Re => alt(r, seq());

/** The rules in the .jflex file's order (its token types), the catch-all `[^]` left to the scanner. */
function grammar(): Re[] {
  // UAX#29 WB4: X (Extend | Format | ZWJ)* → X
  const extFmtZwj = star(set(has(BIT.EXT)));
  const ex = (bits: number) => seq(set(has(bits)), extFmtZwj);
  // ...without the presentation selectors, for emoji sequences
  const extSansSel = star(set((m) => (m & BIT.EXT) !== 0 && (m & (BIT.PRES_SEL | BIT.TEXT_SEL)) === 0));
  const exSans = (bits: number) => seq(set(has(bits)), extSansSel);

  const zwj = set(has(BIT.ZWJ));
  const presSel = set(has(BIT.PRES_SEL));
  const emojiCharOrPresSeqOrModSeq = alt(
    seq(star(zwj), exSans(BIT.EMOJI_CHAR), opt(presSel)),
    seq(opt(seq(star(zwj), exSans(BIT.EMOJI_MOD_BASE))), exSans(BIT.EMOJI_MOD)),
  );
  const emoji = alt(
    seq(
      emojiCharOrPresSeqOrModSeq,
      alt(star(seq(zwj, emojiCharOrPresSeqOrModSeq)), seq(plus(set(has(BIT.TAG_SPEC))), set(has(BIT.TAG_TERM)))),
    ),
    seq(exSans(BIT.KEYCAP_BASE), opt(presSel), exSans(BIT.KEYCAP)),
    seq(ex(BIT.RI), ex(BIT.RI)),
  );

  const extendNumLet = ex(BIT.EXTEND_NUM_LET);
  const numeric = ex(BIT.NUMERIC);
  const katakana = ex(BIT.KATAKANA);
  const hebrew = ex(BIT.HEBREW_LETTER);
  const ahLetter = ex(BIT.AHLETTER);
  // WB8, WB11, WB12: Numeric ((ExtendNumLet* | MidNum) Numeric)*
  const numbers = seq(numeric, star(seq(alt(star(extendNumLet), ex(BIT.MID_NUMERIC)), numeric)));
  const num = seq(star(extendNumLet), numbers, star(extendNumLet));

  // WB5–WB7c, WB9, WB10, WB13–WB13b
  const unit = alt(
    seq(katakana, star(seq(star(extendNumLet), katakana))),
    plus(
      alt(
        seq(hebrew, alt(ex(BIT.SINGLE_QUOTE), seq(ex(BIT.DOUBLE_QUOTE), hebrew))),
        numbers,
        seq(ahLetter, star(seq(alt(star(extendNumLet), ex(BIT.MID_LETTER)), ahLetter))),
      ),
    ),
  );
  const word = seq(star(extendNumLet), unit, star(seq(plus(extendNumLet), unit)), star(extendNumLet));

  return [
    emoji, // <EMOJI>
    num, // <NUM>
    plus(ex(BIT.HANGUL)), // <HANGUL>
    plus(katakana), // <KATAKANA>
    word, // <ALPHANUM>
    plus(ex(BIT.COMPLEX_CONTEXT)), // <SOUTHEAST_ASIAN>
    ex(BIT.HAN), // <IDEOGRAPHIC>
    ex(BIT.HIRAGANA), // <HIRAGANA>
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Compilation: Thompson NFA, then subset construction over the classes.

interface Automaton {
  /**
   * Transitions by row: the row of state s starts at s · classes, and `next[row + class]` is the row of the
   * next state (−1: no rule can continue). The start state's row is 0.
   */
  readonly next: Int32Array;
  /** Per row start: 1 + the rule a match ending in that state belongs to (the earliest), 0 when none ends there. */
  readonly accept: Uint8Array;
  readonly classes: number;
}

function compile(rules: readonly Re[]): Automaton {
  const classes = CLASS_MASKS.length;
  const eps: number[][] = [];
  const edges: { to: number; on: Uint8Array }[][] = [];
  const acceptOf: number[] = [];
  const node = () => {
    eps.push([]);
    edges.push([]);
    acceptOf.push(0);
    return eps.length - 1;
  };
  const build = (re: Re, from: number): number => {
    switch (re.k) {
      case 'set': {
        const to = node();
        edges[from]!.push({ to, on: Uint8Array.from(CLASS_MASKS, (m) => (re.pred(m) ? 1 : 0)) });
        return to;
      }
      case 'seq':
        return re.items.reduce((at, r) => build(r, at), from);
      case 'alt': {
        const to = node();
        for (const r of re.items) eps[build(r, from)]!.push(to);
        return to;
      }
      case 'star': {
        const loop = node();
        eps[from]!.push(loop);
        eps[build(re.r, loop)]!.push(loop);
        return loop;
      }
    }
  };
  const start = node();
  rules.forEach((r, i) => {
    const entry = node();
    eps[start]!.push(entry);
    acceptOf[build(r, entry)] = i + 1;
  });

  const closure = (states: Iterable<number>): number[] => {
    const seen = new Set<number>();
    const stack = [...states];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      for (const t of eps[s]!) stack.push(t);
    }
    return [...seen].sort((a, b) => a - b);
  };
  const ids = new Map<string, number>();
  const sets: number[][] = [];
  const intern = (s: number[]): number => {
    const key = s.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = sets.length;
      ids.set(key, id);
      sets.push(s);
    }
    return id;
  };
  intern(closure([start]));
  const next: number[] = [];
  const accept: number[] = [];
  for (let d = 0; d < sets.length; d++) {
    const members = sets[d]!;
    let rule = 0;
    for (const s of members) if (acceptOf[s]! > 0 && (rule === 0 || acceptOf[s]! < rule)) rule = acceptOf[s]!;
    accept[d] = rule;
    for (let c = 0; c < classes; c++) {
      const targets: number[] = [];
      for (const s of members) for (const e of edges[s]!) if (e.on[c] === 1) targets.push(e.to);
      next[d * classes + c] = targets.length === 0 ? -1 : intern(closure(targets));
    }
  }
  const acceptByRow = new Uint8Array(sets.length * classes);
  accept.forEach((rule, d) => (acceptByRow[d * classes] = rule));
  return { next: Int32Array.from(next, (d) => (d < 0 ? -1 : d * classes)), accept: acceptByRow, classes };
}

// ---------------------------------------------------------------------------------------------------------
// Character classes: a table for the BMP, binary search above it.

interface ClassTable {
  readonly bmp: Uint8Array;
  readonly starts: Uint32Array;
  readonly classOfRun: Uint8Array;
}

function classTable(): ClassTable {
  const gaps = RUN_STARTS.split(',');
  const starts = new Uint32Array(gaps.length);
  let at = 0;
  gaps.forEach((g, i) => (starts[i] = at += parseInt(g, 36)));
  const classOfRun = new Uint8Array(gaps.length);
  for (let i = 0; i < gaps.length; i++) classOfRun[i] = parseInt(RUN_CLASSES.slice(2 * i, 2 * i + 2), 36);
  const bmp = new Uint8Array(0x10000);
  for (let i = 0; i < starts.length && starts[i]! < 0x10000; i++)
    bmp.fill(classOfRun[i]!, starts[i]!, Math.min(0x10000, starts[i + 1] ?? 0x10000));
  return { bmp, starts, classOfRun };
}

function supplementaryClass(t: ClassTable, cp: number): number {
  let lo = 0;
  let hi = t.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (t.starts[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return t.classOfRun[lo]!;
}

let compiled: { automaton: Automaton; table: ClassTable } | null = null;

function scanner(): { automaton: Automaton; table: ClassTable } {
  compiled ??= { automaton: compile(grammar()), table: classTable() };
  return compiled;
}

// ---------------------------------------------------------------------------------------------------------
// Scanning.

/** Token ranges of one text, reused from text to text (grown as needed). */
export class TokenRanges {
  starts = new Uint32Array(256);
  ends = new Uint32Array(256);
  rules = new Uint8Array(256);
  /** FNV-1a (32-bit, signed) of each token's UTF-16 code units, computed while scanning. */
  hashes = new Int32Array(256);
  length = 0;
}

/**
 * The tokens of `text` into `out` (replacing what it held): UTF-16 offsets [starts[i], ends[i]) and the
 * rule index into TOKEN_TYPES, in order. No string is built; the fastest way to feed an analyzer.
 */
export function scanTokens(text: string, out: TokenRanges): TokenRanges {
  const { automaton, table } = scanner();
  const { next, accept } = automaton;
  const bmp = table.bmp;
  const n = text.length;
  let count = 0;
  let p = 0;
  while (p < n) {
    // Most positions that start no token (spaces, punctuation) fail on their first unit: skip them at once.
    const first = text.charCodeAt(p);
    if ((first & 0xfc00) !== 0xd800 && next[bmp[first]!]! < 0) {
      p++;
      continue;
    }
    const limit = Math.min(n, p + MAX_TOKEN_LENGTH);
    let row = 0;
    let q = p;
    let last = -1;
    let rule = 0;
    let h = FNV_OFFSET;
    let hashAtLast = 0;
    while (q < limit) {
      let cp = text.charCodeAt(q);
      if ((cp & 0xfc00) === 0xd800 && q + 1 < limit) {
        const lo = text.charCodeAt(q + 1);
        if ((lo & 0xfc00) === 0xdc00) {
          h = Math.imul(h ^ cp, FNV_PRIME);
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          row = next[row + supplementaryClass(table, cp)]!;
          if (row < 0) break;
          h = Math.imul(h ^ lo, FNV_PRIME);
          q += 2;
        } else {
          row = next[row + bmp[cp]!]!;
          if (row < 0) break;
          h = Math.imul(h ^ cp, FNV_PRIME);
          q++;
        }
      } else {
        row = next[row + bmp[cp]!]!;
        if (row < 0) break;
        h = Math.imul(h ^ cp, FNV_PRIME);
        q++;
      }
      const a = accept[row]!;
      if (a !== 0) {
        last = q;
        rule = a - 1;
        hashAtLast = h;
      }
    }
    if (last < 0) {
      // `[^]`: no token starts here; skip one code point
      p += (first & 0xfc00) === 0xd800 && p + 1 < n && (text.charCodeAt(p + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    } else {
      if (count === out.starts.length) {
        out.starts = grow(out.starts, count + 1);
        out.ends = grow(out.ends, count + 1);
        out.hashes = grow(out.hashes, count + 1);
        const rules = new Uint8Array(out.starts.length);
        rules.set(out.rules);
        out.rules = rules;
      }
      out.starts[count] = p;
      out.ends[count] = last;
      out.hashes[count] = hashAtLast;
      out.rules[count++] = rule;
      p = last;
    }
  }
  out.length = count;
  return out;
}

export interface StandardToken {
  readonly text: string;
  readonly type: TokenType;
  readonly start: number;
  readonly end: number;
}

/** The tokens of `text` as Lucene's StandardTokenizer emits them (text, type, UTF-16 offsets). */
export function standardTokens(text: string): StandardToken[] {
  const r = scanTokens(text, new TokenRanges());
  return Array.from({ length: r.length }, (_, i) => {
    const start = r.starts[i]!;
    const end = r.ends[i]!;
    return { text: text.slice(start, end), type: TOKEN_TYPES[r.rules[i]!]!, start, end };
  });
}
