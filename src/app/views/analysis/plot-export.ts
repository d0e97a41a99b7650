/**
 * Exporting a plot: SVG markup (standalone, with the XML namespace), file names, and PNG rasterisation at
 * 2× through a <canvas>. The pure parts (serialize, names, sizes) run anywhere, including jsdom; the PNG
 * path needs a 2D canvas and says so with `PngExportError` when there is none (jsdom, some locked-down
 * browsers), so the component can show a clear message.
 */
import { referenceName, type FlipReport } from '../../../core/flips/analyze.ts';
import { fileSafe } from './format.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Standalone SVG markup of an <svg> element (or markup), with xmlns — valid both as an .svg file and inline
 * in HTML. `xmlDeclaration` prefixes `<?xml …?>` (for files).
 */
export function serializeSvg(svg: Element | string, options: { xmlDeclaration?: boolean } = {}): string {
  let markup: string;
  if (typeof svg === 'string') {
    markup = svg;
  } else {
    const Serializer = svg.ownerDocument.defaultView?.XMLSerializer ?? globalThis.XMLSerializer;
    if (Serializer && svg.namespaceURI === SVG_NS) {
      // The serializer writes the namespace itself; an explicit xmlns attribute would be written twice.
      const copy = svg.cloneNode(true) as Element;
      copy.removeAttribute('xmlns');
      markup = new Serializer().serializeToString(copy);
    } else {
      markup = svg.outerHTML;
      if (!/^<svg[^>]*\sxmlns=/.test(markup)) markup = markup.replace(/^<svg/, `<svg xmlns="${SVG_NS}"`);
    }
  }
  markup = markup.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
  if (!/^<svg[\s>]/.test(markup)) throw new Error('serializeSvg: expected markup starting with <svg>');
  return options.xmlDeclaration ? `<?xml version="1.0" encoding="UTF-8"?>\n${markup}` : markup;
}

/** File name of an exported depth plot: "fliplab-depth-plot_bm25_any.svg". */
export function plotFileName(report: FlipReport, ext: 'svg' | 'png'): string {
  const ref = referenceName(report);
  return `fliplab-depth-plot_${fileSafe(ref)}_${fileSafe(report.label)}.${ext}`;
}

/** Pixel size of an SVG from its width/height attributes (falling back to the viewBox). */
export function svgSize(svg: Element): { width: number; height: number } {
  const num = (name: string) => Number.parseFloat(svg.getAttribute(name) ?? '');
  let width = num('width');
  let height = num('height');
  if (!(width > 0 && height > 0)) {
    const vb = (svg.getAttribute('viewBox') ?? '').split(/[\s,]+/).map(Number);
    width = vb[2] ?? NaN;
    height = vb[3] ?? NaN;
  }
  if (!(width > 0 && height > 0)) throw new Error('svgSize: the SVG has no width/height or viewBox');
  return { width, height };
}

/** A data: URL holding SVG markup (what an <img> can load without a blob store). */
export function svgDataUrl(markup: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(markup)}`;
}

export class PngExportError extends Error {
  override name = 'PngExportError';
}

/**
 * Rasterises an SVG at `scale`× (default 2) into a PNG blob: the SVG is loaded as an image and drawn into a
 * canvas. Throws `PngExportError` when the environment has no 2D canvas or cannot decode the image.
 */
export async function svgToPng(svg: SVGSVGElement, options: { scale?: number; background?: string } = {}): Promise<Blob> {
  const doc = svg.ownerDocument;
  const scale = options.scale ?? 2;
  const { width, height } = svgSize(svg);
  const canvas = doc.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  let ctx: CanvasRenderingContext2D | null;
  try {
    ctx = typeof canvas.getContext === 'function' ? canvas.getContext('2d') : null;
  } catch {
    ctx = null;
  }
  if (!ctx) throw new PngExportError('PNG export needs a 2D <canvas>, which is not available here; use the SVG export instead.');
  const markup = serializeSvg(svg);
  const Img = doc.defaultView?.Image;
  if (!Img) throw new PngExportError('PNG export needs image decoding, which is not available here; use the SVG export instead.');
  const img = new Img();
  await new Promise<void>((resolve, reject) => {
    img.onload = () => resolve();
    img.onerror = () => reject(new PngExportError('PNG export: the browser could not draw the SVG; use the SVG export instead.'));
    img.src = svgDataUrl(markup);
  });
  ctx.fillStyle = options.background ?? '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  return new Promise<Blob>((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new PngExportError('PNG export: the canvas produced no image.'))), 'image/png');
  });
}
