/**
 * Deep links: the view state (collection, retrievers, depths, label, explorer filters, selected query) as
 * a URL hash — never the data — so a link reopens the same view on a machine that has the same data
 * cached. Pure: no DOM access; the app reads/writes `location.hash` itself.
 *
 * Format: `#c=beir:scifact&ref=bm25&cand=bge-large,e5-large&k=10&d=1,5,10,20,50&label=any&l=2&J=1&c0=10&state=broken&q=…`
 * - keys in a fixed order, values equal to `DEFAULT_VIEW` omitted (so links stay short);
 * - every id is escaped with `encodeURIComponent` (`,` `&` `#` `=` `+` space and non-ASCII all become
 *   %XX), so lists split on a literal `,` and any id round-trips exactly; `+` is never read as a space;
 * - lists: an absent key is the empty list; `cand=` is the list holding one empty id (so [] and [""] differ);
 * - a null id (collection, reference, explorer candidate, query) is an absent key; `q=` is the empty id.
 * Decoding is tolerant: unknown keys are ignored; a value that is not valid falls back to the default and
 * is described in `problems` (the app shows them).
 */
import { DEFAULT_VIEW, type ExplorerFilter, type SupportLabel, type ViewState } from './types.ts';

/** Hash keys, in the order `encodeView` writes them. */
export const VIEW_KEYS = {
  collection: 'c',
  reference: 'ref',
  candidates: 'cand',
  k: 'k',
  depths: 'd',
  label: 'label',
  level: 'l',
  judgedOnly: 'J',
  modelLabels: 'M',
  cohortAt: 'c0',
  state: 'state',
  candidate: 'vs',
  text: 'text',
  query: 'q',
} as const satisfies Record<keyof ViewState, string>;

const LABELS: readonly SupportLabel[] = ['any', 'strict'];
const STATES: readonly ExplorerFilter[] = ['all', 'broken', 'fixed', 'preserved', 'unchanged'];

/** Lone UTF-16 surrogates cannot be written in a URL; they become U+FFFD (the only lossy case). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeId(id: string): string {
  return encodeURIComponent(id.replace(LONE_SURROGATE, '\uFFFD'));
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The view as a URL hash (`#…`), or `''` when every field has its default value. */
export function encodeView(view: ViewState): string {
  const parts: string[] = [];
  const put = (key: string, value: string): void => {
    parts.push(`${key}=${value}`);
  };
  const K = VIEW_KEYS;
  if (view.collection !== null) put(K.collection, escapeId(view.collection));
  if (view.reference !== null) put(K.reference, escapeId(view.reference));
  if (view.candidates.length > 0) put(K.candidates, view.candidates.map(escapeId).join(','));
  if (view.k !== DEFAULT_VIEW.k) put(K.k, String(view.k));
  if (!sameList(view.depths, DEFAULT_VIEW.depths)) put(K.depths, view.depths.join(','));
  if (view.label !== DEFAULT_VIEW.label) put(K.label, view.label);
  if (view.level !== DEFAULT_VIEW.level) put(K.level, String(view.level));
  if (view.judgedOnly) put(K.judgedOnly, '1');
  if (view.modelLabels) put(K.modelLabels, '1');
  if (view.cohortAt !== null) put(K.cohortAt, String(view.cohortAt));
  if (view.state !== DEFAULT_VIEW.state) put(K.state, view.state);
  if (view.candidate !== null) put(K.candidate, escapeId(view.candidate));
  if (view.text !== DEFAULT_VIEW.text) put(K.text, escapeId(view.text));
  if (view.query !== null) put(K.query, escapeId(view.query));
  return parts.length === 0 ? '' : `#${parts.join('&')}`;
}

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

