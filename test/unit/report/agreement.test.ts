/**
 * The agreement exports for collections without judgments: the per-query CSV holds the report's own numbers,
 * one row per query and candidate; the report sections hold the CLI's table cells (`fliplab compare`), the
 * depth warnings in words, and no flip section; Markdown and HTML render them.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, formatAgreement } from '../../../src/core/agreement/index.ts';
import { depthWarnings, listLengths } from '../../../src/core/depth.ts';
import type { DocId, QueryId, RankedList, Run } from '../../../src/core/types.ts';
import { agreementCsv, agreementJson, reportHtml, reportMarkdown } from '../../../src/report/index.ts';
import { buildSections } from '../../../src/report/sections.ts';

function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists))
    byQuery.set(q as QueryId, { docs: docs as DocId[], scores: Float64Array.from(docs, (_, i) => -i) });
  return { name, byQuery };
}

const ref = makeRun('bm25', { q1: ['a', 'b', 'c'], q2: ['d', 'e', 'f'] });
const cand = makeRun('dense "v2"', { q1: ['a', 'x', 'b'], q2: ['f', 'e', 'd'] });
const depths = [1, 3, 5];

describe('agreement exports', () => {
  const report = compareRuns(ref, [cand], depths, { perQuery: true });
  const warnings = depthWarnings(
    [ref, cand].map((r) => ({ name: r.name, lengths: listLengths(r) })),
    depths.map((k) => ({ k, label: `depth ${k}` })),
  );

  it('CSV: one row per query and candidate, overlap and RBO at every depth, as the report has them', () => {
    const lines = agreementCsv(report).trimEnd().split('\r\n');
    expect(lines[0]).toBe('qid,candidate,overlap@1,rbo@1,overlap@3,rbo@3,overlap@5,rbo@5');
    expect(lines).toHaveLength(3);
    // q1: top 3 {a,b,c} vs {a,x,b} share 2 → overlap@3 = 2/3; q2 shares all three but in reverse.
    const q1 = lines[1]!.split(',');
    expect(q1.slice(0, 2)).toEqual(['q1', '"dense ""v2"""']);
    expect(Number(q1[4])).toBeCloseTo(2 / 3, 12);
    expect(Number(lines[2]!.split(',')[4])).toBe(1);
    expect(Number(q1[2])).toBe(1); // overlap@1: both rank a first
    const per = report.per_query!.find((q) => q.qid === 'q1')!.candidates[0]!;
    const want = depths.flatMap((_, i) => [per.overlap[i]!, per.rbo[i]!]);
    q1.slice(2).forEach((cell, i) => expect(Number(cell)).toBeCloseTo(want[i]!, 14));
  });

  it('CSV needs per-query values', () => {
    expect(() => agreementCsv(compareRuns(ref, [cand], depths))).toThrow(/per-query/);
  });

  it('JSON carries the warnings as `fliplab compare --json` does', () => {
    const json = JSON.parse(agreementJson(report, warnings)) as { warnings: { requested: number }[] };
    expect(json.warnings.map((w) => w.requested)).toEqual([5, 5]);
  });

  it('report sections: the runs, the CLI table cells per depth, the warnings; no flip sections', () => {
    const sections = buildSections({ title: 't', collection: 'c', date: 'd', agreement: report, depthWarnings: warnings });
    expect(sections.map((s) => s.id)).toEqual(['retrievers', 'agreement']);
    const cli = formatAgreement(report);
    for (const t of sections[1]!.tables) for (const cell of t.rows[0]!.slice(1)) expect(cli).toContain(cell);
    expect(sections[1]!.tables.map((t) => t.header)).toEqual(
      depths.map((k) => ['candidate', `overlap@${k}`, `RBO@${k}`, 'same top-k set']),
    );
    expect(sections[1]!.notes.filter((n) => n.startsWith('Warning: depth 5 exceeds the depth of run'))).toHaveLength(2);
    const md = reportMarkdown({ title: 't', collection: 'c', date: 'd', agreement: report, depthWarnings: warnings });
    expect(md).toMatch(/## Agreement with the reference/);
    expect(md).not.toMatch(/Query-level transitions/);
    const html = reportHtml({ title: 't', collection: 'c', date: 'd', agreement: report });
    expect(html).toContain('dense &quot;v2&quot;');
  });

  it('a report with neither flips nor agreement is refused', () => {
    expect(() => buildSections({ title: 't', collection: 'c', date: 'd' })).toThrow(/flip analysis or an agreement/);
  });
});
