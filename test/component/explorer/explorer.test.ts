/**
 * Explorer: a 7,000-query report keeps the DOM small, chips filter with oracle counts, selecting a row
 * reports the qid through onview and opens the detail, text search and controls patch the view.
 */
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { DEFAULT_VIEW, type DetailLoader, type PassageLoader, type TransitionState, type ViewState } from '../../../src/app/types.ts';
import ExplorerHarness from './ExplorerHarness.svelte';
import { detailFrom, synthetic, type Synthetic } from './fixtures.ts';

let s: Synthetic;
beforeAll(() => {
  s = synthetic(7_000, { seed: 5, candidates: 2, docs: 300 });
});

const noPassage: PassageLoader = () => Promise.resolve({ title: '', text: '' });

function setup(initial: Partial<ViewState> = {}, loadDetail?: DetailLoader, sources = false) {
  const patches: Partial<ViewState>[] = [];
  const loader = vi.fn<DetailLoader>(loadDetail ?? ((qid, runs, k) => Promise.resolve(detailFrom(s, qid, runs, k))));
  const r = render(ExplorerHarness, {
    props: {
      report: s.report,
      queryText: (qid: string) => s.texts.get(qid) ?? '',
      initial: { ...DEFAULT_VIEW, reference: 'bm25', candidates: ['cand-1', 'cand-2'], ...initial },
      loadDetail: loader,
      loadPassage: noPassage,
      reference: 'bm25',
      patches,
      listHeight: 320,
      sources,
    },
  });
  return { ...r, patches, loader };
}

/** Naive oracle: queries in the given state for a candidate at a depth. */
function oracleCount(candidate: string, k: number, state: TransitionState | 'all', text = ''): number {
  const d = s.report.depth_list.indexOf(k);
  return s.report.per_query!.filter((r) => {
    const st = r.candidates.find((c) => c.name === candidate)!.states[d]!;
    const t = `${r.qid}\n${s.texts.get(r.qid)}`.toLowerCase();
    return (state === 'all' || st === state) && t.includes(text.toLowerCase());
  }).length;
}

const listbox = () => screen.getByRole('listbox');
const chip = (name: RegExp) => screen.getByRole('button', { name });
const chipCount = (name: RegExp) => Number(chip(name).querySelector('.count')!.textContent);

