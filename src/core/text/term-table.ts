/**
 * Tokenize-and-intern in one pass, for building indexes: maps every RAGFlip token of a text (exactly the
 * tokens of `tokenize`, stop words dropped) to a dense term id without allocating a string per token.
 *
 * ASCII tokens are hashed and compared straight from the input's char codes (lowercased on the fly) in an
 * open-addressing table; only a token seen for the first time is sliced into a string. Tokens with
 * non-ASCII letters or digits take `tokenize`'s string path (Python-exact lowercasing) and are then
 * interned the same way. Stop words sit in the table with a negative id, so they cost one lookup.
 */
import { grow } from '../grow.ts';
import { FNV_OFFSET, fnvStep } from '../fnv.ts';
import { RAGFLIP_STOP_WORD_LIST } from './stopwords.ts';
import { scanTokens, isAlnumCodePoint } from './tokenize.ts';

/** 1 for [0-9A-Za-z]. */
const ASCII_ALNUM = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_ALNUM[c] = 1;
for (let c = 65; c <= 90; c++) ASCII_ALNUM[c] = 1;
for (let c = 97; c <= 122; c++) ASCII_ALNUM[c] = 1;

const STOP_ID = -1;
const INITIAL_SLOTS = 1 << 12;

export class TermTable {
  /** Term id → token, in first-appearance order. */
  readonly terms: string[] = [];
  /** Entry → token (stop words included). */
  private readonly keys: string[] = [];
  /** Entry → term id, or STOP_ID. */
  private ids = new Int32Array(INITIAL_SLOTS / 2);
  /**
   * Open addressing, two Int32 per slot so a probe reads one cache line: [2s] = entry + 1 (0 = empty),
   * [2s + 1] = the key's hash.
   */
  private slots = new Int32Array(2 * INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;

  constructor() {
    for (const w of RAGFLIP_STOP_WORD_LIST) this.insert(w, hashString(w), STOP_ID);
  }

  get size(): number {
    return this.terms.length;
  }

  /** Term id of an existing token, or −1 (unknown or stop word). */
  get(token: string): number {
    const e = this.find(token, hashString(token));
    return e < 0 ? -1 : this.ids[e]!;
  }

  /** The vocabulary as a Map (token → term id), for indexes that must be plain data. */
  toMap(): Map<string, number> {
    const out = new Map<string, number>();
    this.terms.forEach((t, i) => out.set(t, i));
    return out;
  }

  private find(token: string, h: number): number {
    const slots = this.slots;
    let s = h & this.mask;
    for (;;) {
      const e = slots[2 * s]! - 1;
      if (e < 0) return -1;
      if (slots[2 * s + 1] === h && this.keys[e] === token) return e;
      s = (s + 1) & this.mask;
    }
  }

  private insert(token: string, h: number, id: number): number {
    const e = this.keys.length;
    this.keys.push(token);
    if (e === this.ids.length) this.ids = grow(this.ids, e + 1);
    this.ids[e] = id;
    // Keep the load factor ≤ 1/2.
    if ((e + 1) * 2 > this.mask + 1) this.rehash();
    this.place(e, h, this.slots);
    return e;
  }

  private place(e: number, h: number, slots: Int32Array): void {
    let s = h & this.mask;
    while (slots[2 * s] !== 0) s = (s + 1) & this.mask;
    slots[2 * s] = e + 1;
    slots[2 * s + 1] = h;
  }

  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    this.mask = slots.length / 2 - 1;
    for (let s = 0; s < old.length; s += 2) {
      const e = old[s]! - 1;
      if (e >= 0) this.place(e, old[s + 1]!, slots);
    }
    this.slots = slots;
  }

  /** Id for a token string (new terms are added); STOP_ID for stop words. */
  private internString(token: string): number {
    const h = hashString(token);
    const e = this.find(token, h);
    if (e >= 0) return this.ids[e]!;
    const id = this.terms.length;
    this.terms.push(token);
    this.insert(token, h, id);
    return id;
  }

  /**
   * Calls `visit(termId)` for each token of `text` in order (stop words skipped), adding new terms.
   * Returns the number of tokens visited.
   */
  scan(text: string, visit: (termId: number) => void): number {
    const need = (text.length + 1) >> 1;
    if (this.scratch.length < need) this.scratch = grow(this.scratch, need);
    const count = this.scanInto(text, this.scratch, 0);
    const ids = this.scratch;
    for (let i = 0; i < count; i++) visit(ids[i]!);
    return count;
  }

