/**
 * Anserini's BM25 recipe as fliplab names it: the parameters (k1, b, flat or multifield documents), the CLI's
 * presets, the run names and the recipe in words. The module comment of `bm25-anserini.ts` says what the
 * recipe computes.
 */
export type AnseriniFields = 'flat' | 'multifield';

export interface AnseriniParams {
  readonly k1: number;
  readonly b: number;
  readonly fields: AnseriniFields;
}

/** Anserini's BM25 defaults (SearchCollection `-bm25.k1 0.9 -bm25.b 0.4`). */
export const ANSERINI_K1 = 0.9;
export const ANSERINI_B = 0.4;

/** The CLI's `--preset` values and what each sets. */
export const ANSERINI_PRESETS = {
  anserini: { k1: ANSERINI_K1, b: ANSERINI_B, fields: 'flat' },
  'anserini-multifield': { k1: ANSERINI_K1, b: ANSERINI_B, fields: 'multifield' },
} as const satisfies Record<string, AnseriniParams>;
export type AnseriniPreset = keyof typeof ANSERINI_PRESETS;

export function isAnseriniPreset(name: string): name is AnseriniPreset {
  return Object.hasOwn(ANSERINI_PRESETS, name);
}

/**
 * Run names: "bm25-anserini", "bm25-anserini-multifield", and with other k1/b
 * "bm25-anserini-k1=1.2-b=0.75" (both parameters, like `bm25RunName`).
 */
export function anseriniRunName(p: AnseriniParams): string {
  const base = p.fields === 'flat' ? 'bm25-anserini' : 'bm25-anserini-multifield';
  return p.k1 === ANSERINI_K1 && p.b === ANSERINI_B ? base : `${base}-k1=${p.k1}-b=${p.b}`;
}

/** The parameters behind a name made by `anseriniRunName`; null for any other name. */
export function parseAnseriniRunName(name: string): AnseriniParams | null {
  const m = /^bm25-anserini(-multifield)?(?:-k1=(\d+(?:\.\d+)?(?:e[-+]?\d+)?)-b=(\d+(?:\.\d+)?(?:e[-+]?\d+)?))?$/.exec(name);
  if (!m) return null;
  const p: AnseriniParams = {
    fields: m[1] ? 'multifield' : 'flat',
    k1: m[2] === undefined ? ANSERINI_K1 : Number(m[2]),
    b: m[3] === undefined ? ANSERINI_B : Number(m[3]),
  };
  return p.b <= 1 && anseriniRunName(p) === name ? p : null;
}

/** The recipe in words, for reports, exports and the CLI's summary line. */
export function anseriniRecipe(p: AnseriniParams): string {
  const docs = p.fields === 'flat' ? 'title + text in one field' : 'title and text as two fields of weight 1';
  return `Lucene BM25 as Anserini runs it: k1 = ${p.k1}, b = ${p.b}, ${docs}, Anserini's English analyzer (Porter), -removeQuery`;
}

export function checkAnseriniParams(p: AnseriniParams): AnseriniParams {
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${p.k1}`);
  if (!Number.isFinite(p.b) || p.b < 0 || p.b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${p.b}`);
  if (p.fields !== 'flat' && p.fields !== 'multifield')
    throw new RangeError(`fields must be 'flat' or 'multifield', got ${String(p.fields)}`);
  return p;
}
