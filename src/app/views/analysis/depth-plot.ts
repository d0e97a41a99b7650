/**
 * The depth plot (RAGFlip Figure 1): negative-flip rate and net gain against the depth k, one line per
 * candidate with its 95% interval as a band, built with Observable Plot into one self-contained <svg>
 * (two panels and a legend) so the same picture can be shown, exported as SVG/PNG, and embedded in the
 * HTML report (`depthPlotSvg`). Everything takes a `document`, so it also runs under jsdom in Node.
 */
import * as Plot from '@observablehq/plot';
import { candidateNames, referenceName, type FlipReport } from '../../../core/flips/analyze.ts';
import { formatNetGain, formatRate } from './format.ts';
import { serializeSvg } from './plot-export.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Observable's ten categorical colours (Plot's "observable10"), cycled when there are more candidates. */
export const CANDIDATE_COLORS: readonly string[] = [
  '#4269d0',
  '#efb118',
  '#ff725c',
  '#6cc5b0',
  '#3ca951',
  '#ff8ab7',
  '#a463f2',
  '#97bbf5',
  '#9c6b4e',
  '#9498a0',
];

export interface DepthPlotOptions {
  /** Document to build the elements in (default: the global one). */
  readonly document?: Document;
  /** Total width in pixels (two panels side by side, or each the full width when stacked); default 880. */
  readonly width?: number;
  /** The net-gain panel under the negative-flip-rate panel instead of beside it (narrow screens): text stays legible. */
  readonly stacked?: boolean;
  /** Height of each panel in pixels; default 300. */
  readonly height?: number;
  /** Candidate names whose runs are partial: drawn dashed and marked in the legend. */
  readonly partial?: readonly string[];
}

export type DepthMetric = 'negative_flip_rate' | 'net_gain';

/** One point of one candidate's series; value/lo/hi are null where the quantity is undefined. */
export interface DepthPoint {
  readonly candidate: string;
  readonly k: number;
  readonly metric: DepthMetric;
  readonly value: number | null;
  readonly lo: number | null;
  readonly hi: number | null;
  readonly partial: boolean;
  /** Hover text ("BGE, k = 10: 5.2% [3.1, 7.0]"). */
  readonly title: string;
}

/** Candidate names in report order. */

/** The plotted points: one per depth × candidate × metric. */
export function depthPlotPoints(report: FlipReport, partial: readonly string[] = []): DepthPoint[] {
  const points: DepthPoint[] = [];
  for (const block of report.depths) {
    for (const c of block.candidates) {
      const isPartial = partial.includes(c.name);
      const suffix = isPartial ? ' (partial)' : '';
      const nfr = c.negative_flip_rate;
      points.push({
        candidate: c.name,
        k: block.k,
        metric: 'negative_flip_rate',
        value: nfr.value,
        lo: nfr.lo,
        hi: nfr.hi,
        partial: isPartial,
        title:
          `${c.name}${suffix}, k = ${block.k}: negative-flip rate ` +
          `${nfr.value === null ? 'undefined (the reference supports no query)' : formatRate(nfr)}`,
      });
      const ng = c.net_gain;
      points.push({
        candidate: c.name,
        k: block.k,
        metric: 'net_gain',
        value: ng.value,
        lo: ng.lo,
        hi: ng.hi,
        partial: isPartial,
        title: `${c.name}${suffix}, k = ${block.k}: net gain ${formatNetGain(ng)}`,
      });
    }
  }
  return points;
}

function panel(
  points: readonly DepthPoint[],
  metric: DepthMetric,
  report: FlipReport,
  names: readonly string[],
  doc: Document,
  width: number,
  height: number,
): SVGSVGElement {
  const data = points.filter((p) => p.metric === metric);
  const solid = data.filter((p) => !p.partial);
  const dashed = data.filter((p) => p.partial);
  const isRate = metric === 'negative_flip_rate';
  const line = (rows: readonly DepthPoint[], dash: string | undefined) =>
    Plot.lineY(rows, {
      x: 'k',
      y: 'value',
      z: 'candidate',
      stroke: 'candidate',
      strokeWidth: 2,
      ...(dash === undefined ? {} : { strokeDasharray: dash }),
    });
  const el = Plot.plot({
    document: doc,
    width,
    height,
    marginLeft: 56,
    marginTop: 28,
    style: { fontFamily: 'system-ui, sans-serif', fontSize: '11px', background: 'transparent' },
    x: { type: 'point', domain: report.depth_list, label: 'depth k', padding: 0.3 },
    y: isRate ? { label: 'negative-flip rate (%)', percent: true, grid: true, zero: true } : { label: 'net gain (queries)', grid: true },
    color: { type: 'ordinal', domain: [...names], range: names.map((_, i) => CANDIDATE_COLORS[i % CANDIDATE_COLORS.length]!) },
    marks: [
      ...(isRate ? [] : [Plot.ruleY([0], { stroke: 'currentColor', strokeOpacity: 0.5 })]),
      Plot.areaY(data, { x: 'k', y1: 'lo', y2: 'hi', z: 'candidate', fill: 'candidate', fillOpacity: 0.15 }),
      line(solid, undefined),
      ...(dashed.length > 0 ? [line(dashed, '6 4')] : []),
      Plot.dot(data, { x: 'k', y: 'value', fill: 'candidate', r: 3, title: 'title' }),
    ],
  });
  if (el.tagName.toLowerCase() !== 'svg') {
    throw new Error('depth plot: expected Plot to return an <svg> (no legend or caption was asked for)');
  }
  return el as unknown as SVGSVGElement;
}

function svgEl<K extends keyof SVGElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = doc.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) e.setAttribute(name, String(value));
  return e;
}

