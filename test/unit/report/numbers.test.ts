import { describe, expect, it } from 'vitest';
import { analyzeFlips, formatFlipReport } from '../../../src/core/flips/index.ts';
import { buildSections } from '../../../src/report/sections.ts';
import { syntheticCase } from './fixtures.ts';

// The report's tables must show exactly the cells `fliplab flips` prints: split the terminal text on its
// column gaps (two or more spaces) and compare cell by cell.
function terminalRows(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const rows: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.split(/\s{2,}/).join('|') !== header) continue;
    for (let j = i + 2; j < lines.length && lines[j] !== ''; j++) rows.push(lines[j]!.trim().split(/\s{2,}/));
  }
  return rows;
}

describe('report tables use the CLI number formatting', () => {
  const c = syntheticCase(7, ['cand-a', 'cand-b']);
  const report = analyzeFlips(c.qrels, c.reference, c.candidates, { depths: [1, 3, 5, 10, 20] });
  const text = formatFlipReport(report);
  const sections = buildSections({ title: 't', collection: 'c', date: 'd', report });
  const tablesOf = (id: string) => sections.find((s) => s.id === id)!.tables;

  it('flip tables: every depth, every cell', () => {
    const tables = tablesOf('transitions');
    expect(tables.map((t) => t.caption)).toEqual(
      report.depths.map((d) => `k = ${d.k}: reference supports ${d.reference.supported} of ${report.queries}`),
    );
    const all = terminalRows(text, tables[0]!.header.join('|'));
    expect(all.length).toBe(report.depths.length * 2);
    expect(tables.flatMap((t) => t.rows)).toEqual(all);
    // Something non-trivial was compared: intervals and signed gains are there.
    expect(all.some((r) => /% \[\d+\.\d, \d+\.\d\]/.test(r[7]!))).toBe(true);
  });

  it('hybrids, strata and paired tables', () => {
    for (const id of ['hybrids', 'strata', 'paired']) {
      const [t] = tablesOf(id);
      const want = terminalRows(text, t!.header.join('|'));
      expect(want.length, id).toBeGreaterThan(0);
      expect(t!.rows, id).toEqual(want);
    }
  });
});
