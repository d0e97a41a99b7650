/**
 * ExportPanel: every file it offers is exactly what the shared exporters (src/report, the CLI's) make of
 * the lab's report — checked by catching the download (object URL + `<a download>` click) and comparing
 * the blob's text with the exporter's output for a report built by the real core.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import ExportPanel from '../../../src/app/views/shell/ExportPanel.svelte';
import type { FlipReport } from '../../../src/core/flips/analyze.ts';
import { flipReportJson, perQueryCsv, perQueryJson } from '../../../src/report/index.ts';
import type { RetrieverInfo } from '../../../src/app/types.ts';
import { mainReport } from '../analysis/fixtures.ts';
import { asLab, FakeLab, summary } from './fakes.svelte.ts';

interface Saved {
  readonly name: string;
  readonly type: string;
  readonly text: Promise<string>;
}

let saved: Saved[] = [];
beforeEach(() => {
  saved = [];
  const blobs = new Map<string, Blob>();
  URL.createObjectURL = vi.fn((b: Blob) => {
    const url = `blob:test/${blobs.size + 1}`;
    blobs.set(url, b);
    return url;
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const blob = blobs.get(this.href)!;
    saved.push({ name: this.download, type: blob.type, text: blob.text() });
  });
});
afterEach(() => vi.restoreAllMocks());

const ready = (id: string): RetrieverInfo => ({ id, name: id, kind: 'dense', status: 'ready' });

function setup(report: FlipReport | null = mainReport({ perQuery: true })) {
  const lab = new FakeLab();
  lab.collection = summary({ name: 'SciFact' });
  lab.report = report;
  lab.retrievers = [ready('BM25'), ready('BGE'), ready('E5'), { id: 'splade', name: 'splade', kind: 'sparse', status: 'encoding' }];
  const r = render(ExportPanel, { lab: asLab(lab) });
  return { ...r, lab, report };
}

async function only(): Promise<{ name: string; type: string; text: string }> {
  await waitFor(() => expect(saved).toHaveLength(1));
  const s = saved[0]!;
  return { name: s.name, type: s.type, text: await s.text };
}

describe('ExportPanel', () => {
  test('nothing to export before a collection is open', () => {
    render(ExportPanel, { lab: asLab(new FakeLab()) });
    expect(screen.getByText('Nothing to export yet.')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  const EXACT = [
    { testId: 'export-report-json', name: 'SciFact-flips.json', type: 'application/json', exporter: flipReportJson },
    { testId: 'export-per-query-csv', name: 'SciFact-per-query.csv', type: 'text/csv', exporter: perQueryCsv },
    { testId: 'export-per-query-json', name: 'SciFact-per-query.json', type: 'application/json', exporter: perQueryJson },
  ] as const;
  test.each(EXACT)('$testId downloads exactly $exporter.name(report) as $name', async ({ testId, name, type, exporter }) => {
    const { report } = setup();
    await fireEvent.click(screen.getByTestId(testId));
    expect(await only()).toEqual({ name, type, text: exporter(report!) });
  });

  test('the downloaded JSON and CSV hold the whole report', async () => {
    const { report } = setup();
    await fireEvent.click(screen.getByTestId('export-report-json'));
    expect((JSON.parse((await only()).text) as FlipReport).depths.map((d) => d.k)).toEqual([1, 5, 10, 20, 50]);
    saved = [];
    await fireEvent.click(screen.getByTestId('export-per-query-csv'));
    // One line per query and candidate, plus the header.
    const candidates = report!.runs.filter((r) => r.role === 'candidate').length;
    expect((await only()).text.trimEnd().split(/\r?\n/)).toHaveLength(report!.per_query!.length * candidates + 1);
  });

  test('Markdown and HTML reports name the runs and the collection', async () => {
    setup();
    await fireEvent.click(screen.getByTestId('export-markdown'));
    const md = await only();
    expect(md.name).toBe('SciFact-report.md');
    expect(md.text.split('\n')[0]).toBe('# fliplab: BM25 vs BGE, E5');
    expect(md.text).toContain('SciFact (test)');
    saved = [];
    await fireEvent.click(screen.getByTestId('export-html'));
    const html = await only();
    expect(html.name).toBe('SciFact-report.html');
    expect(html.type).toBe('text/html');
    expect(html.text).toContain('fliplab: BM25 vs BGE, E5');
    expect(html.text).toContain('<svg');
  });

  test('without a report the flip exports are disabled', () => {
    setup(null);
    const fieldset = screen.getByTestId('export-report-json').closest('fieldset')!;
    expect(fieldset.disabled).toBe(true);
  });

  test('TREC run and trec_eval text come from the lab worker for the chosen ready run', async () => {
    const { lab } = setup();
    lab.lab.runText.mockImplementation((name) => Promise.resolve(`q1 Q0 d1 1 1.000000 ${name}\n`));
    lab.lab.trecEval.mockImplementation((name) => Promise.resolve(`map\tall\t0.5000\n# ${name}\n`));
    const select = screen.getByTestId('export-run-select') as HTMLSelectElement;
    // Only ready runs are offered.
    expect([...select.options].map((o) => o.value)).toEqual(['BM25', 'BGE', 'E5']);
    await fireEvent.click(screen.getByTestId('export-run'));
    expect(lab.lab.runText).toHaveBeenCalledWith('BM25');
    expect(await only()).toEqual({ name: 'BM25.trec', type: 'text/plain', text: 'q1 Q0 d1 1 1.000000 BM25\n' });

    saved = [];
    await fireEvent.change(select, { target: { value: 'E5' } });
    await fireEvent.click(screen.getByTestId('export-trec-eval'));
    expect(lab.lab.trecEval).toHaveBeenCalledWith('E5', 1);
    expect(await only()).toEqual({ name: 'E5.trec_eval.txt', type: 'text/plain', text: 'map\tall\t0.5000\n# E5\n' });
  });

  test('a failed export is an alert, and nothing is downloaded', async () => {
    const { lab } = setup();
    lab.lab.runText.mockRejectedValue(new Error('no run named BM25'));
    await fireEvent.click(screen.getByTestId('export-run'));
    expect((await screen.findByRole('alert')).textContent).toBe('no run named BM25');
    expect(saved).toHaveLength(0);
  });
});
