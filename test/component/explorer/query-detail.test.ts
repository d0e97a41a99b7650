/**
 * QueryDetail: side-by-side top-k with judged documents highlighted and first-relevant ranks (from a fake
 * loader over synthetic runs), passages as text only, loader errors in place, and stale loads dropped.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, test, vi } from 'vitest';
import type { AnseriniExplanation, ExplainLoader, PassageLoader, QlExplanation, QueryDetail as Detail } from '../../../src/app/types.ts';
import QueryDetail from '../../../src/app/views/explorer/QueryDetail.svelte';
import { detailFrom, synthetic } from './fixtures.ts';

const s = synthetic(60, { seed: 11, candidates: 1, docs: 80 });
const noPassage: PassageLoader = () => Promise.reject(new Error('not used'));

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A query whose two top-10 lists both hold judged documents, so the test has something to find. */
function interestingQuery(k: number): Detail {
  for (const row of s.report.per_query!) {
    const d = detailFrom(s, row.qid, ['bm25', 'cand-1'], k);
    if (
      d.lists.every((l) => l.docs.some((x) => x.grade !== null && x.grade >= 1)) &&
      d.lists[0]!.firstRelevant !== d.lists[1]!.firstRelevant
    )
      return d;
  }
  throw new Error('fixture has no query with relevant documents in both lists');
}

