/**
 * The report's tables as LaTeX (booktabs): the TREC measures, the transitions at every depth, hybrids, strata
 * and paired tests — the same sections and cells as the Markdown and HTML reports (sections.ts), so every
 * number is the one `fliplab flips --json` carries, formatted as the text tables format it. Each table is a
 * `table` float with its caption; `\usepackage{booktabs}` is the only package needed. All text is escaped.
 */
import { escapeLatex } from './escape.ts';
import { buildSections, type ReportInput } from './sections.ts';
import type { Table } from './document.ts';

function latexTable(t: Table, label: string): string {
  const align = t.numeric.map((n) => (n ? 'r' : 'l')).join('');
  const row = (cells: readonly string[]) => `${cells.map(escapeLatex).join(' & ')} \\\\`;
  return [
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${escapeLatex(t.caption)}}`,
    `\\label{tab:${label}}`,
    `\\begin{tabular}{${align}}`,
    '\\toprule',
    row(t.header),
    '\\midrule',
    ...t.rows.map(row),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
  ].join('\n');
}

/** Every table of the report, one float each, with a comment naming the collection and date. */
export function reportLatex(input: ReportInput): string {
  const out = [`% ${input.title}: ${input.collection}, ${input.date} (fliplab). Needs \\usepackage{booktabs}.`.replace(/\n/g, ' ')];
  for (const s of buildSections(input)) {
    s.tables.forEach((t, i) => out.push('', latexTable(t, `fliplab-${s.id}${s.tables.length > 1 ? `-${i + 1}` : ''}`)));
  }
  return `${out.join('\n')}\n`;
}
