/**
 * Deep-link view state: exact round trips for arbitrary valid views (fast-check), short links for
 * defaults, and tolerant decoding of hand-edited or stale links.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeView, encodeView } from '../../../src/app/url-state.ts';
import { DEFAULT_VIEW, type ExplorerFilter, type ViewState } from '../../../src/app/types.ts';

/** True when the string has no lone UTF-16 surrogate (String.prototype.isWellFormed, ES2024). */
const wellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

/** Ids with the characters a URL cares about, plus arbitrary well-formed unicode. */
const nasty = fc.constantFrom(',', '&', '#', '=', '%', '+', ' ', '?', '/', ':', '%2C', 'é', '💥', '\u0000', '\n', '');
const id = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }).filter(wellFormed),
  fc.array(fc.oneof(nasty, fc.string({ maxLength: 3 })), { maxLength: 5 }).map((parts) => parts.join('')),
);
const depths = fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 8 }).map((d) => d.sort((a, b) => a - b));
const view: fc.Arbitrary<ViewState> = fc
  .record({
    collection: fc.option(id, { nil: null }),
    reference: fc.option(id, { nil: null }),
    candidates: fc.array(id, { maxLength: 5 }),
    k: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    depths,
    label: fc.constantFrom('any' as const, 'strict' as const),
    level: fc.integer({ min: -3, max: 100 }),
    // Holes are counted one way: as misses, left out (J) or filled by the model (M), never both.
    holes: fc.constantFrom('misses' as const, 'judged-only' as const, 'model' as const),
    cohortAt: fc.option(fc.integer({ min: 1, max: 999_999_999 }), { nil: null }),
    state: fc.constantFrom<ExplorerFilter>('all', 'broken', 'fixed', 'preserved', 'unchanged'),
    candidate: fc.option(id, { nil: null }),
    text: id,
    query: fc.option(id, { nil: null }),
  })
  .map(({ holes, ...rest }) => ({ ...rest, judgedOnly: holes === 'judged-only', modelLabels: holes === 'model' }));

describe('encodeView / decodeView', () => {
  test('round trip is exact for arbitrary valid views, with no problems', () => {
    fc.assert(
      fc.property(view, (v) => {
        const hash = encodeView(v);
        const back = decodeView(hash);
        expect(back.problems).toEqual([]);
        expect(back.view).toEqual(v);
      }),
      { numRuns: 500 },
    );
  });

  test('the encoded hash survives a real URL (the browser may not change it)', () => {
    fc.assert(
      fc.property(view, (v) => {
        const hash = encodeView(v);
        const url = new URL(`https://example.org/lab/${hash}`);
        expect(url.hash).toBe(hash);
        expect(decodeView(url.hash).view).toEqual(v);
      }),
      { numRuns: 200 },
    );
  });

  test('defaults are omitted: the default view is the empty hash', () => {
    expect(encodeView(DEFAULT_VIEW)).toBe('');
    expect(decodeView('')).toEqual({ view: DEFAULT_VIEW, problems: [] });
    expect(decodeView('#')).toEqual({ view: DEFAULT_VIEW, problems: [] });
  });

  test('the documented example, in a stable key order', () => {
    const v: ViewState = {
      ...DEFAULT_VIEW,
      collection: 'beir:scifact',
      reference: 'bm25',
      candidates: ['bge-large', 'e5-large'],
      k: 20,
      state: 'broken',
      query: '42',
    };
    expect(encodeView(v)).toBe('#c=beir%3Ascifact&ref=bm25&cand=bge-large,e5-large&k=20&state=broken&q=42');
    // Field order in the object does not matter.
    const reordered = Object.fromEntries(Object.entries(v).reverse()) as unknown as ViewState;
    expect(encodeView(reordered)).toBe(encodeView(v));
  });

  test('ids with separators stay whole', () => {
    const v: ViewState = { ...DEFAULT_VIEW, candidates: ['a,b', 'c&d=e', '#f g', ''], query: 'x+y' };
    const hash = encodeView(v);
    expect(hash).not.toContain('a,b');
    expect(hash).not.toContain(' ');
    expect(decodeView(hash).view.candidates).toEqual(['a,b', 'c&d=e', '#f g', '']);
    expect(decodeView(hash).view.query).toBe('x+y');
  });

  test('the empty list and the list of one empty id differ; null and empty ids differ', () => {
    expect(decodeView(encodeView({ ...DEFAULT_VIEW, candidates: [''] })).view.candidates).toEqual(['']);
    expect(decodeView(encodeView({ ...DEFAULT_VIEW, candidates: [] })).view.candidates).toEqual([]);
    expect(decodeView(encodeView({ ...DEFAULT_VIEW, query: '' })).view.query).toBe('');
    expect(decodeView(encodeView({ ...DEFAULT_VIEW, query: null })).view.query).toBeNull();
  });

  test('lone surrogates cannot be put in a URL: encoded as U+FFFD instead of throwing', () => {
    const hash = encodeView({ ...DEFAULT_VIEW, query: 'a\uD800b' });
    expect(decodeView(hash).view.query).toBe('a\uFFFDb');
  });
});

