/**
 * The per-query difference plot: one bar per query the loader returns, sorted by difference, red for the
 * queries the flip report says the candidate broke at k and green for those it fixed — counted against the
 * report's own per-query states, not against the plot's code.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import DifferencePlot from '../../../src/app/views/analysis/DifferencePlot.svelte';
import { differenceBars, STATE_COLORS } from '../../../src/app/views/analysis/difference-plot.ts';
import { mainReport } from './fixtures.ts';

const report = mainReport({ perQuery: true });
const queries = report.per_query!.map((r) => r.qid);
/** A made-up difference per query: negative where BGE broke it at k = 10, positive where it fixed it. */
const diffs = report.per_query!.map((r, i) => {
  const state = r.candidates.find((c) => c.name === 'BGE')!.states[report.depth_list.indexOf(10)];
  return state === 'broken' ? -0.5 - i / 1000 : state === 'fixed' ? 0.4 + i / 1000 : (i % 3) / 10 - 0.1;
});

/** Text as read: whitespace collapsed. */
const text = (e: Element): string => (e.textContent ?? '').replace(/\s+/g, ' ');

describe('difference plot', () => {
  test('sorts the bars by difference, ties by query id', () => {
    const bars = differenceBars(['b', 'a', 'c'], [0.1, 0.1, -0.2], () => null);
    expect(bars.map((b) => b.qid)).toEqual(['c', 'a', 'b']);
  });

  test('draws one bar per query, the broken ones red and the fixed ones green at k', async () => {
    const k = 10;
    const { container } = render(DifferencePlot, { report, k, load: async () => ({ queries, diffs }) });
    const plot = container.querySelector('[data-bars]')!;
    await waitFor(() => expect(plot.getAttribute('data-bars')).toBe(String(queries.length)));
    const rects = [...plot.querySelectorAll('rect')].filter((r) => r.getAttribute('fill') !== null);
    const colours = (c: string) => rects.filter((r) => r.getAttribute('fill') === c).length;
    const at = report.depth_list.indexOf(k);
    const state = (s: string) => report.per_query!.filter((r) => r.candidates.find((c) => c.name === 'BGE')!.states[at] === s).length;
    expect(state('broken')).toBeGreaterThan(0);
    expect(colours(STATE_COLORS.broken)).toBe(state('broken'));
    expect(colours(STATE_COLORS.fixed)).toBe(state('fixed'));
    expect(text(container)).toMatch(new RegExp(`the ${state('broken')} queries BGE broke at k = 10`));
  });

  test('counts one query in the singular', async () => {
    // E5 breaks exactly one query at k = 10 in the fixture.
    const at = report.depth_list.indexOf(10);
    const broken = report.per_query!.filter((r) => r.candidates.find((c) => c.name === 'E5')!.states[at] === 'broken');
    expect(broken).toHaveLength(1);
    const { container } = render(DifferencePlot, { report, k: 10, load: async () => ({ queries, diffs }) });
    await fireEvent.change(screen.getByRole('combobox', { name: 'Candidate' }), { target: { value: 'E5' } });
    await waitFor(() => expect(text(container)).toMatch(/Red: the 1 query E5 broke at k = 10;/));
    expect(text(container)).not.toMatch(/\b1 queries\b/);
  });
});
