/**
 * The analysis tables render the core's numbers: every cell equals the report's value through the
 * formatters, the transition counts also match a naive oracle over the synthetic ranks, undefined rates
 * show "—" with a reason, and partial candidates carry a badge.
 */
import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import FlipTable from '../../../src/app/views/analysis/FlipTable.svelte';
import HybridsTable from '../../../src/app/views/analysis/HybridsTable.svelte';
import MetricsTable from '../../../src/app/views/analysis/MetricsTable.svelte';
import PairedTable from '../../../src/app/views/analysis/PairedTable.svelte';
import StrataTable from '../../../src/app/views/analysis/StrataTable.svelte';
import TransitionMatrix from '../../../src/app/views/analysis/TransitionMatrix.svelte';
import { undefinedReason } from '../../../src/app/views/analysis/format.ts';

import { LAB_MEASURES } from '../../../src/app/types.ts';
import { analyzeFlips } from '../../../src/core/flips/analyze.ts';
import { BGE_RANKS, E5_RANKS, REFERENCE_RANKS, mainReport, makeQrels, makeRun, undefinedReport, type Ranks } from './fixtures.ts';
import { metricsRows, readTable, visibleText } from './helpers.ts';
import type { Estimate } from '../../../src/core/stats/index.ts';

// What a cell must show, written here from the display's definition (not with the views' own formatters, so a
// formatter that goes wrong fails this test): counts with thousands separators, signed counts, percentages
// with one decimal and 95% bounds in percent, measures with four decimals, p-values with four significant
// digits, "—" for anything undefined.
const DASH = '—';
const formatCount = (n: number): string => n.toLocaleString('en-US');
const formatSigned = (n: number): string => (n > 0 ? `+${formatCount(n)}` : formatCount(n));
const oneDecimal = (x: number): string => x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const formatRate = (e: Estimate): string =>
  e.value === null || e.lo === null || e.hi === null
    ? DASH
    : `${(100 * e.value).toFixed(1)}% [${(100 * e.lo).toFixed(1)}, ${(100 * e.hi).toFixed(1)}]`;
const formatNetGain = (e: Estimate): string =>
  e.value === null || e.lo === null || e.hi === null ? DASH : `${formatSigned(e.value)} [${oneDecimal(e.lo)}, ${oneDecimal(e.hi)}]`;
const formatMeasure = (x: number | undefined): string => (x === undefined ? DASH : x.toFixed(4));
const formatPValue = (p: number): string => (p < 0.0001 ? '< 0.0001' : p.toPrecision(4));
const formatShare = (count: number, total: number): string => (total > 0 ? `${((100 * count) / total).toFixed(1)}%` : DASH);
const formatMean = (x: number): string => oneDecimal(x);

const tableOf = (container: HTMLElement): HTMLTableElement => {
  const t = container.querySelector('table');
  if (!t) throw new Error('no table rendered');
  return t;
};

/** Literal transition counts at depth k: supported = rank ≤ k. */
function oracle(ref: Ranks, cand: Ranks, k: number) {
  const s = (r: number | null) => r !== null && r <= k;
  const c = { preserved: 0, broken: 0, fixed: 0, unchanged: 0 };
  ref.forEach((r, i) => {
    const a = s(r);
    const b = s(cand[i]!);
    if (a && b) c.preserved++;
    else if (a) c.broken++;
    else if (b) c.fixed++;
    else c.unchanged++;
  });
  return c;
}