describe('tolerant decoding', () => {
  test('unknown keys are ignored silently', () => {
    const { view: v, problems } = decodeView('#zzz=1&c=x&utm_source=mail&flag');
    expect(v).toEqual({ ...DEFAULT_VIEW, collection: 'x' });
    expect(problems).toEqual([]);
  });

  test.each([
    ['k=0', 'k'],
    ['k=-3', 'k'],
    ['k=2.5', 'k'],
    ['k=abc', 'k'],
    ['k=', 'k'],
    ['k=1e3', 'k'],
    ['k=99999999999999999999', 'k'],
    ['d=1,,5', 'd'],
    ['d=', 'd'],
    ['d=1,0', 'd'],
    ['d=5,x', 'd'],
    ['label=loose', 'label'],
    ['state=lost', 'state'],
    ['state=ALL', 'state'],
  ])('invalid %s falls back to the default and is reported', (part, key) => {
    const { view: v, problems } = decodeView(`#c=col&${part}&q=7`);
    expect(v).toEqual({ ...DEFAULT_VIEW, collection: 'col', query: '7' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`"${key}"`);
  });

  test('valid values next to an invalid one are kept', () => {
    const { view: v, problems } = decodeView('#k=20&d=nope&label=strict&state=fixed');
    expect(v.k).toBe(20);
    expect(v.depths).toEqual(DEFAULT_VIEW.depths);
    expect(v.label).toBe('strict');
    expect(v.state).toBe('fixed');
    expect(problems).toHaveLength(1);
  });

  test('depths are read as a set (sorted, deduplicated)', () => {
    expect(decodeView('#d=50,10,10,1').view.depths).toEqual([1, 10, 50]);
  });

  test('malformed %-escapes are reported and the field keeps its default', () => {
    const { view: v, problems } = decodeView('#c=%E0%A4%A&ref=ok&cand=a,%ZZ');
    expect(v.collection).toBeNull();
    expect(v.reference).toBe('ok');
    expect(v.candidates).toEqual([]);
    expect(problems).toHaveLength(2);
  });

  test('a repeated key: the last value wins, and it is reported', () => {
    const { view: v, problems } = decodeView('#k=5&k=20');
    expect(v.k).toBe(20);
    expect(problems).toHaveLength(1);
  });

  test('accepts a hash without "#", a "?" query string, and "+" as a literal plus', () => {
    expect(decodeView('c=a+b').view.collection).toBe('a+b');
    expect(decodeView('?c=a%20b').view.collection).toBe('a b');
  });
});

describe('relevance level in links', () => {
  test('an integer level round-trips, the default is omitted, garbage falls back with a problem', () => {
    expect(encodeView({ ...DEFAULT_VIEW, level: 2 })).toBe('#l=2');
    expect(decodeView('#l=2').view.level).toBe(2);
    expect(decodeView('#l=-1').view.level).toBe(-1);
    expect(encodeView(DEFAULT_VIEW)).toBe('');
    const bad = decodeView('#l=two');
    expect(bad.view.level).toBe(1);
    expect(bad.problems.join(' ')).toMatch(/"l": expected an integer/);
  });
});
