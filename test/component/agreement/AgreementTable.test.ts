import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../src/core/agreement/index.ts';
import type { DocId, QueryId, RankedList, Run } from '../../../src/core/types.ts';
import AgreementTable from '../../../src/app/views/agreement/AgreementTable.svelte';

function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists))
    byQuery.set(q as QueryId, { docs: docs as DocId[], scores: Float64Array.from(docs, (_, i) => -i) });
  return { name, byQuery };
}

const EVIL = '<img src=x onerror=alert(1)>';
const reference = makeRun('bm25', { q1: ['a', 'b', 'c', 'd', 'e'], q2: ['f', 'g', 'h', 'i', 'j'], q3: ['k', 'l', 'm', 'n', 'o'] });
const dense = makeRun(EVIL, { q1: ['a', 'c', 'x', 'b', 'e'], q2: ['g', 'f', 'h', 'i', 'j'] });
const same = makeRun('bm25 again', { q1: ['a', 'b', 'c', 'd', 'e'], q2: ['f', 'g', 'h', 'i', 'j'], q3: ['k', 'l', 'm', 'n', 'o'] });
const agreement = compareRuns(reference, [dense, same], [1, 5]);

const cell = (m: { mean: number | null; lo: number | null; hi: number | null }) =>
  `${m.mean!.toFixed(3)} [${m.lo!.toFixed(3)}, ${m.hi!.toFixed(3)}]`;

describe('AgreementTable', () => {
  it('shows each candidate with overlap@k and RBO@k at every depth', () => {
    render(AgreementTable, { agreement });
    const table = screen.getByRole('table', { name: /mean agreement of each candidate with the reference “bm25”/i });
    const cols = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent!.trim());
    expect(cols).toEqual(['Candidate', 'k = 1', 'k = 5', 'overlap@1', 'RBO@1 (max 0.100)', 'overlap@5', 'RBO@5 (max 0.410)']);
    const rows = within(table).getAllByRole('row').slice(2);
    expect(rows).toHaveLength(2);
    const first = within(rows[0]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    const d = agreement.depths;
    expect(first).toEqual([
      cell(d[0]!.candidates[0]!.overlap),
      cell(d[0]!.candidates[0]!.rbo),
      cell(d[1]!.candidates[0]!.overlap),
      cell(d[1]!.candidates[0]!.rbo),
    ]);
    // The run against its own copy: overlap 1 on every query, RBO@5 = 1 − 0.9^5 with a zero-width interval.
    const second = within(rows[1]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(second[2]).toBe('1.000 [1.000, 1.000]');
    expect(second[3]).toBe(`${(1 - 0.9 ** 5).toFixed(3)} [${(1 - 0.9 ** 5).toFixed(3)}, ${(1 - 0.9 ** 5).toFixed(3)}]`);
  });

  it('renders run names as text and marks rows with row headers', () => {
    const { container } = render(AgreementTable, { agreement });
    expect(container.querySelector('img')).toBeNull();
    const rowHeader = screen.getByRole('rowheader', { name: EVIL });
    expect(rowHeader.getAttribute('scope')).toBe('row');
  });

  it('says which run misses queries and how they count', () => {
    render(AgreementTable, { agreement });
    expect(screen.getByText(`Run “${EVIL}” has no ranking for 1 of 3 queries (scored 0).`)).toBeTruthy();
    expect(screen.queryByText(/Run “bm25 again” has no ranking/)).toBeNull();
  });
});