  private scratch = new Uint32Array(256);

  /**
   * Writes the term ids of `text`'s tokens (stop words skipped, new terms added) into `out` from `at`;
   * returns the new end. `out` must have room for `(text.length + 1) >> 1` more ids (a token and its
   * separator take at least two code units, the last token one).
   */
  scanInto(text: string, out: Uint32Array, at: number): number {
    const n = text.length;
    let count = at;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        if (ASCII_ALNUM[c] === 0) {
          i++;
          continue;
        }
      } else {
        let cp = c;
        let w = 1;
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
          const y = text.charCodeAt(i + 1);
          if (y >= 0xdc00 && y <= 0xdfff) {
            cp = ((c - 0xd800) << 10) + (y - 0xdc00) + 0x10000;
            w = 2;
          }
        }
        if (!isAlnumCodePoint(cp)) {
          i += w;
          continue;
        }
      }
      // A token starts at i. Walk its ASCII prefix, hashing lowercase codes.
      const start = i;
      let h = FNV_OFFSET;
      let upper = false;
      let j = i;
      let ascii = true;
      for (; j < n; j++) {
        const x = text.charCodeAt(j);
        if (x >= 128) {
          ascii = false;
          break;
        }
        if (ASCII_ALNUM[x] === 0) break;
        if (x <= 90 && x >= 65) {
          upper = true;
          h = fnvStep(h, x + 32);
        } else {
          h = fnvStep(h, x);
        }
      }
      if (ascii || !continuesToken(text, j)) {
        // Pure ASCII token [start, j).
        const id = this.lookupAscii(text, start, j, h, upper);
        if (id >= 0) out[count++] = id;
        i = j;
        continue;
      }
      // Non-ASCII alphanumerics inside the token: find its end, then take the string path.
      let end = j;
      while (end < n) {
        const x = text.charCodeAt(end);
        if (x < 128) {
          if (ASCII_ALNUM[x] === 0) break;
          end++;
          continue;
        }
        let cp = x;
        let w = 1;
        if (x >= 0xd800 && x <= 0xdbff && end + 1 < n) {
          const y = text.charCodeAt(end + 1);
          if (y >= 0xdc00 && y <= 0xdfff) {
            cp = ((x - 0xd800) << 10) + (y - 0xdc00) + 0x10000;
            w = 2;
          }
        }
        if (!isAlnumCodePoint(cp)) break;
        end += w;
      }
      scanTokens(text.slice(start, end), (tok) => {
        const id = this.internString(tok);
        if (id >= 0) out[count++] = id;
      });
      i = end;
    }
    return count;
  }

  private lookupAscii(text: string, start: number, end: number, h: number, upper: boolean): number {
    const len = end - start;
    const slots = this.slots;
    let s = h & this.mask;
    for (;;) {
      const e = slots[2 * s]! - 1;
      if (e < 0) break;
      if (slots[2 * s + 1] === h) {
        const key = this.keys[e]!;
        if (key.length === len) {
          let k = 0;
          for (; k < len; k++) {
            let x = text.charCodeAt(start + k);
            if (x <= 90 && x >= 65) x += 32;
            if (key.charCodeAt(k) !== x) break;
          }
          if (k === len) return this.ids[e]!;
        }
      }
      s = (s + 1) & this.mask;
    }
    let tok = text.slice(start, end);
    if (upper) tok = tok.toLowerCase();
    const id = this.terms.length;
    this.terms.push(tok);
    this.insert(tok, h, id);
    return id;
  }
}

/** True when the code point at j (a non-ASCII unit) is alphanumeric, i.e. the token goes on. */
function continuesToken(text: string, j: number): boolean {
  const x = text.charCodeAt(j);
  let cp = x;
  if (x >= 0xd800 && x <= 0xdbff && j + 1 < text.length) {
    const y = text.charCodeAt(j + 1);
    if (y >= 0xdc00 && y <= 0xdfff) cp = ((x - 0xd800) << 10) + (y - 0xdc00) + 0x10000;
  }
  return isAlnumCodePoint(cp);
}

function hashString(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = fnvStep(h, s.charCodeAt(i));
  return h;
}
