import { describe, expect, it } from 'vitest';
import { highlight, queryTerms } from '../../../src/app/views/explorer/highlight.ts';

describe('query-term highlighting', () => {
  it('marks whole words the tokenizer matched, case-insensitively, and keeps every character', () => {
    const terms = queryTerms('What causes the TIDES?');
    expect([...terms]).toEqual(['causes', 'tides']); // "what", "the" are stop words
    const text = 'Tides: the moon causes tides; riptides are <b>not</b> tides.';
    const segs = highlight(text, terms);
    expect(segs.map((s) => s.text).join('')).toBe(text);
    expect(segs.filter((s) => s.hit).map((s) => s.text)).toEqual(['Tides', 'causes', 'tides', 'tides']);
    expect(segs.some((s) => s.hit && s.text.includes('<'))).toBe(false);
  });

  it('returns the text as one plain segment when nothing matches', () => {
    expect(highlight('nothing here', queryTerms('volcano'))).toEqual([{ text: 'nothing here', hit: false }]);
    expect(highlight('', queryTerms('a b'))).toEqual([{ text: '', hit: false }]);
  });

  it("marks a run's added terms (RM3's expansion) as hits flagged added, never the query's own", () => {
    const text = 'The Moon pulls tides; gravity and the moon.';
    const segs = highlight(text, queryTerms('moon tides'), new Set(['gravity', 'moon']));
    expect(segs.map((s) => s.text).join('')).toBe(text);
    expect(segs.filter((s) => s.hit).map((s) => [s.text, s.added === true])).toEqual([
      ['Moon', false],
      ['tides', false],
      ['gravity', true],
      ['moon', false],
    ]);
    // Added terms alone still mark.
    expect(highlight('gravity', new Set(), new Set(['gravity']))).toEqual([{ text: 'gravity', hit: true, added: true }]);
  });
});
