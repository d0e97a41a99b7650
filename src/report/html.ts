/**
 * The report as one self-contained HTML page: inline CSS, the caller's SVG plots inline, no script and
 * no external URL. Every piece of user text (title, collection, run names, query ids) is escaped; the
 * SVGs are checked to hold no script, event handler, foreign object or external reference.
 */
import { buildSections, type ReportInput, type ReportPlot } from './sections.ts';
import type { Table } from './document.ts';
import { escapeHtml } from './escape.ts';

const CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.75rem 0 1.25rem;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid #ccc;padding:.2rem .5rem;vertical-align:top}th{background:#f2f2f2}
td.num,th.num{text-align:right;white-space:nowrap}figure{margin:1rem 0}figure svg{max-width:100%;height:auto}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}dl.meta dt{font-weight:600}dl.meta dd{margin:0}
@media (prefers-color-scheme:dark){body{background:#161616;color:#e8e8e8}th{background:#2a2a2a}th,td{border-color:#444}}`;

/** Things an embedded SVG may not contain: it must not run code or fetch anything. */
const UNSAFE_SVG: readonly [RegExp, string][] = [
  [/<\s*script/i, 'a <script> element'],
  [/<\s*foreignObject/i, 'a <foreignObject> element'],
  [/\son[a-z]+\s*=/i, 'an event-handler attribute'],
  [/(?:href|src)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a link to another resource'],
  [/url\(\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a url() to another resource'],
  [/@import/i, 'a CSS @import'],
];

/** The SVG markup itself (after an optional XML declaration), refused when it could run or fetch. */
export function checkedSvg(plot: ReportPlot): string {
  const svg = plot.svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '').trim();
  if (!/^<svg[\s>]/i.test(svg)) throw new RangeError(`plot "${plot.title}": expected SVG markup starting with <svg`);
  for (const [pattern, what] of UNSAFE_SVG) {
    if (pattern.test(svg))
      throw new RangeError(`plot "${plot.title}": the SVG contains ${what}; reports embed only self-contained, script-free SVG`);
  }
  return svg;
}

function htmlTable(t: Table): string {
  const cls = (i: number) => (t.numeric[i] ? ' class="num"' : '');
  const head = t.header.map((h, i) => `<th scope="col"${cls(i)}>${escapeHtml(h)}</th>`).join('');
  const body = t.rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td${cls(i)}>${escapeHtml(c)}</td>`)).join('')}</tr>`,
    )
    .join('\n');
  return `<table>\n<caption>${escapeHtml(t.caption)}</caption>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

export function reportHtml(input: ReportInput): string {
  const out: string[] = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(input.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${escapeHtml(input.title)}</h1>`,
    `<dl class="meta"><dt>Collection</dt><dd>${escapeHtml(input.collection)}</dd><dt>Date</dt><dd>${escapeHtml(input.date)}</dd></dl>`,
  ];
  for (const s of buildSections(input)) {
    out.push(`<section id="${escapeHtml(s.id)}">`, `<h2>${escapeHtml(s.heading)}</h2>`);
    for (const note of s.notes) out.push(`<p>${escapeHtml(note)}</p>`);
    for (const t of s.tables) out.push(htmlTable(t));
    out.push('</section>');
  }
  const plots = input.plots ?? [];
  if (plots.length > 0) {
    out.push('<section id="plots">', '<h2>Plots</h2>');
    for (const p of plots) out.push(`<figure>\n${checkedSvg(p)}\n<figcaption>${escapeHtml(p.title)}</figcaption>\n</figure>`);
    out.push('</section>');
  }
  out.push('</main>', '</body>', '</html>');
  return `${out.join('\n')}\n`;
}
