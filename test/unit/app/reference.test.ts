/**
 * The rules that pick the analysis' reference and candidates (src/app/state/reference.ts), shared by the real
 * `Lab` and the panels' FakeLab.
 */
import { describe, expect, it } from 'vitest';
import { chooseCandidates, chooseReference, usableRetrievers } from '../../../src/app/state/reference.ts';
import type { RetrieverInfo } from '../../../src/app/types.ts';

const row = (id: string, status: RetrieverInfo['status'] = 'ready', partial?: RetrieverInfo['partial']): RetrieverInfo => ({
  id,
  name: id,
  kind: 'imported',
  status,
  ...(partial === undefined ? {} : { partial }),
});
const view = (reference: string | null, candidates: string[] = []) => ({ reference, candidates });

describe('chooseReference', () => {
  it("is the view's reference when a retriever has that id, whatever its status", () => {
    expect(chooseReference(view('dense'), [row('bm25'), row('dense', 'loading')])).toBe('dense');
  });

  it('else BM25 when listed, even when it is not the first retriever', () => {
    expect(chooseReference(view(null), [row('run.trec'), row('bm25')])).toBe('bm25');
    expect(chooseReference(view('removed'), [row('run.trec'), row('bm25')])).toBe('bm25');
    // Only the paper's BM25 counts as "the" BM25, not a variant.
    expect(chooseReference(view(null), [row('run.trec'), row('bm25-k1=1.2-b=0.75')])).toBe('run.trec');
  });

  it('else the first retriever; null without any', () => {
    expect(chooseReference(view('removed'), [row('b'), row('a')])).toBe('b');
    expect(chooseReference(view('bm25'), [])).toBeNull();
    expect(chooseReference(view(null), [])).toBeNull();
  });
});

describe('usableRetrievers and chooseCandidates', () => {
  const rows = [
    row('bm25'),
    row('growing', 'encoding', { encodedDocs: 3, totalDocs: 10 }),
    row('queries-only', 'encoding'),
    row('loading', 'loading'),
    row('failed', 'error'),
    row('stopped', 'cancelled', { encodedDocs: 3, totalDocs: 10 }),
    row('dense'),
  ];

  it('ready runs and encoding runs that have started are usable', () => {
    expect(usableRetrievers(rows)).toEqual(['bm25', 'growing', 'dense']);
  });

  it("keeps the view's order, drops the reference and every run that is not usable or not listed", () => {
    const all = ['dense', 'loading', 'failed', 'bm25', 'stopped', 'growing', 'queries-only', 'gone'];
    expect(chooseCandidates(view(null, all), rows)).toEqual(['dense', 'growing']);
    expect(chooseCandidates(view('dense', all), rows)).toEqual(['bm25', 'growing']);
    expect(chooseCandidates(view('gone', all), rows)).toEqual(['dense', 'growing']);
  });
});
