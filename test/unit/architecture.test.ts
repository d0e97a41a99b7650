/**
 * Import directions, read from every source file's imports (TypeScript's own pre-processor; the `<script>`
 * blocks of Svelte components). The layers, lowest first:
 *
 *   core ← report ← encoders ← store ← lab ← workers ← app (the UI)
 *                               node ← cli ← bin
 *
 * src/core imports nothing outside itself (no package either); nothing outside src/app imports src/app
 * (UI tests and the UI frame bench aside); the encoders never import the store (the store keeps what the
 * encoders make, not the other way round). DESIGN.md's "Layout" section draws the same picture.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

type Area = 'core' | 'report' | 'encoders' | 'store' | 'lab' | 'node' | 'cli' | 'workers' | 'app' | 'bin' | 'test' | 'bench' | 'scripts';

/** What each product area may import (besides packages). */
const ALLOWED: Readonly<Record<Exclude<Area, 'test' | 'bench' | 'scripts'>, readonly Area[]>> = {
  core: ['core'],
  report: ['core', 'report'],
  encoders: ['core', 'encoders'],
  store: ['core', 'encoders', 'store'],
  lab: ['core', 'report', 'encoders', 'store', 'lab'],
  workers: ['core', 'report', 'encoders', 'store', 'lab', 'workers'],
  node: ['core', 'report', 'encoders', 'store', 'node'],
  cli: ['core', 'report', 'encoders', 'store', 'node', 'cli'],
  // bin runs the compiled CLI (dist-cli/, not a source) and rebuilds it with scripts/build-cli.mjs when stale
  bin: ['cli', 'scripts'],
  app: ['core', 'report', 'encoders', 'store', 'lab', 'workers', 'app'],
};

/**
 * Files outside any area that an area may import: the CLI reads its version from package.json; the app
 * bundles the demo collection (`#demo` opens it with no download).
 */
const ALLOWED_FILES: Readonly<Partial<Record<Area, readonly string[]>>> = {
  cli: ['package.json'],
  app: ['examples/demo-beir/corpus.jsonl', 'examples/demo-beir/queries.jsonl', 'examples/demo-beir/qrels/test.tsv'],
};

/** Files outside src/app that may import the UI: its own tests, the e2e pages, the UI frame benchmark. */
const MAY_IMPORT_APP = [/^test\/component\//, /^test\/unit\/app\//, /^test\/e2e\//, /^bench\/app-recompute\.ts$/];

function areaOf(file: string): Area | undefined {
  const m = /^src\/(core|report|encoders|store|lab|node|cli|app)\//.exec(file) ?? /^(workers|bin|test|bench|scripts)\//.exec(file);
  return m?.[1] as Area | undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs|svelte)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  readonly from: string;
  /** A repository path for relative imports, else the package specifier. */
  readonly to: string;
  readonly relative: boolean;
}

export function importsOf(file: string): Import[] {
  let code = readFileSync(join(ROOT, file), 'utf8');
  if (file.endsWith('.svelte')) code = [...code.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  return ts.preProcessFile(code, true, true).importedFiles.map(({ fileName }) => {
    const spec = fileName.replace(/\?.*$/, '');
    const isRelative = spec.startsWith('.');
    return { from: file, to: isRelative ? relative(ROOT, normalize(join(ROOT, dirname(file), spec))) : spec, relative: isRelative };
  });
}

const FILES = ['src', 'workers', 'bin', 'test', 'bench', 'scripts'].flatMap(sourceFiles);
const IMPORTS = FILES.flatMap(importsOf);

describe('import directions', () => {
  it('reads the imports of every source file, Svelte components included', () => {
    expect(FILES.some((f) => f.endsWith('.svelte'))).toBe(true);
    expect(IMPORTS.length).toBeGreaterThan(500);
    // A check of the reader itself: a known edge is seen.
    expect(IMPORTS).toContainEqual({ from: 'workers/lab.worker.ts', to: 'src/lab/api.ts', relative: true });
  });

  it('every relative import names a file that exists (so the rules below see real edges)', () => {
    const known = new Set(FILES);
    const missing = IMPORTS.filter((i) => i.relative && /\.(ts|mts|mjs|svelte)$/.test(i.to) && !known.has(i.to) && !i.to.endsWith('.d.ts'));
    expect(missing).toEqual([]);
  });

  it('src/core imports nothing outside itself, no package either', () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith('src/core/') && !(i.relative && i.to.startsWith('src/core/')));
    expect(bad).toEqual([]);
  });

  it('nothing outside src/app imports src/app (but the UI tests and the UI frame bench)', () => {
    const bad = IMPORTS.filter(
      (i) => i.relative && i.to.startsWith('src/app/') && !i.from.startsWith('src/app/') && !MAY_IMPORT_APP.some((re) => re.test(i.from)),
    );
    expect(bad).toEqual([]);
  });

  it('each product area imports only the layers below it', () => {
    const bad: string[] = [];
    for (const i of IMPORTS) {
      const from = areaOf(i.from);
      if (!i.relative || from === undefined || !(from in ALLOWED)) continue;
      const to = areaOf(i.to);
      if (to === undefined && ALLOWED_FILES[from]?.includes(i.to)) continue;
      if (to === undefined || !ALLOWED[from as keyof typeof ALLOWED].includes(to)) bad.push(`${i.from} → ${i.to}`);
    }
    expect(bad).toEqual([]);
  });

  it('a wrong direction is caught (the rules can fail)', () => {
    const wrong = [
      { from: 'src/store/embeddings.ts', to: 'src/app/types.ts' },
      { from: 'src/encoders/job.ts', to: 'src/store/embeddings.ts' },
      { from: 'src/report/metrics.ts', to: 'src/lab/types.ts' },
    ];
    for (const w of wrong) expect(ALLOWED[areaOf(w.from) as keyof typeof ALLOWED]).not.toContain(areaOf(w.to));
    // The metadata allowance is in use (the CLI's version), not a dead rule.
    expect(IMPORTS).toContainEqual({ from: 'src/cli/main.ts', to: 'package.json', relative: true });
  });
});
