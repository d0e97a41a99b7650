/**
 * ExportPanel: catches each download (object URL + `<a download>` click) and reads the file as a user's
 * tool would (JSON.parse, a CSV parser), checking it against what the fixture's runs say by the paper's
 * literal definition — not against the exporters that wrote it. That the files equal the CLI's output on the
 * same runs is the app e2e's check.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import ExportPanel from '../../../src/app/views/shell/ExportPanel.svelte';
import Papa from 'papaparse';
import type { FlipReport, PerQueryRow } from '../../../src/core/flips/analyze.ts';
import type { RetrieverInfo } from '../../../src/app/types.ts';
import { BGE_RANKS, E5_RANKS, mainReport, REFERENCE_RANKS } from '../analysis/fixtures.ts';
import { asLab, FakeLab, summary } from './fakes.svelte.ts';
import { importedRecipe, recipeObject } from '../../../src/report/recipe.ts';

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

const ready = (id: string): RetrieverInfo => ({
  id,
  name: id,
  kind: 'dense',
  status: 'ready',
  recipe: importedRecipe(`${id}.trec`, 50, 12),
});

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

  // What the files must say, computed here from the fixture's inputs (the rank of each query's one positive in
  // each run), not by the exporters: a query is supported at k when its positive is within the top k.
  const RANKS = { BM25: REFERENCE_RANKS, BGE: BGE_RANKS, E5: E5_RANKS } as const;
  const DEPTHS = [1, 5, 10, 20, 50];
  const within = (rank: number | null, k: number) => rank !== null && rank <= k && rank <= 50;
  function literalStates(candidate: 'BGE' | 'E5', i: number): string[] {
    return DEPTHS.map((k) => {
      const B = within(RANKS.BM25[i]!, k);
      const D = within(RANKS[candidate][i]!, k);
      return B && D ? 'preserved' : B ? 'broken' : D ? 'fixed' : 'unchanged';
    });
  }
  const rankCell = (rank: number | null) => (rank === null || rank > 50 ? '' : String(rank));

  test('the flip report JSON is the lab’s whole report, with the counts of the literal definition', async () => {
    const { report, lab: fake } = setup();
    await fireEvent.click(screen.getByTestId('export-report-json'));
    const file = await only();
    expect([file.name, file.type]).toEqual(['SciFact-flips.json', 'application/json']);
    const parsed = JSON.parse(file.text) as FlipReport & { recipes: Record<string, Record<string, string>> };
    // The app names no depth beyond its 1000-deep runs; every run with a recipe is described.
    const { recipes, ...rest } = parsed;
    expect(rest).toEqual({ ...report, warnings: [] });
    expect(recipes).toEqual(Object.fromEntries(fake.retrievers.filter((r) => r.recipe).map((r) => [r.name, recipeObject(r.recipe!)])));
    expect(parsed.depth_list).toEqual(DEPTHS);
    DEPTHS.forEach((k, d) => {
      for (const [j, name] of (['BGE', 'E5'] as const).entries()) {
        const states = REFERENCE_RANKS.map((_, i) => literalStates(name, i)[d]);
        const row = parsed.depths[d]!.candidates[j]!;
        expect(row.name).toBe(name);
        expect([row.preserved, row.broken, row.fixed, row.unchanged]).toEqual(
          ['preserved', 'broken', 'fixed', 'unchanged'].map((st) => states.filter((x) => x === st).length),
        );
      }
    });
  });

  test('the per-query CSV has one row per query and candidate: ranks and the state at every depth', async () => {
    const { lab } = setup();
    await fireEvent.click(screen.getByTestId('export-per-query-csv'));
    const file = await only();
    expect([file.name, file.type]).toEqual(['SciFact-per-query.csv', 'text/csv']);
    const { data, errors } = Papa.parse<string[]>(file.text.trimEnd());
    expect(errors).toEqual([]);
    expect(data[0]).toEqual([
      'qid',
      'reference',
      'candidate',
      'reference_rank',
      'candidate_rank',
      ...DEPTHS.map((k) => `state@${k}`),
      ...DEPTHS.map((k) => `reference_unjudged@${k}`),
      ...DEPTHS.map((k) => `candidate_unjudged@${k}`),
    ]);
    const want = REFERENCE_RANKS.flatMap((ref, i) =>
      (['BGE', 'E5'] as const).map((c) => [`q${i + 1}`, 'BM25', c, rankCell(ref), rankCell(RANKS[c][i]!), ...literalStates(c, i)]),
    );
    const fixed = 5 + DEPTHS.length;
    expect(data.slice(1).map((r) => r.slice(0, fixed))).toEqual(want);
    // Then each run's unjudged passages in its top k, as the report counts them.
    const unjudged = lab.report!.per_query!.flatMap((q) => q.candidates.map((c) => [...q.reference_unjudged, ...c.unjudged].map(String)));
    expect(data.slice(1).map((r) => r.slice(fixed))).toEqual(unjudged);
  });

  test('the per-query JSON says how to read it and holds the same states', async () => {
    setup();
    await fireEvent.click(screen.getByTestId('export-per-query-json'));
    const file = await only();
    expect([file.name, file.type]).toEqual(['SciFact-per-query.json', 'application/json']);
    const parsed = JSON.parse(file.text) as {
      reference: string;
      candidates: string[];
      label: string;
      depth_list: number[];
      per_query: PerQueryRow[];
    };
    expect(parsed).toMatchObject({ reference: 'BM25', candidates: ['BGE', 'E5'], label: 'any', depth_list: DEPTHS });
    expect(parsed.per_query.map((q) => [q.qid, q.candidates.map((c) => c.states)])).toEqual(
      REFERENCE_RANKS.map((_, i) => [`q${i + 1}`, [literalStates('BGE', i), literalStates('E5', i)]]),
    );
  });

  test('Markdown and HTML reports name the runs and the collection', async () => {
    setup();
    await fireEvent.click(screen.getByTestId('export-markdown'));
    const md = await only();
    expect(md.name).toBe('SciFact-report.md');
    expect(md.text.split('\n')[0]).toBe('# fliplab: BM25 vs BGE, E5');
    expect(md.text).toContain('SciFact (test)');
    // The runs table's description column carries each run's recipe, never empty.
    for (const run of ['BM25', 'BGE', 'E5']) expect(md.text).toContain(`| ${run} | `);
    for (const run of ['BM25', 'BGE', 'E5']) expect(md.text).toContain(`imported TREC run · file ${run}.trec · lines 50 · queries 12`);
    saved = [];
    await fireEvent.click(screen.getByTestId('export-html'));
    const html = await only();
    expect(html.name).toBe('SciFact-report.html');
    expect(html.type).toBe('text/html');
    expect(html.text).toContain('fliplab: BM25 vs BGE, E5');
    expect(html.text).toContain('<svg');
    saved = [];
    await fireEvent.click(screen.getByTestId('export-latex'));
    const tex = await only();
    expect(tex.name).toBe('SciFact-tables.tex');
    expect(tex.text).toContain('\\begin{tabular}');
    // Each depth's table carries every candidate's broken count as the report has it.
    const report = mainReport({ perQuery: true });
    for (const block of report.depths) {
      const table = tex.text.split('\\caption{').find((t) => t.startsWith(`k = ${block.k}:`))!;
      for (const c of block.candidates)
        expect(table).toMatch(new RegExp(`\\n${c.name} & ${c.supported} & ${c.preserved} & ${c.broken} & ${c.fixed} & `));
    }
  });

  test('without a report the flip exports are disabled, and say why', () => {
    setup(null);
    const fieldset = screen.getByTestId('export-report-json').closest('fieldset')!;
    expect(fieldset.disabled).toBe(true);
    const why = document.getElementById(fieldset.getAttribute('aria-describedby')!)!;
    expect(why.textContent).toMatch(/Pick a reference and at least one candidate/);
  });

  test('TREC run and trec_eval text come from the lab worker for the chosen ready run', async () => {
    const { lab } = setup();
    lab.runText.mockImplementation((name) => Promise.resolve(`q1 Q0 d1 1 1.000000 ${name}\n`));
    lab.trecEvalText.mockImplementation((name) => Promise.resolve(`map\tall\t0.5000\n# ${name}\n`));
    const select = screen.getByTestId('export-run-select') as HTMLSelectElement;
    // Only ready runs are offered, and the select shows the one an export would use (never blank).
    expect([...select.options].map((o) => o.value)).toEqual(['BM25', 'BGE', 'E5']);
    expect(select.value).toBe('BM25');
    expect(select.selectedIndex).toBe(0);
    await fireEvent.click(screen.getByTestId('export-run'));
    expect(lab.runText).toHaveBeenCalledWith('BM25');
    expect(await only()).toEqual({ name: 'BM25.trec', type: 'text/plain', text: 'q1 Q0 d1 1 1.000000 BM25\n' });

    saved = [];
    await fireEvent.change(select, { target: { value: 'E5' } });
    await fireEvent.click(screen.getByTestId('export-trec-eval'));
    expect(lab.trecEvalText).toHaveBeenCalledWith('E5');
    expect(await only()).toEqual({ name: 'E5.trec_eval.txt', type: 'text/plain', text: 'map\tall\t0.5000\n# E5\n' });
  });

  test('a failed export is an alert, and nothing is downloaded', async () => {
    const { lab } = setup();
    lab.runText.mockRejectedValue(new Error('no run named BM25'));
    await fireEvent.click(screen.getByTestId('export-run'));
    expect((await screen.findByRole('alert')).textContent).toBe('no run named BM25');
    expect(saved).toHaveLength(0);
  });
});
