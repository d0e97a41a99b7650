#!/usr/bin/env node
/**
 * Writes src/core/text/lucene/uax29-classes.ts: the character classes Lucene's StandardTokenizer grammar
 * (StandardTokenizerImpl.jflex) distinguishes, for every code point, from the Unicode Character Database
 * of the versions Lucene 9 and 10 compile it against:
 *
 * - Unicode 12.1 (the grammar's `%unicode 12.1`, the newest JFlex 1.8 knows): Word_Break, Script (Han,
 *   Hiragana, Hangul), Line_Break=Complex_Context, the Halfwidth_And_Fullwidth_Forms block, General_Category
 *   Nd;
 * - Unicode 14.0 emoji data (Lucene's generated data/jflex/UnicodeEmojiProperties.jflex, from ICU4J 70.1):
 *   Emoji, Emoji_Modifier, Emoji_Modifier_Base, Extended_Pictographic.
 *
 * The data comes from the npm packages @unicode/unicode-12.1.0 and @unicode/unicode-14.0.0 (node-unicode-data,
 * the UCD files as JavaScript), fetched into a temporary folder with `npm pack`; nothing of them is committed,
 * only the table this script derives. Run it again only to change the derivation:
 *
 *   node scripts/lucene/uax29-classes.mjs
 *
 * Each code point gets a bit mask of the grammar's primitive sets (BIT below); code points with equal masks
 * form one class; the output lists the classes' masks and, for the code points in increasing order, the runs
 * of equal class. The tokenizer (standard-tokenizer.ts) compiles the grammar over these classes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const VERSION = '2.0.7';
const OUT = new URL('../../src/core/text/lucene/uax29-classes.ts', import.meta.url);

/** The grammar's primitive sets, one bit each (the same names in standard-tokenizer.ts). */
const BIT = {
  EXT: 1 << 0, // WB:Format | WB:Extend | WB:ZWJ  (UAX#29 WB4)
  ZWJ: 1 << 1, // WB:ZWJ
  PRES_SEL: 1 << 2, // U+FE0F emoji presentation selector
  TEXT_SEL: 1 << 3, // U+FE0E text presentation selector
  KEYCAP_BASE: 1 << 4, // [0-9#*]
  KEYCAP: 1 << 5, // U+20E3
  RI: 1 << 6, // WB:Regional_Indicator
  EMOJI_CHAR: 1 << 7, // Extended_Pictographic | (Emoji − (RI | KEYCAP_BASE | [©®™〰〽] | Emoji_Modifier))
  EMOJI_MOD_BASE: 1 << 8, // Emoji_Modifier_Base
  EMOJI_MOD: 1 << 9, // Emoji_Modifier
  TAG_SPEC: 1 << 10, // U+E0020..U+E007E
  TAG_TERM: 1 << 11, // U+E007F
  HANGUL: 1 << 12, // Script:Hangul & (WB:ALetter | WB:Hebrew_Letter)
  AHLETTER: 1 << 13, // WB:ALetter | WB:Hebrew_Letter
  NUMERIC: 1 << 14, // WB:Numeric | (Halfwidth_And_Fullwidth_Forms & Nd)
  KATAKANA: 1 << 15, // WB:Katakana
  MID_LETTER: 1 << 16, // WB:MidLetter | WB:MidNumLet | WB:Single_Quote
  MID_NUMERIC: 1 << 17, // WB:MidNum | WB:MidNumLet | WB:Single_Quote
  EXTEND_NUM_LET: 1 << 18, // WB:ExtendNumLet
  HAN: 1 << 19, // Script:Han
  HIRAGANA: 1 << 20, // Script:Hiragana
  SINGLE_QUOTE: 1 << 21, // WB:Single_Quote
  DOUBLE_QUOTE: 1 << 22, // WB:Double_Quote
  HEBREW_LETTER: 1 << 23, // WB:Hebrew_Letter
  COMPLEX_CONTEXT: 1 << 24, // LB:Complex_Context
};

