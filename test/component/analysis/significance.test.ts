/**
 * The paired tests on the page: the measures' table says what W/T/L means in its reading guide and a caption
 * that does not repeat its heading; the track table shows the reference's own Tukey HSD groups, with the letters
 * `fliplab significance --tukey` prints (formatSignificance, the CLI's text) for every run.
 */
import { fireEvent, render, within } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import SignificanceTable from '../../../src/app/views/analysis/SignificanceTable.svelte';
import TrackTable from '../../../src/app/views/analysis/TrackTable.svelte';
import { formatSignificance } from '../../../src/core/stats/format.ts';
import { significance, type SignificanceOptions, type SystemValues } from '../../../src/core/stats/significance.ts';
import type { Track } from '../../../src/app/state/track.svelte.ts';
import { visibleText } from './helpers.ts';
import { FakeTrack } from './track-fake.svelte.ts';

const QUERIES = 40;
/**
 * Four systems on one measure over 40 queries: "ref", "a" and "b" alike (a few hundredths apart, query by query),
 * "c" 0.3 higher everywhere — so Tukey puts c alone and the other three together.
 */
function systems(): SystemValues[] {
  const values = (shift: (q: number) => number): SystemValues['byMeasure'] =>
    new Map([['ndcg_cut_10', new Map(Array.from({ length: QUERIES }, (_, q) => [`q${q}`, 0.3 + ((q * 7) % 10) / 40 + shift(q)]))]]);
  return [
    { name: 'ref', byMeasure: values(() => 0) },
    { name: 'a', byMeasure: values((q) => (q % 3 === 0 ? 0.02 : -0.01)) },
    { name: 'b', byMeasure: values((q) => (q % 4 === 0 ? -0.02 : 0.01)) },
    { name: 'c', byMeasure: values(() => 0.3) },
  ];
}
const OPTIONS: SignificanceOptions = { permutations: 2000, bootstrap: 200, seed: 42, correction: 'holm', riskAlphas: [1], tukey: true };

/** Each system's group letters as the CLI's text lists them ("  a: ref, a, b"). */
function cliLetters(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const groups = text.slice(text.indexOf('groups the test cannot tell apart'));
  for (const [, letter, names] of groups.matchAll(/^ {2}([a-z]): (.+)$/gm))
    for (const name of names!.split(', ')) out[name] = (out[name] ?? '') + letter!;
  return out;
}

describe('paired tests of the measures', () => {
  const [ref, ...candidates] = systems();
  const report = significance(ref!, candidates, ['ndcg_cut_10'], { ...OPTIONS, tukey: false });

  test('the reading guide says what W/T/L counts; the caption adds to the heading, not repeats it', () => {
    const { container } = render(SignificanceTable, { significance: report });
    const guide = within(container).getByTestId('guide-wtl');
    expect(visibleText(guide)).toMatch(/^W\/T\/L: wins, ties and losses against ref, query by query/);
    const caption = visibleText(container.querySelector('caption')!);
    expect(caption).not.toMatch(/Is the difference real/);
    expect(caption).toMatch(/each candidate against ref, paired query by query/);
    // One row per candidate under each measure's row group, the candidate first (it stays in view on a phone).
    const row = container.querySelector('tr[data-candidate="c"]')!;
    expect(row.firstElementChild?.textContent).toBe('c');
    expect(container.querySelector('th[scope="rowgroup"]')?.textContent).toBe('nDCG@10');
  });
});

describe('the tests shown and the power', () => {
  const [ref, ...candidates] = systems();
  const report = significance(ref!, candidates, ['ndcg_cut_10'], { ...OPTIONS, tukey: false });
  const columns = (container: HTMLElement) =>
    [...container.querySelectorAll('thead th[data-test]')].map((th) => th.getAttribute('data-test'));

  test('t and randomization by default; Wilcoxon and sign on request, with the rows’ adjusted p', async () => {
    const { container } = render(SignificanceTable, { significance: report });
    expect(columns(container)).toEqual(['t', 'rand']);
    const chooser = within(container).getByTestId('significance-tests');
    await fireEvent.click(within(chooser).getByLabelText('Wilcoxon'));
    await fireEvent.click(within(chooser).getByLabelText('sign'));
    await fireEvent.click(within(chooser).getByLabelText('t'));
    expect(columns(container)).toEqual(['rand', 'wilcoxon', 'sign']);
    const row = report.rows.find((r) => r.candidate === 'a')!;
    const cell = (test: string) => container.querySelector(`tr[data-candidate="a"] td[data-test="${test}"]`)!.textContent;
    expect(cell('wilcoxon')).toBe(row.p_wilcoxon_adjusted!.toFixed(4));
  });

  test('a candidate better on every query reads "≤" at the randomization floor, raw and adjusted', () => {
    const row = report.rows.find((r) => r.candidate === 'c')!;
    expect(row.p_randomization).toBe(1 / 2001);
    const { container } = render(SignificanceTable, { significance: report });
    const text = container.querySelector('tr[data-candidate="c"] td[data-test="rand"]')!.textContent!;
    expect(text).toBe(`≤ ${row.p_randomization_adjusted.toFixed(4)}`);
    expect(row.p_randomization_adjusted).toBeGreaterThanOrEqual(3 / 2001 - 1e-15); // Holm over 3 tests
  });

  test('says per candidate what the collection could have seen, from the rows’ power numbers', () => {
    const { container } = render(SignificanceTable, { significance: report });
    const power = within(container).getByTestId('significance-power');
    const a = report.rows.find((r) => r.candidate === 'a')!;
    const line = visibleText(power.querySelector('li[data-candidate="a"]')!);
    expect(line).toMatch(
      new RegExp(`^a: With 40 queries this collection detects a change of nDCG@10 ≥ ${a.mde!.toFixed(3)} with 80% power`),
    );
    for (const [delta, n] of Object.entries(a.n_needed)) {
      expect(line).toContain(
        n! <= 40 ? `a change of ${delta} is within its reach` : `to detect ${delta} you would need ${n!.toLocaleString('en-US')} queries`,
      );
    }
  });
});

describe('track table', () => {
  test("shows the reference's Tukey HSD group beside every run's, with the CLI's letters", () => {
    const [ref, ...candidates] = systems();
    const tests = significance(ref!, candidates, ['ndcg_cut_10'], OPTIONS);
    const expected = cliLetters(formatSignificance(tests));
    expect(Object.keys(expected).sort()).toEqual(['a', 'b', 'c', 'ref']);
    // The fixture separates c from the rest, so the reference's letter tells something.
    expect(expected['ref']).not.toBe(expected['c']);

    const track = new FakeTrack({ measure: 'ndcg_cut_10', significance: tests, flips: [] }) as unknown as Track;
    const { container } = render(TrackTable, { track, reference: 'ref', k: 10, onpick: () => {} });
    const reference = within(container).getByTestId('track-reference');
    expect(visibleText(reference.querySelector('th')!)).toBe('ref (reference)');
    expect(within(container).getByTestId('track-reference-group').textContent).toBe(expected['ref']);
    for (const run of ['a', 'b', 'c']) {
      const cells = container.querySelectorAll(`tr[data-run="${run}"] td`);
      expect(cells[10]?.textContent, run).toBe(expected[run]);
    }
    expect(visibleText(container.querySelector('caption')!)).toMatch(/^nDCG@10 of 3 runs against ref, flips at k = 10\./);
  });
});