describe('TransitionMatrix', () => {
  test('a 2×2 table per candidate whose cells are the oracle counts and their shares', () => {
    const report = mainReport();
    const n = REFERENCE_RANKS.length;
    const { container } = render(TransitionMatrix, { report, k: 10, partial: [] });
    const tables = container.querySelectorAll<HTMLTableElement>('table[data-candidate]');
    expect([...tables].map((t) => t.dataset['candidate'])).toEqual(['BGE', 'E5']);
    for (const [name, ranks] of [
      ['BGE', BGE_RANKS],
      ['E5', E5_RANKS],
    ] as const) {
      const table = container.querySelector<HTMLTableElement>(`table[data-candidate="${name}"]`)!;
      const expected = oracle(REFERENCE_RANKS, ranks, 10);
      const row = report.depths.find((d) => d.k === 10)!.candidates.find((c) => c.name === name)!;
      for (const state of ['preserved', 'broken', 'fixed', 'unchanged'] as const) {
        expect(row[state]).toBe(expected[state]); // the core agrees with the oracle …
        const cell = table.querySelector<HTMLElement>(`td[data-state="${state}"]`)!;
        // … and the view shows it, with its share of all queries.
        expect(cell.querySelector('.count')!.textContent).toBe(formatCount(expected[state]));
        expect(cell.querySelector('.share')!.textContent).toBe(`${formatShare(expected[state], n)} of all`);
      }
      // Layout: row 1 = reference supports (preserved, broken), row 2 = does not (fixed, unchanged).
      const bodyRows = table.tBodies[0]!.rows;
      expect([...bodyRows[0]!.cells].map((c) => c.dataset['state'] ?? c.textContent!.trim())).toEqual([
        'BM25 supports',
        'preserved',
        'broken',
      ]);
      expect([...bodyRows[1]!.cells].map((c) => c.dataset['state'] ?? c.textContent!.trim())).toEqual([
        'BM25 does not',
        'fixed',
        'unchanged',
      ]);
      expect(table.querySelector('[data-net-gain]')!.textContent).toContain(formatSigned(expected.fixed - expected.broken));
      expect(table.querySelector('[data-partial-badge]')).toBeNull();
    }
  });

  test('follows k and badges partial candidates', () => {
    const report = mainReport();
    const { container } = render(TransitionMatrix, { report, k: 1, partial: ['E5'] });
    const bge = container.querySelector('table[data-candidate="BGE"]')!;
    const e5 = container.querySelector('table[data-candidate="E5"]')!;
    expect(bge.querySelector('[data-partial-badge]')).toBeNull();
    expect(e5.querySelector('caption [data-partial-badge]')?.textContent).toBe('partial');
    expect(e5.querySelector('td[data-state="broken"] .count')!.textContent).toBe(formatCount(oracle(REFERENCE_RANKS, E5_RANKS, 1).broken));
  });

  test('says so when k is not an analysed depth', () => {
    render(TransitionMatrix, { report: mainReport(), k: 7 });
    expect(screen.getByText(/k = 7 is not one of the analysed depths/)).toBeTruthy();
  });
});

describe('FlipTable', () => {
  test('every depth × candidate row equals the report through the formatters', () => {
    const report = mainReport();
    const { container } = render(FlipTable, { report, partial: ['E5'] });
    const rows = readTable(tableOf(container));
    expect(rows).toHaveLength(report.depths.length * 2);
    let i = 0;
    for (const block of report.depths) {
      for (const c of block.candidates) {
        const r = rows[i++]!;
        expect(r.text).toEqual({
          k: `${block.k}`,
          candidate: c.name,
          'reference support': formatCount(block.reference.supported),
          'candidate support': formatCount(c.supported),
          fixed: formatCount(c.fixed),
          broken:
            formatCount(c.broken) +
            (c.broken_with_unjudged > 0 ? ` (${formatCount(c.broken_with_unjudged)} with unjudged in top ${block.k})` : ''),
          'net gain': formatNetGain(c.net_gain),
          'fix rate of queries the reference misses': formatRate(c.fix_rate),
          'negative-flip rate of reference-supported queries': formatRate(c.negative_flip_rate),
          'negative-flip rate, judged lower end: holes in the judgments not counted':
            c.negative_flip_rate_low === null ? '—' : `${(100 * c.negative_flip_rate_low).toFixed(1)}%`,
          'compatibility of reference-supported queries': formatRate(c.compatibility),
        });
        expect(r.cells['candidate']!.tagName).toBe('TH');
        expect(r.cells['candidate']!.getAttribute('scope')).toBe('row');
        expect(r.cells['candidate']!.querySelector('[data-partial-badge]') !== null).toBe(c.name === 'E5');
      }
    }
    // Spot-check against the oracle so the test does not only compare the report with itself.
    const k5 = rows.find((r) => r.text['k'] === '5' && r.text['candidate'] === 'BGE')!;
    expect(k5.text['broken']!.split(' ')[0]).toBe(`${oracle(REFERENCE_RANKS, BGE_RANKS, 5).broken}`);
    expect(rows.some((r) => r.text['negative-flip rate of reference-supported queries'] === '—')).toBe(false);
  });

  test('undefined rates show "—" with the reason, never 0', () => {
    const report = undefinedReport();
    const k1 = report.depths.find((d) => d.k === 1)!;
    const k10 = report.depths.find((d) => d.k === 10)!;
    // The fixture really has the zero denominators this test is about.
    expect(k1.reference.supported).toBe(0);
    expect(k1.candidates[0]!.negative_flip_rate.value).toBeNull();
    expect(k10.reference.supported).toBe(report.queries);
    expect(k10.candidates[0]!.fix_rate.value).toBeNull();

    const { container } = render(FlipTable, { report });
    const rows = readTable(tableOf(container));
    const r1 = rows.find((r) => r.text['k'] === '1')!;
    for (const [column, kind] of [
      ['negative-flip rate of reference-supported queries', 'negative_flip_rate'],
      ['compatibility of reference-supported queries', 'compatibility'],
    ] as const) {
      const cell = r1.cells[column]!;
      expect(r1.text[column]).toBe('—');
      expect(cell.title).toBe(undefinedReason(kind, 1));
      expect(cell.querySelector('.sr-only')!.textContent).toBe(undefinedReason(kind, 1));
      expect(cell.textContent).not.toMatch(/0\.0%/);
    }
    expect(r1.text['fix rate of queries the reference misses']).toBe(formatRate(k1.candidates[0]!.fix_rate));
    expect(r1.text['fix rate of queries the reference misses']).not.toBe('—');
    const r10 = rows.find((r) => r.text['k'] === '10')!;
    expect(r10.text['fix rate of queries the reference misses']).toBe('—');
    expect(r10.cells['fix rate of queries the reference misses']!.title).toBe(undefinedReason('fix_rate', 10));
    expect(r10.text['negative-flip rate of reference-supported queries']).toBe(formatRate(k10.candidates[0]!.negative_flip_rate));
  });
});

