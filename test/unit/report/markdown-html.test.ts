import { describe, expect, it } from 'vitest';
import { analyzeFlips } from '../../../src/core/flips/index.ts';
import { buildSections, type ReportInput } from '../../../src/report/sections.ts';
import { reportHtml } from '../../../src/report/html.ts';
import { reportMarkdown } from '../../../src/report/markdown.ts';
import { labMetricsRow } from '../../../src/report/metrics.ts';
import { syntheticCase } from './fixtures.ts';

const EVIL = '<script>alert("x")</script>|a*b_c`[l](http://e.example)';
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="steelblue"/><text x="1" y="9">a &lt; b</text></svg>';

function input(): ReportInput {
  const c = syntheticCase(5, [EVIL, 'dense']);
  const report = analyzeFlips(c.qrels, c.reference, c.candidates, { depths: [1, 5, 10] });
  return {
    title: 'Report <i>of</i> things',
    collection: 'scifact & <friends>',
    date: '2025-01-31',
    report,
    metrics: [c.reference, ...c.candidates].map((r) => labMetricsRow(c.qrels, r)),
    descriptions: { dense: 'bge-small' },
    plots: [{ title: 'Negative-flip rate by depth', svg: SVG, file: 'nfr by depth.svg' }],
  };
}

/** Cells of a Markdown table row, honouring backslash-escaped pipes. */
const cells = (line: string) => line.slice(1, -1).split(/(?<!\\)\|/);