describe('Explorer', () => {
  test('a 7,000-query report renders only a window of rows', () => {
    setup();
    expect(s.report.per_query).toHaveLength(7_000);
    expect(listbox().getAttribute('aria-label')).toBe('Queries (7000)');
    const options = within(listbox()).getAllByRole('option');
    expect(options.length).toBeGreaterThan(5);
    expect(options.length).toBeLessThan(50);
    expect(document.querySelectorAll('[role="option"]').length).toBe(options.length);
    expect(document.querySelectorAll('.row:not(.head)').length).toBe(options.length);
    expect(options[0]!.querySelector('.qid')!.textContent).toBe(s.report.per_query![0]!.qid);
  });

  test('chip counts equal the oracle, and clicking a chip filters the list', async () => {
    const { patches } = setup();
    for (const st of ['broken', 'fixed', 'preserved', 'unchanged'] as const) {
      expect(chipCount(new RegExp(`^${st}`, 'i'))).toBe(oracleCount('cand-1', 10, st));
    }
    expect(chipCount(/^all/i)).toBe(7_000);

    await fireEvent.click(chip(/^broken/i));
    expect(patches).toEqual([{ state: 'broken' }]);
    const expected = oracleCount('cand-1', 10, 'broken');
    expect(expected).toBeGreaterThan(10);
    expect(expected).toBeLessThan(7_000);
    expect(listbox().getAttribute('aria-label')).toBe(`Queries (${expected})`);
    expect(chip(/^broken/i).getAttribute('aria-pressed')).toBe('true');
    expect(chip(/^all/i).getAttribute('aria-pressed')).toBe('false');
    const badges = within(listbox())
      .getAllByRole('option')
      .map((o) => o.querySelector('.badge')!.textContent);
    expect(badges.length).toBeGreaterThan(0);
    expect(new Set(badges)).toEqual(new Set(['broken']));
  });

  test('the depth and candidate selects patch the view and re-filter', async () => {
    const { patches } = setup({ state: 'fixed' });
    await fireEvent.change(screen.getByLabelText('Depth k'), { target: { value: '50' } });
    expect(patches.at(-1)).toEqual({ k: 50 });
    expect(listbox().getAttribute('aria-label')).toBe(`Queries (${oracleCount('cand-1', 50, 'fixed')})`);
    await fireEvent.change(screen.getByLabelText('Candidate'), { target: { value: 'cand-2' } });
    expect(patches.at(-1)).toEqual({ candidate: 'cand-2' });
    expect(listbox().getAttribute('aria-label')).toBe(`Queries (${oracleCount('cand-2', 50, 'fixed')})`);
  });

  test('text search matches query ids and text case-insensitively', async () => {
    const { patches } = setup();
    const input = screen.getByRole('searchbox', { name: 'Search' });
    await fireEvent.input(input, { target: { value: 'NUMBER 123' } });
    expect(patches.at(-1)).toEqual({ text: 'NUMBER 123' });
    const n = oracleCount('cand-1', 10, 'all', 'number 123');
    expect(n).toBe(11); // 123, 1230–1239
    expect(listbox().getAttribute('aria-label')).toBe(`Queries (${n})`);
    expect(chipCount(/^all/i)).toBe(n);
    await fireEvent.input(input, { target: { value: 'q6999' } });
    expect(
      within(listbox())
        .getAllByRole('option')
        .map((o) => o.querySelector('.qid')!.textContent),
    ).toEqual(['q6999']);
    await fireEvent.input(input, { target: { value: 'no such words' } });
    expect(within(listbox()).queryAllByRole('option')).toHaveLength(0);
    expect(screen.getByText('No query matches these filters.')).toBeTruthy();
  });

  test('clicking a row calls onview with its qid and opens the detail', async () => {
    const { patches, loader } = setup({ state: 'broken' });
    const options = within(listbox()).getAllByRole('option');
    const qid = options[2]!.querySelector('.qid')!.textContent!;
    await fireEvent.click(options[2]!);
    expect(patches.at(-1)).toEqual({ query: qid });
    expect(loader).toHaveBeenCalledWith(qid, ['bm25', 'cand-1'], 10);
    const detail = await screen.findByRole('region', { name: `Query ${qid}` });
    await within(detail).findByText(s.texts.get(qid)!);
    expect(within(listbox()).getByRole('option', { selected: true }).querySelector('.qid')!.textContent).toBe(qid);
  });

  test('a collection of made queries marks its judged passages "(source)", any other none', async () => {
    for (const sources of [true, false]) {
      const { unmount } = setup({ state: 'broken' }, undefined, sources);
      await fireEvent.click(within(listbox()).getAllByRole('option')[0]!);
      const detail = await screen.findByRole('region', { name: /^Query / });
      await within(detail).findAllByRole('table');
      const judged = detail.querySelectorAll('tr.doc.judged').length;
      expect(judged).toBeGreaterThan(0);
      expect(within(detail).queryAllByTestId('source-label')).toHaveLength(sources ? judged : 0);
      unmount();
    }
  });

  test('arrow keys move the selection without opening; Enter opens the selected query', async () => {
    const { patches } = setup();
    const lb = listbox();
    await fireEvent.keyDown(lb, { key: 'ArrowDown' });
    await fireEvent.keyDown(lb, { key: 'ArrowDown' });
    expect(patches).toEqual([]);
    await fireEvent.keyDown(lb, { key: 'Enter' });
    expect(patches).toEqual([{ query: s.report.per_query![1]!.qid }]);
  });

  test('a deep-linked query far down the list is rendered, selected and in view', () => {
    const target = s.report.per_query![5_000]!.qid;
    setup({ query: target });
    const sel = within(listbox()).getByRole('option', { selected: true });
    expect(sel.querySelector('.qid')!.textContent).toBe(target);
    const lb = listbox();
    const top = 5_000 * 32;
    expect(lb.scrollTop).toBeLessThanOrEqual(top);
    expect(lb.scrollTop + 320).toBeGreaterThanOrEqual(top + 32);
  });

  test('an unknown candidate or depth from a link falls back with a note', () => {
    setup({ candidate: 'gone', k: 7 });
    expect(screen.getByText(/Candidate gone is not in this analysis; showing cand-1/)).toBeTruthy();
    expect(screen.getByText(/Depth 7 is not among the analysed depths; showing 5/)).toBeTruthy();
    expect((screen.getByLabelText('Candidate') as HTMLSelectElement).value).toBe('cand-1');
    expect((screen.getByLabelText('Depth k') as HTMLSelectElement).value).toBe('5');
  });

  /** The state of a query for cand-1 at k. */
  const stateOf = (qid: string, k: number): TransitionState =>
    s.report.per_query!.find((r) => r.qid === qid)!.candidates.find((c) => c.name === 'cand-1')!.states[s.report.depth_list.indexOf(k)]!;

  test('a restored link whose open query does not match its filter: the query wins, the filter shows its state', () => {
    const k = s.report.depth_list[0]!;
    const q = s.report.per_query!.find((r) => stateOf(r.qid, k) === 'preserved')!.qid;
    const { patches } = setup({ k, state: 'broken', query: q });
    expect(patches).toEqual([{ state: 'preserved' }]);
    expect(chip(/^Preserved/).getAttribute('aria-pressed')).toBe('true');
    expect(within(listbox()).getByRole('option', { selected: true }).querySelector('.qid')!.textContent).toBe(q);
  });

  test('a chip that would hide the open query closes it; one that keeps it keeps it', async () => {
    const k = s.report.depth_list[0]!;
    const q = s.report.per_query!.find((r) => stateOf(r.qid, k) === 'broken')!.qid;
    const { patches } = setup({ k, query: q });
    await fireEvent.click(chip(/^Broken/));
    expect(patches.at(-1)).toEqual({ state: 'broken' });
    await fireEvent.click(chip(/^Fixed/));
    expect(patches.at(-1)).toEqual({ state: 'fixed', query: null });
  });

  test('"Next broken query" walks the broken queries in list order, wrapping around', async () => {
    const k = s.report.depth_list[0]!;
    const broken = s.report.per_query!.filter((r) => stateOf(r.qid, k) === 'broken').map((r) => r.qid);
    expect(broken.length).toBeGreaterThan(2);
    const { patches } = setup({ k });
    const next = screen.getByTestId('next-broken');
    await fireEvent.click(next);
    await fireEvent.click(next);
    expect(patches.slice(-2)).toEqual([{ query: broken[0] }, { query: broken[1] }]);
    const last = setup({ k, query: broken.at(-1)! });
    await fireEvent.click(within(last.container as HTMLElement).getByTestId('next-broken'));
    expect(last.patches.at(-1)).toEqual({ query: broken[0] });
  });
});
