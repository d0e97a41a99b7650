/**
 * The composed analysis panel: sections with headings, the partial notice and badges, the selected k
 * reaching the matrix, callbacks wired through, the empty state. (No `{@html}` anywhere: test/unit/app/no-html.test.ts.)
 */
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, test, vi } from 'vitest';
import AnalysisPanel from '../../../src/app/views/analysis/AnalysisPanel.svelte';
import { formatCount, formatRate } from '../../../src/app/views/analysis/format.ts';
import type { AnalysisView, FlipReport, SupportLabel } from '../../../src/app/types.ts';
import { analyzeFlips } from '../../../src/core/flips/analyze.ts';
import { BGE_RANKS, E5_RANKS, REFERENCE_RANKS, mainReport, makeQrels, makeRun } from './fixtures.ts';
import { metricsRows, readTable } from './helpers.ts';

function setup(view: AnalysisView, k = 10) {
  const onk = vi.fn<(k: number) => void>();
  const onlabel = vi.fn<(label: SupportLabel) => void>();
  const ondepths = vi.fn<(depths: number[]) => void>();
  const result = render(AnalysisPanel, { view, k, onk, onlabel, ondepths });
  return { ...result, onk, onlabel, ondepths };
}

const fullView = (report: FlipReport = mainReport(), partial: string[] = ['E5']): AnalysisView => {
  const qrels = makeQrels(REFERENCE_RANKS.length);
  const runs = [makeRun('BM25', REFERENCE_RANKS), makeRun('BGE', BGE_RANKS), makeRun('E5', E5_RANKS)];
  return { report, partial, metrics: metricsRows(qrels, runs, partial) };
};

describe('AnalysisPanel', () => {
  test('renders every section under a heading, at the selected k', () => {
    const report = mainReport();
    const { container } = setup(fullView(report), 5);
    const headings = screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent);
    expect(headings).toEqual([
      'Analysis against BM25',
      'Transitions at k = 5',
      'TREC measures and flips',
      'Flips at every depth',
      'Depth plot',
      'Hybrids at a fixed budget, k = 5',
      'Negative flips by reference rank, k = 5',
      'Paired tests between candidates',
    ]);
    const k5 = report.depths.find((d) => d.k === 5)!;
    const bge = container.querySelector('table[data-candidate="BGE"]')!;
    expect(bge.querySelector('td[data-state="broken"] .count')!.textContent).toBe(formatCount(k5.candidates[0]!.broken));
    expect(container.querySelector('[data-depth-plot] svg')).not.toBeNull();
    // The flip table inside the panel shows the same rates as the report.
    const flipTable = screen.getByText(/Transitions against BM25 at every depth/).closest('table')!;
    const row = readTable(flipTable).find((r) => r.text['k'] === '5' && r.text['candidate'] === 'BGE')!;
    expect(row.text['negative-flip rate of reference-supported queries']).toBe(formatRate(k5.candidates[0]!.negative_flip_rate));
  });

  test('partial candidates: a notice at the top and a badge wherever they are named', () => {
    const { container } = setup(fullView(mainReport(), ['E5']));
    const note = container.querySelector('[data-partial-note]')!;
    expect(note.getAttribute('role')).toBe('status');
    // As read: whitespace collapsed (the markup wraps lines).
    expect(note.textContent!.replace(/\s+/g, ' ')).toMatch(/E5 is still encoding/);
    expect(container.querySelector('table[data-candidate="E5"] [data-partial-badge]')).not.toBeNull();
    expect(container.querySelector('table[data-candidate="BGE"] [data-partial-badge]')).toBeNull();
    expect(container.querySelector('tr[data-run="E5"] [data-partial-badge]')).not.toBeNull();
    expect(container.querySelector('tr[data-candidate="E5"] [data-partial-badge]')).not.toBeNull();
    expect(container.querySelector('tr[data-candidate="BGE"] [data-partial-badge]')).toBeNull();
  });

  test('settled runs: no partial notice, no badge', () => {
    const { container } = setup(fullView(mainReport(), []));
    expect(container.querySelector('[data-partial-note]')).toBeNull();
    expect(container.querySelector('[data-partial-badge]')).toBeNull();
  });

  test('a k outside the depth list falls back to the nearest depth and says so', () => {
    setup(fullView(), 7);
    expect(screen.getByText('k = 7 is not in the depth list; showing k = 5.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Transitions at k = 5' })).toBeTruthy();
  });

  test('controls are wired to the callbacks', async () => {
    const { onk, onlabel, ondepths } = setup(fullView());
    await fireEvent.change(screen.getByLabelText('Depth k'), { target: { value: '20' } });
    expect(onk).toHaveBeenCalledWith(20);
    await fireEvent.click(screen.getByRole('radio', { name: /strict/ }));
    expect(onlabel).toHaveBeenCalledWith('strict');
    await fireEvent.input(screen.getByLabelText('Depths'), { target: { value: '10, 1, 5' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    expect(ondepths).toHaveBeenCalledWith([1, 5, 10]);
  });

  test('the strict report is described as strict', () => {
    setup(fullView(mainReport({ label: 'strict' }), []));
    expect(screen.getByText(/support label "strict"/)).toBeTruthy();
    expect((screen.getByRole('radio', { name: /strict/ }) as HTMLInputElement).checked).toBe(true);
  });

  test('missing queries are noted', () => {
    const qrels = makeQrels(REFERENCE_RANKS.length);
    const sparse = makeRun('Sparse', BGE_RANKS);
    const byQuery = new Map(sparse.byQuery);
    const dropped = [...byQuery.keys()].slice(0, 3);
    for (const q of dropped) byQuery.delete(q);
    const report = analyzeFlips(qrels, makeRun('BM25', REFERENCE_RANKS), [{ name: 'Sparse', byQuery }]);
    setup({ report, partial: [], metrics: [] });
    expect(screen.getByText('Run "Sparse" has no ranking for 3 of these queries (counted as unsupported).')).toBeTruthy();
  });

  test('empty state when there is no candidate, still showing the measures', () => {
    const base = mainReport();
    const report: FlipReport = {
      ...base,
      runs: base.runs.filter((r) => r.role === 'reference'),
      depths: [],
      paired: [],
      hybrids: [],
      strata: [],
    };
    const qrels = makeQrels(REFERENCE_RANKS.length);
    const { container } = setup({ report, partial: [], metrics: metricsRows(qrels, [makeRun('BM25', REFERENCE_RANKS)]) });
    expect(screen.getByText(/Nothing to compare yet/)).toBeTruthy();
    expect(container.querySelector('table[data-candidate]')).toBeNull();
    expect(container.querySelector('[data-depth-plot]')).toBeNull();
    const measures = screen.getByRole('heading', { name: 'TREC measures' });
    expect(within(measures.parentElement!).getByRole('table')).toBeTruthy();
  });
});