describe('HTML report', () => {
  const html = reportHtml(input());

  it('escapes every piece of user text', () => {
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('<title>Report &lt;i&gt;of&lt;/i&gt; things</title>');
    expect(html).toContain('scifact &amp; &lt;friends&gt;');
    expect(html).not.toContain('<i>');
  });

  it('embeds the given SVG inline and is self-contained', () => {
    expect(html).toContain(SVG);
    expect(html).not.toMatch(/<script|<link|<img|\s(?:src|href)=|@import/i);
    // URLs only as text: the SVG namespace name (an identifier, never fetched) and the escaped run name.
    expect(new Set(html.match(/https?:\/\/[^\s"'<)]+/g))).toEqual(new Set(['http://www.w3.org/2000/svg', 'http://e.example']));
    expect(html).toContain('<style>');
  });

  it('has every table with column and row headers', () => {
    const sections = buildSections(input());
    const tables = sections.flatMap((s) => s.tables);
    expect((html.match(/<table>/g) ?? []).length).toBe(tables.length);
    expect(html).toContain('<th scope="col" class="num">MAP</th>');
    for (const k of [1, 5, 10]) expect(html).toContain(`k = ${k}: reference supports`);
  });

  it('refuses an SVG that could run code or fetch', () => {
    for (const svg of [
      '<svg><script>alert(1)</script></svg>',
      '<svg onload="alert(1)"></svg>',
      '<svg><image href="https://example.com/x.png"/></svg>',
      '<svg><style>@import "x.css";</style></svg>',
      '<svg><rect style="fill:url(https://e.example/#a)"/></svg>',
      '<div>not svg</div>',
    ]) {
      expect(() => reportHtml({ ...input(), plots: [{ title: 'p', svg, file: 'p.svg' }] }), svg).toThrow(/plot "p"/);
    }
    // Internal references (Plot's clip paths) are fine.
    expect(() =>
      reportHtml({ ...input(), plots: [{ title: 'p', svg: '<svg><rect clip-path="url(#c1)"/><use href="#c1"/></svg>', file: 'p.svg' }] }),
    ).not.toThrow();
  });
});

describe('Markdown report', () => {
  const md = reportMarkdown(input());
  const lines = md.split('\n');

  it('every table row has the column count of its header', () => {
    const sections = buildSections(input());
    const tables = sections.flatMap((s) => s.tables);
    let found = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith('| ') || lines[i - 1]?.startsWith('|')) continue;
      const t = tables[found++]!;
      expect(cells(lines[i]!).length).toBe(t.header.length);
      expect(cells(lines[i + 1]!).length).toBe(t.header.length);
      let r = 0;
      for (let j = i + 2; lines[j]?.startsWith('|'); j++, r++) expect(cells(lines[j]!).length, lines[j]).toBe(t.header.length);
      expect(r).toBe(t.rows.length);
    }
    expect(found).toBe(tables.length);
  });

  it('escapes user text and references plots by file name', () => {
    expect(md).not.toContain('<script');
    expect(md).toContain('&lt;script&gt;alert("x")&lt;/script&gt;\\|a\\*b\\_c\\`[l\\](http://e.example)');
    expect(md).toContain('![Negative-flip rate by depth](nfr%20by%20depth.svg)');
    expect(md).not.toContain('<svg');
    expect(md).toContain('- Date: 2025-01-31');
    expect(md).toContain('- Collection: scifact &amp; &lt;friends&gt;');
  });

  it('numbers match the HTML report cell for cell', () => {
    const html = reportHtml(input());
    const nfr = buildSections(input()).find((s) => s.id === 'transitions')!.tables[1]!.rows[1]![7]!;
    expect(md).toContain(` ${nfr} `);
    expect(html).toContain(`>${nfr}<`);
  });
});

describe('answer-level flips in the reports', () => {
  it('adds Table 9 after the transitions when the lab has answers, the run name escaped, rates with intervals', async () => {
    const { answerFlipReport } = await import('../../../src/core/answers/flips.ts');
    const ids = ['q1', 'q2', 'q3', 'q4'];
    const answers = answerFlipReport({
      k: 10,
      seed: 1,
      queries: ids as never,
      reference: { name: 'bm25', ranks: Int32Array.of(1, 1, 1, 1), answers: new Map(ids.map((q) => [q, true])) },
      candidates: [{ name: EVIL, ranks: Int32Array.of(50, 1, 50, 1), answers: new Map(ids.map((q, i) => [q, i % 2 === 1])) }],
      gold: new Set(ids),
    });
    const sections = buildSections({ ...input(), answers });
    const ids_ = sections.map((s) => s.id);
    expect(ids_.indexOf('answers')).toBe(ids_.indexOf('transitions') + 1);
    const row = sections.find((s) => s.id === 'answers')!.tables[0]!.rows[0]!;
    expect(row.slice(0, 4)).toEqual([EVIL, '2', '2', '2/2 (100.0%, 34.2–100.0)']);
    expect(reportHtml({ ...input(), answers })).not.toContain('<script');
    expect(reportMarkdown({ ...input(), answers })).toMatch(/## Answer-level flips/);
    expect(buildSections(input()).some((s) => s.id === 'answers')).toBe(false);
  });
});

describe('the trec_eval release a report names', () => {
  const c = syntheticCase(5, ['dense']);
  const report = analyzeFlips(c.qrels, c.reference, c.candidates, { depths: [1, 5, 10] });
  const runs = [c.reference, ...c.candidates];
  const written = (version?: '10.0' | '9.0.8') => {
    const input: ReportInput = {
      title: 'r',
      collection: 'c',
      date: 'd',
      report,
      metrics: runs.map((r) => labMetricsRow(c.qrels, r, version === undefined ? {} : { version })),
    };
    return { md: reportMarkdown(input), html: reportHtml(input) };
  };

  it('is 10.0 for rows computed with the default (the lab and the CLI), in Markdown and HTML', () => {
    // Markdown escapes the underscore.
    for (const text of Object.values(written())) {
      expect(text).toMatch(/trec\\?_eval 10\.0 values \(averaged over the judged queries/);
      expect(text).not.toContain('9.0.8');
    }
  });

  it('is 9.0.8 for rows computed under 9.0.8', () => {
    for (const text of Object.values(written('9.0.8'))) {
      expect(text).toMatch(/trec\\?_eval 9\.0\.8 values \(averaged over the judged queries/);
      expect(text).not.toMatch(/trec\\?_eval 10\.0/);
    }
  });

  it("rows of two releases: both named, each run's after its name", () => {
    const metrics = [labMetricsRow(c.qrels, c.reference, { version: '9.0.8' }), labMetricsRow(c.qrels, c.candidates[0]!)];
    const sections = buildSections({ title: 'r', collection: 'c', date: 'd', report, metrics });
    const measures = sections.find((s) => s.id === 'measures')!;
    expect(measures.notes[0]).toMatch(/^trec_eval 9\.0\.8 and 10\.0 values \(each run's release after its name\)/);
    expect(measures.tables[0]!.rows.map((r) => r[0])).toEqual(['reference [trec_eval 9.0.8]', 'dense [trec_eval 10.0]']);
  });
});
