import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// src/core must run unchanged in a browser tab, a web worker and Node: no Node APIs, no DOM.
const CORE = join(import.meta.dirname, '../../src/core');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const FORBIDDEN: [RegExp, string][] = [
  [/from\s+['"]node:/, 'a node: import'],
  [/from\s+['"](fs|path|os|zlib|stream|crypto|url|util|child_process|worker_threads)['"]/, 'a Node built-in import'],
  [/\b(document|window|localStorage|indexedDB|navigator)\s*\./, 'a DOM global'],
  [/\bprocess\.(env|argv|exit|stdout|stderr|cwd)/, 'the Node process object'],
  [/\bBuffer\./, 'Node Buffer'],
  [/\b(importScripts|postMessage)\s*\(/, 'a worker API'],
];

describe('src/core is pure', () => {
  const files = tsFiles(CORE);
  it('has files to check', () => expect(files.length).toBeGreaterThan(10));
  it.each(files.map((f) => [f.slice(CORE.length + 1), f]))('%s uses no Node, DOM or worker API', (_, file) => {
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const [pattern, what] of FORBIDDEN) expect(code, `${file} uses ${what}`).not.toMatch(pattern);
  });
});