describe('QueryDetail', () => {
  test('highlights judged-relevant documents and shows each list’s first-relevant rank', async () => {
    const k = 20;
    const detail = interestingQuery(k);
    const loadDetail = vi.fn(() => Promise.resolve(detail));
    const { container } = render(QueryDetail, {
      props: { qid: detail.qid, reference: 'bm25', candidate: 'cand-1', k, loadDetail, loadPassage: noPassage },
    });
    expect(loadDetail).toHaveBeenCalledWith(detail.qid, ['bm25', 'cand-1'], k);
    await screen.findByText(detail.text);

    const lists = container.querySelectorAll<HTMLElement>('.list');
    expect(lists).toHaveLength(2);
    detail.lists.forEach((list, i) => {
      const el = lists[i]!;
      expect(el.dataset['run']).toBe(list.run);
      const heading = el.querySelector('h4')!.textContent!;
      expect(heading).toContain(list.run);
      expect(heading).toContain(`first relevant at rank ${list.firstRelevant}`);

      const rows = [...el.querySelectorAll<HTMLTableRowElement>('tbody tr.doc')];
      expect(rows).toHaveLength(list.docs.length);
      list.docs.forEach((doc, r) => {
        const row = rows[r]!;
        expect(row.querySelector('.doc-id')!.textContent).toBe(doc.docId);
        expect(row.cells[0]!.textContent).toBe(String(doc.rank));
        const relevant = doc.grade !== null && doc.grade >= 1;
        expect(row.classList.contains('relevant')).toBe(relevant);
        // A visible marker, not colour only.
        if (relevant) expect(row.textContent).toContain(`✓ relevant (grade ${doc.grade})`);
        else if (doc.grade !== null) expect(row.textContent).toContain(`judged (grade ${doc.grade})`);
        else expect(row.textContent).not.toContain('grade');
      });
    });

    // Judged documents table: one row per judgment.
    const judged = container.querySelector('table.judged')!;
    expect(judged.querySelectorAll('tbody tr')).toHaveLength(detail.judged.length);
  });

  test('a list without a relevant document says so', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 'the query',
      judged: [{ docId: 'x', grade: 1 }],
      lists: [
        { run: 'ref', docs: [{ docId: 'x', rank: 1, score: 2, title: 't', grade: 1 }], firstRelevant: 1 },
        { run: 'new', docs: [{ docId: 'y', rank: 1, score: 1, title: '', grade: null }], firstRelevant: null },
      ],
    };
    const { container } = render(QueryDetail, {
      props: { qid: 'q', reference: 'ref', candidate: 'new', k: 1, loadDetail: () => Promise.resolve(detail), loadPassage: noPassage },
    });
    await screen.findByText('the query');
    const headings = [...container.querySelectorAll('.list h4')].map((h) => h.textContent);
    expect(headings[0]).toContain('first relevant at rank 1');
    expect(headings[1]).toContain('no relevant document in the top 1');
    expect(screen.getByText('(no title)')).toBeTruthy();
  });

  test('a judgment shows the moment it is made, before the detail reloads from the worker', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 'the query',
      judged: [],
      lists: [
        { run: 'ref', docs: [{ docId: 'x', rank: 1, score: 2, title: 't', grade: null }], firstRelevant: null },
        { run: 'new', docs: [{ docId: 'y', rank: 1, score: 1, title: 'u', grade: null, added: true }], firstRelevant: null },
      ],
    };
    const loadDetail = vi.fn(() => Promise.resolve(detail));
    const { container, rerender } = render(QueryDetail, {
      props: {
        qid: 'q',
        reference: 'ref',
        candidate: 'new',
        k: 1,
        loadDetail,
        loadPassage: noPassage,
        judge: () => undefined,
        grades: [0, 1, 2],
        yours: (_q: string, d: string) => (d === 'x' ? 2 : undefined),
      },
    });
    await screen.findByText('the query');
    const row = (id: string) => container.querySelector<HTMLElement>(`tr[data-doc="${id}"]`)!;
    // x: graded 2 in the layer, though the worker's detail has it unjudged
    expect(row('x').querySelector('.by-you')).not.toBeNull();
    expect(row('x').classList.contains('relevant')).toBe(true);
    expect(row('x').querySelector('[data-testid="judge-2"]')!.getAttribute('aria-pressed')).toBe('true');
    // y: the worker's detail says the user judged it, the layer no longer does (undone): unjudged again
    expect(row('y').querySelector('.by-you')).toBeNull();
    expect(row('y').querySelector('[data-testid="unjudged"]')).not.toBeNull();
    await rerender({ yours: () => undefined });
    await waitFor(() => expect(row('x').querySelector('.by-you')).toBeNull());
  });

  test('an RM3 list says what it searched for: the query’s terms and the added ones, by weight', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 'moon tides',
      judged: [],
      lists: [
        { run: 'bm25', docs: [{ docId: 'x', rank: 1, score: 2, title: 'Moon gravity', grade: null }], firstRelevant: null },
        { run: 'bm25-rm3', docs: [{ docId: 'y', rank: 1, score: 1, title: 'Gravity and the moon', grade: null }], firstRelevant: null },
      ],
    };
    const expansion = vi.fn((_qid: string, run: string) =>
      Promise.resolve(run === 'bm25-rm3' ? { terms: ['gravity', 'moon', 'tides'], weights: [0.2, 0.35, 0.45] } : null),
    );
    const { container } = render(QueryDetail, {
      props: {
        qid: 'q',
        reference: 'bm25',
        candidate: 'bm25-rm3',
        k: 1,
        loadDetail: () => Promise.resolve(detail),
        loadPassage: noPassage,
        expansion,
        queryText: 'moon tides',
      },
    });
    await waitFor(() => expect(container.querySelectorAll('[data-testid="rm3-expansion"]')).toHaveLength(1));
    const line = container.querySelector('[data-testid="rm3-expansion"]')!;
    expect(line.closest('.list')!.getAttribute('data-run')).toBe('bm25-rm3');
    expect(line.textContent!.replace(/\s+/g, ' ').trim()).toBe(
      'bm25-rm3 searched for: tides 0.450, moon 0.350, +gravity (added) 0.200 — added terms are marked + in its passages',
    );
    const added = [...line.querySelectorAll('span.added')];
    expect(added.map((e) => e.textContent!.replace(/\s+/g, ' '))).toEqual(['+gravity (added) 0.200']);
    expect(added[0]!.getAttribute('title')).toBe('added by RM3');
    expect(expansion.mock.calls.map((c) => c[1]).sort()).toEqual(['bm25', 'bm25-rm3']);

    // Each list highlights what its run searched for: the RM3 list marks its added term as added (a "+" and,
    // read out, "added by RM3"); the BM25 list marks the query's terms only.
    const list = (run: string) => container.querySelector(`.list[data-run="${run}"] td.title`)!;
    await waitFor(() => expect(list('bm25-rm3').querySelectorAll('mark.added')).toHaveLength(1));
    const mark = list('bm25-rm3').querySelector('mark.added')!;
    expect(mark.textContent).toBe('Gravity+ (added by RM3)');
    expect(mark.getAttribute('title')).toBe('added by RM3');
    expect(mark.querySelector('[aria-hidden="true"]')!.textContent).toBe('+');
    expect(mark.querySelector('.sr-only')!.textContent).toBe(' (added by RM3)');
    expect([...list('bm25-rm3').querySelectorAll('mark:not(.added)')].map((m) => m.textContent)).toEqual(['moon']);
    expect([...list('bm25').querySelectorAll('mark')].map((m) => [m.textContent, m.classList.contains('added')])).toEqual([
      ['Moon', false],
    ]);
  });

  test('a query-likelihood passage explains its score: each term’s share and the length term, summing to the score', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 'moon tides moon',
      judged: [],
      lists: [
        { run: 'bm25', docs: [], firstRelevant: null },
        { run: 'ql', docs: [{ docId: 'y', rank: 1, score: -0.1234, title: 'Tides', grade: null }], firstRelevant: null },
      ],
    };
    const why: QlExplanation = {
      kind: 'ql',
      run: 'ql',
      mu: 1000,
      terms: [
        { term: 'moon', count: 2, tf: 0, cf: 7, weight: 0 },
        { term: 'tides', count: 1, tf: 3, cf: 40, weight: 0.25 },
      ],
      queryLength: 3,
      docLength: 120,
      lengthWeight: -0.3734,
      total: -0.1234,
    };
    const explain = vi.fn<ExplainLoader>((_q, _d, run) => Promise.resolve(run === 'ql' ? why : null));
    const loadPassage = vi.fn<PassageLoader>(() => Promise.resolve({ title: 'Tides', text: 'tides rise' }));
    const { container } = render(QueryDetail, {
      props: { qid: 'q', reference: 'bm25', candidate: 'ql', k: 1, loadDetail: () => Promise.resolve(detail), loadPassage, explain },
    });
    await fireEvent.click(await screen.findByRole('button', { name: 'Show passage y of ql' }));
    expect(explain).toHaveBeenCalledWith('q', 'y', 'ql');
    const table = await waitFor(() => {
      const t = container.querySelector('[data-testid="ql-why"]');
      expect(t).not.toBeNull();
      return t!;
    });
    expect(table.querySelector('caption')!.textContent).toMatch(/^Why ql scores it -0\.1234: each query term's log-probability share/);
    expect(table.querySelector('caption')!.textContent).toContain('μ = 1000');
    const rows = [...table.querySelectorAll(':scope > tbody > tr')].map((r) => [...r.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['moon ×2', '0', '7', '0.0000'],
      ['tides', '3', '40', '0.2500'],
      ['length (|q| = 3, dl = 120)', '-0.3734'],
    ]);
    // The "adds" column sums to the score shown.
    expect(rows.reduce((s, r) => s + Number(r.at(-1)), 0)).toBeCloseTo(-0.1234, 10);
    expect(table.querySelector(':scope > tbody > tr')!.classList.contains('absent')).toBe(true);
    expect(container.querySelector('[data-testid="bm25-why"]')).toBeNull();
  });

  test('a BM25 (Anserini) passage explains its score per Lucene clause, title clauses named, before the tie adjustment', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 'moon tides moon',
      judged: [],
      lists: [
        { run: 'bm25', docs: [], firstRelevant: null },
        {
          run: 'bm25-anserini-multifield',
          docs: [{ docId: 'y', rank: 1, score: 3.1416, title: 'Tides', grade: null }],
          firstRelevant: null,
        },
      ],
    };
    const why: AnseriniExplanation = {
      kind: 'anserini',
      run: 'bm25-anserini-multifield',
      fields: 'multifield',
      terms: [
        { term: 'moon', count: 2, tf: 0, df: 7, idf: 2.5, weight: 0 },
        { term: 'tide', count: 1, tf: 3, df: 40, idf: 1.25, weight: 1.5 },
        { term: 'title:tide', count: 1, tf: 1, df: 2, idf: 2.75, weight: 1.64159 },
      ],
      total: 3.14159,
    };
    const explain = vi.fn<ExplainLoader>((_q, _d, run) => Promise.resolve(run === 'bm25-anserini-multifield' ? why : null));
    const loadPassage = vi.fn<PassageLoader>(() => Promise.resolve({ title: 'Tides', text: 'tides rise' }));
    const { container } = render(QueryDetail, {
      props: {
        qid: 'q',
        reference: 'bm25',
        candidate: 'bm25-anserini-multifield',
        k: 1,
        loadDetail: () => Promise.resolve(detail),
        loadPassage,
        explain,
      },
    });
    await fireEvent.click(await screen.findByRole('button', { name: 'Show passage y of bm25-anserini-multifield' }));
    const table = await waitFor(() => {
      const t = container.querySelector('[data-testid="anserini-why"]');
      expect(t).not.toBeNull();
      return t!;
    });
    const caption = table.querySelector('caption')!.textContent!.replace(/\s+/g, ' ');
    expect(caption).toMatch(/^Why bm25-anserini-multifield scores it 3\.141590: each query term's Lucene BM25 score in each field/);
    expect(caption).toContain('rounds to 4 decimals');
    const rows = [...table.querySelectorAll(':scope > tbody > tr')].map((r) => [...r.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['moon ×2', '0', '7', '2.500', '0.0000'],
      ['tide', '3', '40', '1.250', '1.5000'],
      ['title:tide', '1', '2', '2.750', '1.6416'],
    ]);
    expect(container.querySelector('[data-testid="bm25-why"]')).toBeNull();
  });

  test('passage text with markup renders literally as text', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const detail: Detail = {
      qid: 'q<script>',
      text: `query ${evil}`,
      judged: [],
      lists: [
        { run: 'ref', docs: [{ docId: 'd<b>1</b>', rank: 1, score: 1, title: `<i>${evil}</i>`, grade: null }], firstRelevant: null },
        { run: 'new', docs: [], firstRelevant: null },
      ],
    };
    const loadPassage = vi.fn<PassageLoader>(() => Promise.resolve({ title: '<h1>big</h1>', text: evil }));
    const { container } = render(QueryDetail, {
      props: { qid: detail.qid, reference: 'ref', candidate: 'new', k: 10, loadDetail: () => Promise.resolve(detail), loadPassage },
    });
    await screen.findByText(`query ${evil}`);
    await fireEvent.click(screen.getByRole('button', { name: /show passage/i }));
    expect(loadPassage).toHaveBeenCalledWith('d<b>1</b>');
    // Query terms are highlighted (<mark> around text segments), so whole strings are read from textContent.
    const byText = (selector: string, want: string) => (_: string, el: Element | null) =>
      el?.matches(selector) === true && el.textContent === want;
    await screen.findByText(byText('.passage-text', evil));
    expect(screen.getByText(byText('.passage-title', '<h1>big</h1>'))).toBeTruthy();
    expect(container.querySelector('td.title')!.textContent).toContain(`<i>${evil}</i>`);
    // The query's words (img, src, x, onerror, alert) are marked, as text.
    const marks = [...container.querySelectorAll('.passage-text mark')].map((m) => m.textContent);
    expect(marks).toEqual(['img', 'src', 'x', 'onerror', 'alert', '1']);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b, i, h1, script')).toBeNull();
    expect(screen.getByRole('button', { name: /hide passage/i }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('new returned nothing for this query.')).toBeTruthy();
  });

  test('a rejected detail loader shows its message in place', async () => {
    render(QueryDetail, {
      props: {
        qid: 'q9',
        reference: 'a',
        candidate: 'b',
        k: 10,
        loadDetail: () => Promise.reject(new Error('run "b" has no list for q9')),
        loadPassage: noPassage,
      },
    });
    expect(screen.getByRole('status').textContent).toContain('Loading');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('run "b" has no list for q9');
  });

  test('a rejected passage loader shows its message in place, and Retry asks again', async () => {
    const detail: Detail = {
      qid: 'q',
      text: 't',
      judged: [],
      lists: [
        { run: 'a', docs: [{ docId: 'd1', rank: 1, score: 1, title: 'T', grade: null }], firstRelevant: null },
        { run: 'b', docs: [], firstRelevant: null },
      ],
    };
    let calls = 0;
    const loadPassage: PassageLoader = () =>
      ++calls === 1 ? Promise.reject(new Error('corpus not cached')) : Promise.resolve({ title: '', text: 'second try' });
    render(QueryDetail, {
      props: { qid: 'q', reference: 'a', candidate: 'b', k: 10, loadDetail: () => Promise.resolve(detail), loadPassage },
    });
    await fireEvent.click(await screen.findByRole('button', { name: /show passage/i }));
    expect((await screen.findByRole('alert')).textContent).toContain('corpus not cached');
    await fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('second try');
    expect(calls).toBe(2);
  });

  test('a stale load never overwrites the current query (the later request resolves first)', async () => {
    const pending = new Map<string, ReturnType<typeof deferred<Detail>>>();
    const loadDetail = (qid: string): Promise<Detail> => {
      const d = deferred<Detail>();
      pending.set(qid, d);
      return d.promise;
    };
    const make = (qid: string): Detail => ({ qid, text: `text of ${qid}`, judged: [], lists: [] });
    const { rerender } = render(QueryDetail, {
      props: { qid: 'A', reference: 'r', candidate: 'c', k: 10, loadDetail, loadPassage: noPassage },
    });
    await rerender({ qid: 'B' });
    pending.get('B')!.resolve(make('B'));
    await screen.findByText('text of B');
    pending.get('A')!.resolve(make('A'));
    // The component's handler was attached to A's promise before this await: once it resumes, the handler has
    // run, and tick() flushes whatever it rendered. Only then is "A is not shown" a statement about it.
    await pending.get('A')!.promise;
    await tick();
    expect(screen.queryByText('text of A')).toBeNull();
    expect(screen.getByText('text of B')).toBeTruthy();
  });

  test('a stale load never overwrites the current query (the earlier request resolves or fails while the new one is pending)', async () => {
    const pending = new Map<string, ReturnType<typeof deferred<Detail>>>();
    const loadDetail = (qid: string): Promise<Detail> => {
      const d = deferred<Detail>();
      pending.set(qid, d);
      return d.promise;
    };
    const make = (qid: string): Detail => ({ qid, text: `text of ${qid}`, judged: [], lists: [] });
    const { rerender } = render(QueryDetail, {
      props: { qid: 'A', reference: 'r', candidate: 'c', k: 10, loadDetail, loadPassage: noPassage },
    });
    await rerender({ qid: 'B' });
    await rerender({ qid: 'C' });
    pending.get('A')!.resolve(make('A'));
    pending.get('B')!.reject(new Error('B failed'));
    // As above: both stale handlers have run once these settle.
    await Promise.allSettled([pending.get('A')!.promise, pending.get('B')!.promise]);
    await tick();
    expect(screen.queryByText('text of A')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Loading');
    pending.get('C')!.resolve(make('C'));
    await screen.findByText('text of C');
    await waitFor(() => expect(screen.getByRole('heading', { level: 3 }).textContent).toContain('C'));
  });
});
