/**
 * Exports shared by the lab and the CLI: pure functions from analysis results to file contents (no DOM,
 * no Node API). The app hands the strings to src/app/download.ts; `fliplab flips --json/--csv/--report`
 * writes the very same strings, so the numbers agree everywhere.
 */
export { flipReportJson } from './json.ts';
export { agreementCsv, agreementJson, agreementSections } from './agreement.ts';
export { perQueryCsv, perQueryCsvHeader, perQueryJson, perQueryObject, type PerQueryJson } from './per-query.ts';
export { runText, formatRunLines } from './runs.ts';
export { evaluateRun, labMetricsRow, trecEvalName, trecEvalResultText, trecEvalText, type TrecEvalOptions } from './metrics.ts';
export { buildSections, type ReportInput, type ReportPlot } from './sections.ts';
export type { Section, Table } from './document.ts';
export { reportMarkdown } from './markdown.ts';
export { reportLatex } from './latex.ts';
export { checkedSvg, reportHtml } from './html.ts';
export { csvField, toCsv, type CsvCell } from './csv.ts';
export { escapeHtml, escapeLatex, escapeMarkdown } from './escape.ts';
