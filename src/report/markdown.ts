/**
 * The report as Markdown (GitHub-flavoured tables): title, collection, date, retrievers, TREC measures,
 * the flip table for every depth, hybrids, strata, paired tests, and the plots as image links to the
 * file names the caller gives (it writes those files). All user text is escaped (escape.ts).
 */
import { buildSections, type ReportInput } from './sections.ts';
import type { Table } from './document.ts';
import { escapeMarkdown, markdownUrl } from './escape.ts';

function markdownTable(t: Table): string {
  const row = (cells: readonly string[]) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const rule = `|${t.numeric.map((n) => (n ? ' ---: ' : ' --- ')).join('|')}|`;
  return [`**${escapeMarkdown(t.caption)}**`, '', row(t.header), rule, ...t.rows.map(row)].join('\n');
}

export function reportMarkdown(input: ReportInput): string {
  const out: string[] = [
    `# ${escapeMarkdown(input.title)}`,
    '',
    `- Collection: ${escapeMarkdown(input.collection)}`,
    `- Date: ${escapeMarkdown(input.date)}`,
  ];
  for (const s of buildSections(input)) {
    out.push('', `## ${escapeMarkdown(s.heading)}`);
    for (const note of s.notes) out.push('', escapeMarkdown(note));
    for (const t of s.tables) out.push('', markdownTable(t));
  }
  const plots = input.plots ?? [];
  if (plots.length > 0) {
    out.push('', '## Plots');
    for (const p of plots) out.push('', `![${escapeMarkdown(p.title)}](${markdownUrl(p.file)})`);
  }
  return `${out.join('\n')}\n`;
}