describe('HybridsTable', () => {
  test('at one k: the candidate alone plus alternation, RRF and union rows from the report', () => {
    const report = mainReport();
    const { container } = render(HybridsTable, { report, k: 10, partial: [] });
    const rows = readTable(tableOf(container));
    const hybrids = report.hybrids.filter((h) => h.k === 10);
    expect(rows).toHaveLength(hybrids.length + 2);
    for (const h of hybrids) {
      const r = rows.find((x) => x.row.dataset['candidate'] === h.candidate && x.row.dataset['method'] === h.method)!;
      expect(r.text['k']).toBe('10');
      expect(r.text['budget']).toBe(formatCount(h.budget));
      expect(r.text['mean size']).toBe(formatMean(h.mean_size));
      expect(r.text['supported']).toBe(formatCount(h.supported));
      expect(r.text['preserved']).toBe(formatCount(h.preserved));
      expect(r.text['broken']).toBe(formatCount(h.broken));
      expect(r.text['fixed']).toBe(formatCount(h.fixed));
      expect(r.text['net gain']).toBe(formatSigned(h.net_gain));
      expect(r.text['negative-flip rate']).toBe(formatRate(h.negative_flip_rate));
    }
    const union = rows.find((x) => x.row.dataset['method'] === 'union')!;
    expect(union.text['budget']).toBe('20');
    expect(union.text['broken']).toBe('0'); // the union keeps every reference top-k passage
    const alone = rows.find((x) => x.row.dataset['candidate'] === 'BGE' && x.row.dataset['method'] === 'alone')!;
    expect(alone.text['broken']).toBe(`${oracle(REFERENCE_RANKS, BGE_RANKS, 10).broken}`);
  });

  test('without k it lists every depth', () => {
    const report = mainReport();
    const { container } = render(HybridsTable, { report });
    expect(readTable(tableOf(container))).toHaveLength(report.hybrids.length + report.depths.length * 2);
  });
});

describe('StrataTable', () => {
  test('rows are the report strata at k; an empty stratum shows "—"', () => {
    // Reference supports nothing at rank 1: the "1" stratum is empty at every depth.
    const ref: Ranks = [2, 3, 7, 12, 4, 8];
    const cand: Ranks = [1, null, 9, 30, 2, 1];
    const report = makeReport(ref, cand);
    const { container } = render(StrataTable, { report, k: 10 });
    const rows = readTable(tableOf(container));
    const strata = report.strata.filter((s) => s.k === 10);
    expect(rows.map((r) => r.row.dataset['ranks'])).toEqual(strata.map((s) => s.ranks));
    for (const [i, s] of strata.entries()) {
      const r = rows[i]!;
      expect(r.text['reference supported']).toBe(formatCount(s.reference_supported));
      expect(r.text['broken']).toBe(formatCount(s.broken));
      expect(r.text['negative-flip rate']).toBe(formatRate(s.negative_flip_rate));
    }
    const first = rows[0]!;
    expect(first.text['reference rank']).toBe('1');
    expect(first.text['reference supported']).toBe('0');
    expect(first.text['negative-flip rate']).toBe('—');
    expect(first.cells['negative-flip rate']!.title).toBe(undefinedReason('stratum', 10, '1'));
    // Oracle: reference ranks 6–10 are 7 and 8; the candidate has those queries at 9 and 1 (≤ 10) → 0 broken.
    const mid = rows.find((r) => r.row.dataset['ranks'] === '6-10')!;
    expect(mid.text['reference supported']).toBe('2');
    expect(mid.text['broken']).toBe('0');
  });
});

function makeReport(ref: Ranks, cand: Ranks) {
  return mainReportFrom(ref, [['Dense', cand]]);
}

function mainReportFrom(ref: Ranks, cands: readonly (readonly [string, Ranks])[]) {
  return analyzeFlips(
    makeQrels(ref.length),
    makeRun('BM25', ref),
    cands.map(([name, r]) => makeRun(name, r)),
  );
}

