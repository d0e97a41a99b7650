/**
 * The per-query difference plot, the picture of risk IR papers draw: every query's change of one measure
 * (candidate − reference), sorted, one bar each, the queries the candidate broke at k in red and those it
 * fixed in green, built with Observable Plot into one self-contained <svg> that the page shows and exports as
 * SVG/PNG. Takes a `document`, so it also runs under jsdom.
 */
import * as Plot from '@observablehq/plot';
import type { TransitionState } from '../../../core/flips/transitions.ts';
import { asOneImage } from './depth-plot.ts';

/** Red and green dark enough to read as text on white (WCAG AA), the legend being words in those colours. */
export const STATE_COLORS: Readonly<Record<'broken' | 'fixed' | 'other', string>> = {
  broken: '#c62828',
  fixed: '#1b7a34',
  other: '#9498a0',
};

export interface DifferenceBar {
  readonly qid: string;
  readonly diff: number;
  /** The query's transition at k, as the flip report gives it (null: not in the cohort). */
  readonly state: TransitionState | null;
}

/** The bars in plot order: by difference, then by query id (a stable order for ties). */
export function differenceBars(
  queries: readonly string[],
  diffs: readonly number[],
  stateOf: (qid: string) => TransitionState | null,
): DifferenceBar[] {
  return queries
    .map((qid, i) => ({ qid, diff: diffs[i]!, state: stateOf(qid) }))
    .sort((a, b) => a.diff - b.diff || (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0));
}

const colorOf = (s: TransitionState | null): string =>
  s === 'broken' ? STATE_COLORS.broken : s === 'fixed' ? STATE_COLORS.fixed : STATE_COLORS.other;

export function buildDifferencePlot(
  bars: readonly DifferenceBar[],
  options: {
    readonly label: string;
    readonly candidate: string;
    readonly reference: string;
    readonly k: number;
    readonly document?: Document;
    readonly width?: number;
  },
): SVGSVGElement {
  const doc = options.document ?? globalThis.document;
  if (!doc) throw new Error('difference plot: no document to build the SVG in');
  const flip = (s: TransitionState | null) => (s === 'broken' || s === 'fixed' ? ` (${s} at k = ${options.k})` : '');
  const data = bars.map((b, i) => ({
    i: i + 1,
    diff: b.diff,
    fill: colorOf(b.state),
    title: `query ${b.qid}: ${b.diff >= 0 ? '+' : ''}${b.diff.toFixed(4)}${flip(b.state)}`,
  }));
  const svg = Plot.plot({
    document: doc,
    width: options.width ?? 880,
    height: 300,
    marginLeft: 56,
    x: { label: `queries, by difference (${bars.length})`, ticks: [] },
    y: { label: `Δ ${options.label}`, grid: true },
    marks: [
      Plot.ruleY([0], { stroke: 'currentColor', strokeOpacity: 0.6 }),
      Plot.rectY(data, {
        x1: (d: { i: number }) => d.i - 0.5,
        x2: (d: { i: number }) => d.i + 0.5,
        y: 'diff',
        fill: 'fill',
        title: 'title',
      }),
    ],
  }) as SVGSVGElement;
  svg.setAttribute('role', 'img');
  const title = doc.createElementNS('http://www.w3.org/2000/svg', 'title');
  title.textContent = `${options.label}: ${options.candidate} − ${options.reference}, per query, sorted`;
  svg.prepend(title);
  asOneImage(svg);
  return svg;
}
