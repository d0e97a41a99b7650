import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { analyzeFlips, formatFlipReport } from '../../../src/core/flips/index.ts';
import { agreementCsv } from '../../../src/report/agreement.ts';
import { compareRuns } from '../../../src/core/agreement/index.ts';
import { csvField, csvNumber } from '../../../src/report/csv.ts';
import { reportHtml } from '../../../src/report/html.ts';
import { flipReportJson } from '../../../src/report/json.ts';
import { reportLatex } from '../../../src/report/latex.ts';
import { reportMarkdown } from '../../../src/report/markdown.ts';
import { labMetricsRow } from '../../../src/report/metrics.ts';
import { perQueryCsv } from '../../../src/report/per-query.ts';
import { buildSections, type ReportInput } from '../../../src/report/sections.ts';
import { makeQrels, makeRun } from './fixtures.ts';

// Rates whose denominator is zero: the reference supports every query (no failure to fix), or none (no
// success to lose). Every export of such a report must say "n/a" with the reason, never "undefined",
// "NaN" or an empty cell.
const QIDS = ['q1', 'q2', 'q3'];
const qrels = makeQrels(Object.fromEntries(QIDS.map((q) => [q, { [`${q}-pos`]: 1, [`${q}-neg`]: 0 }])));
const hits = makeRun('hits', Object.fromEntries(QIDS.map((q) => [q, [`${q}-pos`, `${q}-neg`, `${q}-x`]])));
const misses = makeRun('misses', Object.fromEntries(QIDS.map((q) => [q, [`${q}-x`, `${q}-y`, `${q}-neg`]])));

function exportsOf(reference: typeof hits, candidate: typeof hits): Record<string, string> {
  const report = analyzeFlips(qrels, reference, [candidate, { ...candidate, name: `${candidate.name}-2` }], {
    depths: [1, 3],
    perQuery: true,
  });
  const input: ReportInput = {
    title: 't',
    collection: 'c',
    date: '2026-01-01',
    report,
    metrics: [reference, candidate].map((r) => labMetricsRow(qrels, r)),
  };
  const sections = buildSections(input);
  return {
    text: formatFlipReport(report),
    markdown: reportMarkdown(input),
    html: reportHtml(input),
    latex: reportLatex(input),
    csv: perQueryCsv(report),
    json: flipReportJson(report),
    cells: sections.flatMap((s) => s.tables.flatMap((t) => t.rows.flatMap((r) => r.filter((_, i) => t.numeric[i])))).join('\n'),
    empties: String(
      sections.flatMap((s) => s.tables.flatMap((t) => t.rows.flatMap((r) => r.filter((c, i) => t.numeric[i] && c.trim() === '')))).length,
    ),
  };
}

describe('rates with an empty denominator', () => {
  for (const [name, reference, candidate, reason] of [
    ['the reference supports every query', hits, hits, 'n/a (no query the reference fails)'],
    ['the reference supports no query', misses, hits, 'n/a (no query the reference supports)'],
  ] as const) {
    it(`${name}: every export says "${reason}", none says undefined or NaN`, () => {
      const out = exportsOf(reference, candidate);
      for (const [format, text] of Object.entries(out)) {
        expect(text, format).not.toMatch(/undefined|NaN/);
      }
      expect(out.empties).toBe('0');
      for (const format of ['text', 'markdown', 'html', 'latex', 'cells']) expect(out[format], format).toContain(reason);
    });
  }

  it('the run against itself: no undefined in the agreement CSV either', () => {
    const agreement = compareRuns(hits, [hits], [1, 3], { perQuery: true });
    expect(agreementCsv(agreement)).not.toMatch(/undefined|NaN/);
  });
});

describe('CSV cells a spreadsheet would run', () => {
  const evil = ['=1+1', '+SUM(1)', '@A1', '\tcmd', '\rcmd', '-cmd', '=HYPERLINK("http://e.example","x")'];
  const qr = makeQrels(Object.fromEntries(evil.map((q) => [q, { d1: 1 }])));
  const ref = makeRun('+tag', Object.fromEntries(evil.map((q) => [q, ['d1', 'd2']])));
  const cand = makeRun('@cand', Object.fromEntries(evil.map((q) => [q, ['d2', 'd1']])));

  it('per-query CSV: every text cell that starts with a trigger is escaped with a leading quote', () => {
    const csv = perQueryCsv(analyzeFlips(qr, ref, [cand], { depths: [1], perQuery: true }));
    const rows = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data;
    expect(rows.length).toBe(1 + evil.length);
    for (const cell of rows.flat()) {
      if (/^[=+\-@\t\r]/.test(cell)) expect(cell, JSON.stringify(cell)).toMatch(/^[+-]?\d/);
    }
    // The originals are still there, after the quote.
    expect(rows.slice(1).map((r) => r[0])).toEqual(evil.map((q) => `'${q}`));
    expect(rows[1]![1]).toBe("'+tag");
    expect(rows[1]![2]).toBe("'@cand");
  });

  it('a number as text stays a number; negative numbers are not escaped', () => {
    expect(csvField('-2')).toBe('-2');
    expect(csvField('+1.5e3')).toBe('+1.5e3');
    expect(csvField(-2)).toBe('-2');
    expect(csvField('-')).toBe("'-");
    expect(csvField('=a,b')).toBe(`"'=a,b"`);
  });

  it('numbers print in the shortest form without float noise, and read back', () => {
    expect(csvNumber(1 - 0.9)).toBe('0.1');
    expect(csvNumber(0.1 + 0.2)).toBe('0.3');
    expect(csvNumber(2 / 3)).toBe('0.666666666666667');
    expect(csvNumber(1e21)).toBe('1e+21');
    expect(csvNumber(-0.000123)).toBe('-0.000123');
    for (let i = 0; i < 1000; i++) {
      const x = Math.round(Math.random() * 1e6) / 1e4;
      expect(Number(csvNumber(x))).toBe(x);
    }
    expect(() => csvNumber(NaN)).toThrow(/not a number/);
  });
});
