/**
 * The depth plot: Observable Plot draws one line per candidate in each panel, follows the report as it
 * changes, exports standalone SVG (parsable, naming the candidates), and reports a clear error for PNG
 * where there is no canvas (jsdom).
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, test, vi } from 'vitest';
import DepthPlot from '../../../src/app/views/analysis/DepthPlot.svelte';
import { buildDepthPlot, CANDIDATE_COLORS, depthPlotPoints, depthPlotSvg } from '../../../src/app/views/analysis/depth-plot.ts';
import { plotFileName, serializeSvg, svgSize, svgToPng, PngExportError } from '../../../src/app/views/analysis/plot-export.ts';
import { analyzeFlips } from '../../../src/core/flips/analyze.ts';
import { BGE_RANKS, E5_RANKS, REFERENCE_RANKS, mainReport, makeQrels, makeRun, undefinedReport } from './fixtures.ts';

const linePaths = (root: ParentNode, panel: string) => root.querySelectorAll(`[data-panel="${panel}"] g[data-mark="line"] path`);

function parseSvg(markup: string): Document {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
  expect(doc.documentElement.nodeName).toBe('svg');
  expect(doc.documentElement.namespaceURI).toBe('http://www.w3.org/2000/svg');
  return doc;
}

describe('depth plot builder', () => {
  test('one line per candidate in each panel, coloured per candidate, partial ones dashed', () => {
    const report = mainReport();
    const svg = buildDepthPlot(report, { partial: ['E5'] });
    for (const panel of ['negative_flip_rate', 'net_gain']) {
      const paths = [...linePaths(svg, panel)];
      expect(paths).toHaveLength(2);
      expect(new Set(paths.map((p) => p.getAttribute('stroke')))).toEqual(new Set(CANDIDATE_COLORS.slice(0, 2)));
      const dashed = paths.filter((p) => p.closest('[stroke-dasharray]') !== null || p.getAttribute('stroke-dasharray'));
      expect(dashed.map((p) => p.getAttribute('stroke'))).toEqual([CANDIDATE_COLORS[1]]); // E5 is the second candidate
      // One interval band per candidate too.
      expect(svg.querySelectorAll(`[data-panel="${panel}"] g[data-mark="area"] path`)).toHaveLength(2);
    }
    expect(svg.querySelector('[data-part="legend"]')!.textContent).toBe('BGEE5 (partial)');
  });

  test('stacked (narrow screens): each panel is the full width, the net-gain panel under the rate panel', () => {
    const report = mainReport();
    const side = buildDepthPlot(report, { width: 360 });
    const stacked = buildDepthPlot(report, { width: 360, stacked: true });
    const box = (svg: SVGSVGElement, panel: string) => {
      const p = svg.querySelector(`[data-panel="${panel}"]`)!;
      return { x: Number(p.getAttribute('x')), y: Number(p.getAttribute('y')), width: Number(p.getAttribute('width')) };
    };
    expect(box(side, 'negative_flip_rate').width).toBe(180);
    expect(box(side, 'net_gain')).toMatchObject({ x: 180, y: box(side, 'negative_flip_rate').y });
    expect(box(stacked, 'negative_flip_rate')).toMatchObject({ x: 0, width: 360 });
    expect(box(stacked, 'net_gain')).toMatchObject({ x: 0, width: 360 });
    expect(box(stacked, 'net_gain').y).toBeGreaterThanOrEqual(box(stacked, 'negative_flip_rate').y + 300);
    expect(Number(stacked.getAttribute('height'))).toBeGreaterThan(Number(side.getAttribute('height')) + 300);
  });

  test('points carry the report numbers; undefined rates are gaps, not zeros', () => {
    const report = undefinedReport();
    const points = depthPlotPoints(report);
    const nfr1 = points.find((p) => p.metric === 'negative_flip_rate' && p.k === 1)!;
    expect(nfr1.value).toBeNull();
    expect(nfr1.title).toMatch(/undefined/);
    const nfr5 = points.find((p) => p.metric === 'negative_flip_rate' && p.k === 5)!;
    const c5 = report.depths.find((d) => d.k === 5)!.candidates[0]!;
    expect([nfr5.value, nfr5.lo, nfr5.hi]).toEqual([c5.negative_flip_rate.value, c5.negative_flip_rate.lo, c5.negative_flip_rate.hi]);
    const svg = buildDepthPlot(report);
    // Two defined depths of three: the NFR panel draws two dots, the net-gain panel three.
    expect(svg.querySelectorAll('[data-panel="negative_flip_rate"] g[data-mark="dot"] circle')).toHaveLength(2);
    expect(svg.querySelectorAll('[data-panel="net_gain"] g[data-mark="dot"] circle')).toHaveLength(3);
  });

  test('depthPlotSvg builds in a given document (even one without a window) and the markup parses as SVG', () => {
    const detached = document.implementation.createHTMLDocument('report');
    expect(detached.defaultView).toBeNull();
    const markup = depthPlotSvg(mainReport(), { document: detached, partial: ['BGE'] });
    expect(markup.startsWith('<svg')).toBe(true);
    const doc = parseSvg(markup);
    expect(doc.documentElement.textContent).toContain('BGE (partial)');
    expect(doc.documentElement.textContent).toContain('E5');
    expect(doc.querySelectorAll('svg[data-panel]')).toHaveLength(2);
    expect(svgSize(doc.documentElement)).toEqual({ width: 880, height: Number(doc.documentElement.getAttribute('height')) });
  });

  test('PNG rasterisation without a canvas fails with a clear error', async () => {
    const svg = buildDepthPlot(mainReport());
    const spy = vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    await expect(svgToPng(svg)).rejects.toBeInstanceOf(PngExportError);
    await expect(svgToPng(svg)).rejects.toThrow(/needs a 2D <canvas>/);
    spy.mockRestore();
  });
});

describe('DepthPlot component', () => {
  test('renders the plot and re-renders when the report changes', async () => {
    const { container, rerender } = render(DepthPlot, { report: mainReport(), partial: [] });
    const host = container.querySelector('[data-depth-plot]')!;
    expect(host.querySelector(':scope > svg')).not.toBeNull();
    expect(linePaths(host, 'negative_flip_rate')).toHaveLength(2);

    // A third candidate arrives (e.g. a run finished encoding): one more line.
    const qrels = makeQrels(REFERENCE_RANKS.length);
    const three = analyzeFlips(qrels, makeRun('BM25', REFERENCE_RANKS), [
      makeRun('BGE', BGE_RANKS),
      makeRun('E5', E5_RANKS),
      makeRun('SPLADE', REFERENCE_RANKS),
    ]);
    await rerender({ report: three, partial: ['SPLADE'] });
    expect(linePaths(host, 'negative_flip_rate')).toHaveLength(3);
    expect(linePaths(host, 'net_gain')).toHaveLength(3);
    expect(host.querySelectorAll(':scope > svg')).toHaveLength(1);
    expect(screen.getByText(/dashed lines are partial runs \(SPLADE\)/)).toBeTruthy();
  });

  test('SVG export hands over a standalone SVG file naming every candidate', async () => {
    const report = mainReport();
    const ondownload = vi.fn<(blob: Blob, name: string) => void>();
    render(DepthPlot, { report, ondownload });
    await fireEvent.click(screen.getByRole('button', { name: 'SVG' }));
    expect(ondownload).toHaveBeenCalledTimes(1);
    const [blob, name] = ondownload.mock.calls[0]!;
    expect(name).toBe(plotFileName(report, 'svg'));
    expect(name).toBe('fliplab-depth-plot_BM25_any.svg');
    expect(blob.type).toBe('image/svg+xml');
    const text = await blob.text();
    expect(text.startsWith('<?xml')).toBe(true);
    const doc = parseSvg(text);
    for (const candidate of ['BGE', 'E5']) expect(doc.documentElement.textContent).toContain(candidate);
  });

  test('without ondownload, SVG export goes through the app download (object URL + <a download> click)', async () => {
    const report = mainReport();
    const blobs: Blob[] = [];
    const had = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = vi.fn((b: Blob) => (blobs.push(b), `blob:test/${blobs.length}`));
    URL.revokeObjectURL = vi.fn();
    const clicks: { href: string; download: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ href: this.href, download: this.download });
    });
    try {
      render(DepthPlot, { report });
      vi.useFakeTimers();
      await fireEvent.click(screen.getByRole('button', { name: 'SVG' }));
      expect(clicks).toEqual([{ href: 'blob:test/1', download: plotFileName(report, 'svg') }]);
      vi.runAllTimers();
      expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:test/1');
      expect(blobs[0]!.type).toBe('image/svg+xml');
      expect(parseSvg(await blobs[0]!.text()).documentElement.textContent).toContain('BGE');
      expect(screen.queryByRole('alert')).toBeNull();
    } finally {
      vi.useRealTimers();
      click.mockRestore();
      URL.createObjectURL = had.create;
      URL.revokeObjectURL = had.revoke;
    }
  });

  test('PNG export in a page without a 2D canvas shows the error in place', async () => {
    // As a browser with canvas disabled answers (jsdom itself also logs "Not implemented" on every call).
    const spy = vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    try {
      const ondownload = vi.fn();
      render(DepthPlot, { report: mainReport(), ondownload });
      await fireEvent.click(screen.getByRole('button', { name: 'PNG' }));
      await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/PNG export needs a 2D <canvas>/));
      expect(spy).toHaveBeenCalled();
      expect(ondownload).not.toHaveBeenCalled();
      expect(screen.getByRole('button', { name: 'PNG' }).hasAttribute('disabled')).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  test('serializeSvg writes the namespace once', () => {
    const svg = buildDepthPlot(mainReport());
    const markup = serializeSvg(svg);
    expect(markup.match(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g)).toHaveLength(1);
  });
});