function parsePositiveInteger(s: string): number | null {
  if (!POSITIVE_INTEGER.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** Read a view from a URL hash (with or without the leading `#`, or a `?` query string). */
export function decodeView(hash: string): { view: ViewState; problems: string[] } {
  const problems: string[] = [];
  const raw = new Map<string, string>();
  const body = hash.replace(/^[#?]/, '');
  if (body !== '') {
    for (const part of body.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const key = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? '' : part.slice(eq + 1);
      if (raw.has(key)) problems.push(`"${key}" appears more than once in the link; the last value is used`);
      raw.set(key, value);
    }
  }

  /** Decode one escaped id; malformed escapes are reported and yield null. */
  const unescape = (key: string, value: string): string | null => {
    try {
      return decodeURIComponent(value);
    } catch {
      problems.push(`"${key}": malformed %-escape in ${JSON.stringify(value)}; ignored`);
      return null;
    }
  };
  const K = VIEW_KEYS;
  const id = (field: 'collection' | 'reference' | 'candidate' | 'query'): string | null => {
    const value = raw.get(K[field]);
    if (value === undefined) return DEFAULT_VIEW[field];
    return unescape(K[field], value) ?? DEFAULT_VIEW[field];
  };

  let candidates: readonly string[] = DEFAULT_VIEW.candidates;
  const candRaw = raw.get(K.candidates);
  if (candRaw !== undefined) {
    const ids = candRaw.split(',').map((v) => unescape(K.candidates, v));
    if (ids.every((v): v is string => v !== null)) candidates = ids;
  }

  let k = DEFAULT_VIEW.k;
  const kRaw = raw.get(K.k);
  if (kRaw !== undefined) {
    const n = parsePositiveInteger(kRaw);
    if (n === null) problems.push(`"k": expected a positive integer, got ${JSON.stringify(kRaw)}; using ${DEFAULT_VIEW.k}`);
    else k = n;
  }

  let depths: readonly number[] = DEFAULT_VIEW.depths;
  const dRaw = raw.get(K.depths);
  if (dRaw !== undefined) {
    const list = dRaw.split(',').map(parsePositiveInteger);
    if (list.some((n) => n === null)) {
      problems.push(
        `"d": expected a comma-separated list of positive integers, got ${JSON.stringify(dRaw)}; using ${DEFAULT_VIEW.depths.join(',')}`,
      );
    } else {
      // Depths are a set: sorted and deduplicated, as the analysis itself treats them.
      depths = [...new Set(list as number[])].sort((a, b) => a - b);
    }
  }

  let label = DEFAULT_VIEW.label;
  const labelRaw = raw.get(K.label);
  if (labelRaw !== undefined) {
    const found = LABELS.find((l) => l === labelRaw);
    if (found === undefined) problems.push(`"label": expected any or strict, got ${JSON.stringify(labelRaw)}; using ${DEFAULT_VIEW.label}`);
    else label = found;
  }

  let level = DEFAULT_VIEW.level;
  const levelRaw = raw.get(K.level);
  if (levelRaw !== undefined) {
    const n = /^-?(0|[1-9][0-9]{0,8})$/.test(levelRaw) ? Number(levelRaw) : null;
    if (n === null) problems.push(`"l": expected an integer relevance level, got ${JSON.stringify(levelRaw)}; using ${DEFAULT_VIEW.level}`);
    else level = n;
  }

  let judgedOnly = DEFAULT_VIEW.judgedOnly;
  const judgedRaw = raw.get(K.judgedOnly);
  if (judgedRaw !== undefined) {
    if (judgedRaw === '1' || judgedRaw === '0') judgedOnly = judgedRaw === '1';
    else problems.push(`"J": expected 1 (judged only) or 0, got ${JSON.stringify(judgedRaw)}; using all passages`);
  }

  let modelLabels = DEFAULT_VIEW.modelLabels;
  const modelRaw = raw.get(K.modelLabels);
  if (modelRaw !== undefined) {
    if (modelRaw === '1' || modelRaw === '0') modelLabels = modelRaw === '1';
    else problems.push(`"M": expected 1 (holes filled by the model) or 0, got ${JSON.stringify(modelRaw)}; using people's judgments only`);
  }
  if (judgedOnly && modelLabels) {
    problems.push('"J" and "M" both set: holes are either left out or filled by the model; using judged passages only');
    modelLabels = false;
  }

  let cohortAt = DEFAULT_VIEW.cohortAt;
  const cohortRaw = raw.get(K.cohortAt);
  if (cohortRaw !== undefined) {
    if (/^[1-9][0-9]{0,8}$/.test(cohortRaw)) cohortAt = Number(cohortRaw);
    else problems.push(`"c0": expected a positive integer depth, got ${JSON.stringify(cohortRaw)}; using every judged query`);
  }

  let state = DEFAULT_VIEW.state;
  const stateRaw = raw.get(K.state);
  if (stateRaw !== undefined) {
    const found = STATES.find((s) => s === stateRaw);
    if (found === undefined) {
      problems.push(`"state": expected one of ${STATES.join(', ')}, got ${JSON.stringify(stateRaw)}; using ${DEFAULT_VIEW.state}`);
    } else state = found;
  }

  let text = DEFAULT_VIEW.text;
  const textRaw = raw.get(K.text);
  if (textRaw !== undefined) text = unescape(K.text, textRaw) ?? DEFAULT_VIEW.text;

  const view: ViewState = {
    collection: id('collection'),
    reference: id('reference'),
    candidates,
    k,
    depths,
    label,
    level,
    judgedOnly,
    modelLabels,
    cohortAt,
    state,
    candidate: id('candidate'),
    text,
    query: id('query'),
  };
  return { view, problems };
}
