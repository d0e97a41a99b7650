/**
 * Corpus text, queries and file names are user data: nothing in the product turns a string into markup.
 * Every component and module under src/ and workers/ is scanned (the explorer renders passages, the panels
 * render file names and error messages) for `{@html}`, innerHTML / outerHTML assignment,
 * insertAdjacentHTML, document.write and DOMParser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(`${dir}/${e.name}`) : /\.(svelte|ts)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}

const FORBIDDEN: readonly [RegExp, string][] = [
  [/\{@html\b/, '{@html}'],
  [/\.(inner|outer)HTML\s*=(?!=)/, 'an innerHTML/outerHTML assignment'],
  [/insertAdjacentHTML|createContextualFragment/, 'HTML insertion'],
  [/document\.write/, 'document.write'],
  [/new DOMParser/, 'DOMParser'],
];

describe('no string becomes markup', () => {
  const all = [...files('src'), ...files('workers')];

  it('scans every component', () => {
    const components = all.filter((f) => f.endsWith('.svelte'));
    expect(components.length).toBeGreaterThanOrEqual(20);
    expect(components).toContain('src/app/views/explorer/QueryDetail.svelte');
  });

  it.each(all)('%s', (file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const [pattern, what] of FORBIDDEN) expect(source, `${file} uses ${what}`).not.toMatch(pattern);
  });

  it('the patterns catch what they are for', () => {
    const caught = (code: string) => FORBIDDEN.some(([p]) => p.test(code));
    expect(caught('<p>{@html passage.text}</p>')).toBe(true);
    expect(caught('el.innerHTML = text;')).toBe(true);
    expect(caught('const svg = node.outerHTML;')).toBe(false); // reading markup the app drew is fine
  });
});