const dir = mkdtempSync(join(tmpdir(), 'fliplab-ucd-'));
try {
  execFileSync('npm', ['pack', '--silent', `@unicode/unicode-12.1.0@${VERSION}`, `@unicode/unicode-14.0.0@${VERSION}`], { cwd: dir });
  for (const v of ['12.1.0', '14.0.0']) {
    const pkg = join(dir, `v${v}`);
    execFileSync('mkdir', ['-p', pkg]);
    execFileSync('tar', ['xzf', join(dir, `unicode-unicode-${v}-${VERSION}.tgz`), '-C', pkg]);
  }
  const load = async (v, path) => {
    const mod = await import(pathToFileURL(join(dir, `v${v}`, 'package', path, 'code-points.mjs')).href);
    return new Set(mod.default);
  };
  const ucd = (path) => load('12.1.0', path);
  const emojiData = (path) => load('14.0.0', path);
  const wb = async (...values) => union(...(await Promise.all(values.map((v) => ucd(`Word_Break/${v}`)))));

  const format = await wb('Format', 'Extend', 'ZWJ');
  const aletter = await wb('ALetter', 'Hebrew_Letter');
  const hangulScript = await ucd('Script/Hangul');
  const nd = await ucd('General_Category/Decimal_Number');
  const halfFull = await ucd('Block/Halfwidth_And_Fullwidth_Forms');
  const ri = await wb('Regional_Indicator');
  const keycapBase = new Set([...'0123456789#*'].map((c) => c.codePointAt(0)));
  const accidental = new Set([0xa9, 0xae, 0x2122, 0x3030, 0x303d]);
  const emoji = await emojiData('Binary_Property/Emoji');
  const emojiMod = await emojiData('Binary_Property/Emoji_Modifier');
  const emojiModBase = await emojiData('Binary_Property/Emoji_Modifier_Base');
  const pictographic = await emojiData('Binary_Property/Extended_Pictographic');
  const emojiSansRkam = new Set([...emoji].filter((c) => !ri.has(c) && !keycapBase.has(c) && !accidental.has(c) && !emojiMod.has(c)));

  const sets = [
    [BIT.EXT, format],
    [BIT.ZWJ, await wb('ZWJ')],
    [BIT.PRES_SEL, new Set([0xfe0f])],
    [BIT.TEXT_SEL, new Set([0xfe0e])],
    [BIT.KEYCAP_BASE, keycapBase],
    [BIT.KEYCAP, new Set([0x20e3])],
    [BIT.RI, ri],
    [BIT.EMOJI_CHAR, union(pictographic, emojiSansRkam)],
    [BIT.EMOJI_MOD_BASE, emojiModBase],
    [BIT.EMOJI_MOD, emojiMod],
    [BIT.TAG_SPEC, range(0xe0020, 0xe007e)],
    [BIT.TAG_TERM, new Set([0xe007f])],
    [BIT.HANGUL, new Set([...hangulScript].filter((c) => aletter.has(c)))],
    [BIT.AHLETTER, aletter],
    [BIT.NUMERIC, union(await wb('Numeric'), new Set([...halfFull].filter((c) => nd.has(c))))],
    [BIT.KATAKANA, await wb('Katakana')],
    [BIT.MID_LETTER, await wb('MidLetter', 'MidNumLet', 'Single_Quote')],
    [BIT.MID_NUMERIC, await wb('MidNum', 'MidNumLet', 'Single_Quote')],
    [BIT.EXTEND_NUM_LET, await wb('ExtendNumLet')],
    [BIT.HAN, await ucd('Script/Han')],
    [BIT.HIRAGANA, await ucd('Script/Hiragana')],
    [BIT.SINGLE_QUOTE, await wb('Single_Quote')],
    [BIT.DOUBLE_QUOTE, await wb('Double_Quote')],
    [BIT.HEBREW_LETTER, await wb('Hebrew_Letter')],
    [BIT.COMPLEX_CONTEXT, await ucd('Line_Break/Complex_Context')],
  ];
  const masks = new Uint32Array(0x110000);
  for (const [bit, set] of sets) for (const c of set) masks[c] |= bit;

  // Classes: 0 is the empty mask (every other code point); the rest in order of first appearance.
  const classOf = new Map([[0, 0]]);
  const starts = [];
  const classes = [];
  let prev = -1;
  for (let c = 0; c < 0x110000; c++) {
    const m = masks[c];
    if (!classOf.has(m)) classOf.set(m, classOf.size);
    const k = classOf.get(m);
    if (k !== prev) {
      starts.push(c);
      classes.push(k);
      prev = k;
    }
  }
  const deltas = starts.map((s, i) => (i === 0 ? s : s - starts[i - 1]).toString(36)).join(',');
  const text = `// Generated by scripts/lucene/uax29-classes.mjs from the Unicode 12.1 character database and Unicode 14.0
// emoji data (the versions Lucene's StandardTokenizer grammar is compiled against). Do not edit by hand.

/** Bit per primitive set of the grammar (see the script for each set's definition). */
export const BIT = ${JSON.stringify(BIT, null, 2).replace(/"(\w+)":/g, '$1:')} as const;

/** The set bits of each character class; class 0 belongs to no set. */
export const CLASS_MASKS: readonly number[] = [${[...classOf.keys()].join(', ')}];

/** Code points where the class changes, as base-36 gaps from the previous start (the first from 0). */
export const RUN_STARTS = [
${chunks(deltas)}
].join('');

/** The class of each run, as one base-36 digit pair per run. */
export const RUN_CLASSES = [
${chunks(classes.map((k) => k.toString(36).padStart(2, '0')).join(''))}
].join('');
`;
  writeFileSync(OUT, text);
  console.log(`${classOf.size} classes, ${starts.length} runs → ${OUT.pathname}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** A long string as lines of quoted pieces (the file stays within the line-length rule). */
function chunks(s, width = 110) {
  const out = [];
  for (let i = 0; i < s.length; i += width) out.push(`  '${s.slice(i, i + width)}',`);
  return out.join('\n');
}

function union(...sets) {
  const out = new Set();
  for (const s of sets) for (const c of s) out.add(c);
  return out;
}

function range(lo, hi) {
  const out = new Set();
  for (let c = lo; c <= hi; c++) out.add(c);
  return out;
}
