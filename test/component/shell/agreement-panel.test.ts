/**
 * AgreementPanel (collections without judgments) over the real Agreement state: it asks the lab worker to
 * compare the reference with the candidates at the view's depths (per query, for the explorer and the
 * exports) and renders the agreement table; here `lab.lab.compare` answers with a real `compareRuns(...)` of
 * small synthetic runs, and `lab.lab.depthWarnings` with the core's warnings for them.
 */
import { render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import AgreementPanel from '../../../src/app/views/shell/AgreementPanel.svelte';
import { compareRuns } from '../../../src/core/agreement/index.ts';
import { depthWarnings, listLengths } from '../../../src/core/depth.ts';
import { Agreement } from '../../../src/app/state/agreement.svelte.ts';
import type { DocId, QueryId, RankedList, Run } from '../../../src/core/types.ts';
import type { RetrieverInfo } from '../../../src/app/types.ts';
import { asLab, FakeLab, summary } from './fakes.svelte.ts';

function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists))
    byQuery.set(q as QueryId, { docs: docs as DocId[], scores: Float64Array.from(docs, (_, i) => -i) });
  return { name, byQuery };
}

const RUNS: Record<string, Run> = {
  bm25: makeRun('bm25', { q1: ['a', 'b', 'c', 'd', 'e'], q2: ['f', 'g', 'h', 'i', 'j'] }),
  dense: makeRun('dense', { q1: ['a', 'x', 'b', 'y', 'z'], q2: ['j', 'i', 'h', 'g', 'f'] }),
  sparse: makeRun('sparse', { q1: ['e', 'd', 'c', 'b', 'a'], q2: ['f', 'g', 'k', 'l', 'm'] }),
};

const ready = (id: string): RetrieverInfo => ({ id, name: id, kind: 'dense', status: 'ready' });
const fixed3 = (x: number | null) => x!.toFixed(3);

function setup(candidates: string[]) {
  const lab = new FakeLab();
  lab.collection = summary({ judged: false, split: null });
  lab.retrievers = [ready('bm25'), ready('dense'), ready('sparse')];
  lab.view = { ...lab.view, reference: 'bm25', candidates, depths: [1, 5] };
  lab.lab.compare.mockImplementation((reference, names, depths, options) =>
    Promise.resolve(
      compareRuns(
        RUNS[reference]!,
        names.map((n) => RUNS[n]!),
        depths,
        options,
      ),
    ),
  );
  lab.lab.depthWarnings.mockImplementation((names, depths) => {
    // runs read from files: what the lab shows is what the CLI says
    const warnings = depthWarnings(
      names.map((n) => ({ name: n, lengths: listLengths(RUNS[n]!) })),
      depths.map((k) => ({ k, label: `depth ${k}` })),
    );
    return Promise.resolve({ warnings, cut: warnings, corpus: 13 });
  });
  const agreement = new Agreement(asLab(lab));
  const r = render(AgreementPanel, { agreement });
  return { ...r, lab, agreement };
}

describe('AgreementPanel', () => {
  test('compares the reference with the candidates at the view depths and renders the table', async () => {
    const { lab } = setup(['dense']);
    const table = await screen.findByRole('table');
    expect(lab.lab.compare).toHaveBeenCalledWith('bm25', ['dense'], [1, 5], { perQuery: true });
    const want = compareRuns(RUNS['bm25']!, [RUNS['dense']!], [1, 5]);
    const rows = within(table)
      .getAllByRole('row')
      .filter((r) => within(r).queryAllByRole('cell').length > 0);
    expect(rows).toHaveLength(1);
    expect(within(rows[0]!).getByRole('rowheader').textContent).toContain('dense');
    const cells = within(rows[0]!)
      .getAllByRole('cell')
      .map((c) => c.textContent ?? '');
    // overlap@5 of q1 is 2/5 and of q2 is 5/5: mean 0.7; the table shows the core's numbers.
    expect(want.depths[1]!.candidates[0]!.overlap.mean).toBeCloseTo(0.7, 12);
    expect(cells[2]).toMatch(new RegExp(`^${fixed3(want.depths[1]!.candidates[0]!.overlap.mean)} `));
    expect(cells[0]).toMatch(new RegExp(`^${fixed3(want.depths[0]!.candidates[0]!.overlap.mean)} `));
    expect(screen.queryByText('Add a second retriever to compare.')).toBeNull();
  });

  test('a new candidate runs the comparison again', async () => {
    const { lab } = setup(['dense']);
    await screen.findByRole('table');
    lab.view = { ...lab.view, candidates: ['dense', 'sparse'] };
    await waitFor(() => expect(lab.lab.compare).toHaveBeenLastCalledWith('bm25', ['dense', 'sparse'], [1, 5], { perQuery: true }));
    await waitFor(() =>
      expect(
        within(screen.getByRole('table'))
          .getAllByRole('rowheader')
          .map((h) => h.textContent?.trim()),
      ).toEqual(['dense', 'sparse']),
    );
  });

  test('without a candidate it asks for one and compares nothing', () => {
    const { lab } = setup([]);
    expect(screen.getByText('Add a second retriever to compare.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(lab.lab.compare).not.toHaveBeenCalled();
  });

  test('a failed comparison is an alert', async () => {
    const lab = new FakeLab();
    lab.retrievers = [ready('bm25'), ready('dense')];
    lab.view = { ...lab.view, reference: 'bm25', candidates: ['dense'] };
    lab.collection = summary({ judged: false, split: null });
    lab.lab.compare.mockRejectedValue(new Error('no run named dense'));
    render(AgreementPanel, { agreement: new Agreement(asLab(lab)) });
    expect((await screen.findByRole('alert')).textContent).toBe('no run named dense');
  });

  test('depths beyond the runs (5 documents a query) and the corpus are flagged in words and in the table', async () => {
    const { lab } = setup(['dense']);
    lab.view = { ...lab.view, depths: [5, 10, 20] };
    const table = await screen.findByRole('table');
    await waitFor(() => expect(within(table).getAllByTestId('depth-flag')).toHaveLength(2));
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent ?? '')
      .filter((t) => t.startsWith('k = '));
    expect(headers).toEqual(['k = 5', "k = 10 (beyond the runs' depth)", "k = 20 (beyond the runs' depth)"]);
    const notes = screen.getByTestId('depth-notes');
    expect(notes.dataset['beyondCorpus']).toBe('20');
    expect(notes.textContent).toMatch(/Depth 20 is beyond this corpus \(13 passages\)/);
    expect(notes.textContent).toMatch(/depth 10 exceeds the depth of run "bm25" \(at most 5 documents per query\)/);
  });
});