/**
 * Builds the whole figure as one standalone <svg>: a legend row, then the negative-flip-rate panel and the
 * net-gain panel side by side (or one under the other with `stacked`). Each panel carries `data-panel="negative_flip_rate" | "net_gain"`.
 */
export function buildDepthPlot(report: FlipReport, options: DepthPlotOptions = {}): SVGSVGElement {
  const doc = options.document ?? globalThis.document;
  if (!doc) throw new Error('depth plot: no document to build the SVG in (pass options.document, e.g. from jsdom)');
  const width = options.width ?? 880;
  const height = options.height ?? 300;
  const partial = options.partial ?? [];
  const names = candidateNames(report);
  const points = depthPlotPoints(report, partial);
  const stacked = options.stacked ?? false;
  const panelWidth = stacked ? width : Math.floor(width / 2);

  // Legend: swatch + name per candidate, wrapped onto rows by an estimated text width.
  const legend = svgEl(doc, 'g', { 'data-part': 'legend', 'font-family': 'system-ui, sans-serif', 'font-size': 12 });
  let x = 8;
  let y = 16;
  names.forEach((name, i) => {
    const label = partial.includes(name) ? `${name} (partial)` : name;
    const itemWidth = 26 + 7 * label.length + 18;
    if (x > 8 && x + itemWidth > width) {
      x = 8;
      y += 20;
    }
    const color = CANDIDATE_COLORS[i % CANDIDATE_COLORS.length]!;
    const item = svgEl(doc, 'g', { transform: `translate(${x},${y})` });
    item.append(
      svgEl(doc, 'line', {
        x1: 0,
        y1: -4,
        x2: 20,
        y2: -4,
        stroke: color,
        'stroke-width': 3,
        ...(partial.includes(name) ? { 'stroke-dasharray': '6 4' } : {}),
      }),
    );
    const text = svgEl(doc, 'text', { x: 26, y: 0, fill: 'currentColor' });
    text.textContent = label;
    item.append(text);
    legend.append(item);
    x += itemWidth;
  });
  const legendHeight = names.length === 0 ? 0 : y + 12;

  const headingHeight = 22;
  const rows = stacked ? 2 : 1;
  const totalHeight = legendHeight + rows * (headingHeight + height);
  const root = svgEl(doc, 'svg', {
    width,
    height: totalHeight,
    viewBox: `0 0 ${width} ${totalHeight}`,
    role: 'img',
    'font-family': 'system-ui, sans-serif',
    style: 'max-width: 100%; height: auto; color: #222; background: white',
  });
  const ref = referenceName(report);
  const title = svgEl(doc, 'title', {});
  title.textContent = `Negative-flip rate and net gain against depth k, relative to ${ref} (label "${report.label}"), with 95% intervals`;
  const desc = svgEl(doc, 'desc', {});
  desc.textContent =
    `Candidates: ${names.map((n) => (partial.includes(n) ? `${n} (partial)` : n)).join(', ')}. Depths: ` +
    `${report.depth_list.join(', ')}.`;
  root.append(title, desc, legend);

  (['negative_flip_rate', 'net_gain'] as const).forEach((metric, i) => {
    const x = stacked ? 0 : i * panelWidth;
    const top = legendHeight + (stacked ? i * (headingHeight + height) : 0);
    const heading = svgEl(doc, 'text', {
      x: x + 8,
      y: top + 15,
      'text-anchor': 'start',
      'font-weight': 'bold',
      'font-size': 13,
      fill: 'currentColor',
    });
    heading.textContent = metric === 'negative_flip_rate' ? 'Negative-flip rate vs k' : 'Net gain vs k';
    const p = panel(points, metric, report, names, doc, panelWidth, height);
    p.setAttribute('x', String(x));
    p.setAttribute('y', String(top + headingHeight));
    p.setAttribute('data-panel', metric);
    root.append(heading, p);
  });
  asOneImage(root);
  return root;
}

/**
 * A plot as one image described by its <title> and <desc>: Plot's aria-labels on its marks' <g> groups are
 * not allowed there (no role) and would only repeat "line", "area", "dot" to a screen reader. The mark names
 * stay as data-mark (tests and styles find the marks by them).
 */
export function asOneImage(root: Element): void {
  for (const e of root.querySelectorAll('[aria-label], [aria-description]')) {
    if (e === root) continue;
    const label = e.getAttribute('aria-label');
    if (label !== null) e.setAttribute('data-mark', label);
    e.removeAttribute('aria-label');
    e.removeAttribute('aria-description');
  }
}

/** The figure's SVG markup (standalone, with xmlns), e.g. to embed in the HTML report. */
export function depthPlotSvg(report: FlipReport, options: DepthPlotOptions = {}): string {
  return serializeSvg(buildDepthPlot(report, options));
}