describe('PairedTable', () => {
  test('every pair and depth with exact and Holm p-values and a marker below 0.05', () => {
    // A breaks many reference successes that B keeps, so the pair is significant at some depths.
    const n = 40;
    const ref: Ranks = Array.from({ length: n }, () => 1);
    const a: Ranks = Array.from({ length: n }, (_, i) => (i < 20 ? null : 1));
    const b: Ranks = Array.from({ length: n }, (_, i) => (i === 0 ? null : 1));
    const report = mainReportFrom(ref, [
      ['A', a],
      ['B', b],
      ['C', b],
    ]);
    const { container } = render(PairedTable, { report, partial: ['C'] });
    const rows = readTable(tableOf(container));
    expect(rows).toHaveLength(report.paired.length);
    expect(report.paired.length).toBe(3 * report.depth_list.length);
    for (const [i, p] of report.paired.entries()) {
      const r = rows[i]!;
      expect(r.text).toEqual({
        k: `${p.k}`,
        A: p.a,
        B: p.b,
        'only A': formatCount(p.only_a),
        'only B': formatCount(p.only_b),
        p: formatPValue(p.p),
        'p (Holm)': formatPValue(p.p_holm),
        // A pair with a run still encoding (C is partial) is never marked: it reads "not final".
        significant: p.a === 'C' || p.b === 'C' ? 'not final' : p.p_holm < 0.05 ? '*' : '',
      });
      expect(r.cells['significant']!.dataset['significant']).toBe(p.a === 'C' || p.b === 'C' ? 'not final' : String(p.p_holm < 0.05));
    }
    expect(report.paired.some((p) => p.p_holm < 0.05)).toBe(true);
    expect(report.paired.some((p) => p.p_holm >= 0.05)).toBe(true);
    const ab = rows.find((r) => r.text['A'] === 'A' && r.text['B'] === 'B' && r.text['k'] === '1')!;
    expect(ab.text['only A']).toBe('19'); // oracle: A loses queries 1–19 that B keeps (B loses query 0 too)
    expect(ab.text['significant']).toBe('*');
    expect(within(rows.find((r) => r.text['B'] === 'C')!.row).getByText('partial')).toBeTruthy();
  });

  test('one candidate: explains that pairs need two', () => {
    render(PairedTable, { report: undefinedReport() });
    expect(screen.getByText(/add a second candidate/)).toBeTruthy();
  });
});

describe('MetricsTable', () => {
  test('one row per run with LAB_MEASURES from the core evaluator, flips at k, partial marked', () => {
    const qrels = makeQrels(REFERENCE_RANKS.length);
    const runs = [makeRun('BM25', REFERENCE_RANKS), makeRun('BGE', BGE_RANKS), makeRun('E5', E5_RANKS)];
    const metrics = metricsRows(qrels, runs, ['E5']);
    const report = mainReport();
    const { container } = render(MetricsTable, { metrics, report, k: 10 });
    const table = tableOf(container);
    const rows = readTable(table);
    expect(rows.map((r) => r.row.dataset['run'])).toEqual(['BM25', 'BGE', 'E5']);
    const block = report.depths.find((d) => d.k === 10)!;
    for (const [i, m] of metrics.entries()) {
      const r = rows[i]!;
      for (const measure of LAB_MEASURES) expect(r.text[measure.label]).toBe(formatMeasure(m.values[measure.key]));
      const flips = block.candidates.find((c) => c.name === m.run);
      expect(r.text['broken @10']).toBe(flips ? formatCount(flips.broken) : '—');
      expect(r.text['fixed @10']).toBe(flips ? formatCount(flips.fixed) : '—');
      expect(r.cells['run']!.querySelector('[data-partial-badge]') !== null).toBe(m.run === 'E5');
    }
    expect(visibleText(rows[0]!.cells['run']!)).toBe('BM25 (reference)');
    // MRR@10 of the reference by hand: reciprocal rank of the positive within the top 10, averaged.
    const mrr = REFERENCE_RANKS.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / REFERENCE_RANKS.length;
    expect(rows[0]!.text['MRR@10']).toBe(mrr.toFixed(4));
  });

  test('a missing measure is a dash with an explanation', () => {
    const { container } = render(MetricsTable, { metrics: [{ run: 'X', partial: true, values: { map: 0.5 }, trecEval: '10.0' }] });
    const r = readTable(tableOf(container))[0]!;
    expect(r.text['MAP']).toBe('0.5000');
    expect(r.text['MRR@10']).toBe('—');
    expect(r.cells['MRR@10']!.title).toMatch(/not computed/);
    expect(r.cells['run']!.querySelector('[data-partial-badge]')).not.toBeNull();
  });
});
