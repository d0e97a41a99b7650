/**
 * The layout's rules, read from every source file's imports (TypeScript's parser; the `<script>` blocks of
 * Svelte components). The layers, lowest first:
 *
 *   core ← report ← encoders ← store ← lab ← worker ← workers ← app (the UI)
 *                               node ← cli ← bin
 *
 * - directions: each product area imports only the areas its row below names; nothing outside src/app
 *   imports src/app (UI tests and the UI frame bench aside); the encoders never import the store (the store
 *   keeps what the encoders make, not the other way round);
 * - packages: src/core and src/report import no package at all (pure code that runs anywhere); Node's
 *   built-ins (`node:*`), onnxruntime-node and sharp only in the Node side (src/node, src/cli, bin, bench,
 *   scripts, test);
 * - the page imports src/worker (code that runs only in the workers: the engine, the APIs, parsing) and
 *   workers/ for their types only (`import type`): a value import would bundle worker code into the page;
 * - every folder under src/ is an area of the table and workers/ holds worker entries only, so new code
 *   cannot sit where no rule sees it.
 *
 * Each checker is a plain function of files and imports, tested on planted wrong edges below as well as on
 * the real tree. DESIGN.md's "Layout" section states the same rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

type Area =
  'core' | 'report' | 'encoders' | 'store' | 'lab' | 'worker' | 'node' | 'cli' | 'workers' | 'app' | 'bin' | 'test' | 'bench' | 'scripts';
type ProductArea = Exclude<Area, 'test' | 'bench' | 'scripts'>;

/** What each product area may import (besides packages). */
const ALLOWED: Readonly<Record<ProductArea, readonly Area[]>> = {
  core: ['core'],
  report: ['core', 'report'],
  encoders: ['core', 'encoders'],
  store: ['core', 'encoders', 'store'],
  lab: ['core', 'report', 'encoders', 'store', 'lab'],
  worker: ['core', 'report', 'encoders', 'store', 'lab', 'worker'],
  workers: ['core', 'report', 'encoders', 'store', 'lab', 'worker', 'workers'],
  node: ['core', 'report', 'encoders', 'store', 'node'],
  cli: ['core', 'report', 'encoders', 'store', 'node', 'cli'],
  // bin runs the compiled CLI (dist-cli/, not a source) and rebuilds it with scripts/build-cli.mjs when stale
  bin: ['cli', 'scripts'],
  // worker and workers: types only (workerValueImports)
  app: ['core', 'report', 'encoders', 'store', 'lab', 'worker', 'workers', 'app'],
};

/** The folders under src/: one per area. A folder not named here fails the layout test. */
const SRC_AREAS: readonly Area[] = ['core', 'report', 'encoders', 'store', 'lab', 'worker', 'node', 'cli', 'app'];

/** Areas that run only in Node: they may import Node's built-ins and Node-only packages. */
const NODE_SIDE: ReadonlySet<Area> = new Set(['node', 'cli', 'bin', 'bench', 'scripts', 'test']);
/** Areas that import no package at all, only their own and lower areas' modules. */
const NO_PACKAGES: ReadonlySet<Area> = new Set(['core', 'report']);

const NODE_BUILTINS = new Set(builtinModules);
/** Packages that exist only in Node: its built-ins (`node:fs`, or bare `fs`), the Node ONNX Runtime, sharp. */
function isNodeOnly(spec: string): boolean {
  const name = spec.split('/')[0]!;
  return spec.startsWith('node:') || NODE_BUILTINS.has(name) || name === 'onnxruntime-node' || name === 'sharp';
}

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

/** The area of a repository path; undefined for a path no rule covers (workers/ holds files only). */
function areaOf(file: string): Area | undefined {
  const m = /^src\/([^/]+)\//.exec(file);
  if (m) return SRC_AREAS.includes(m[1] as Area) ? (m[1] as Area) : undefined;
  if (/^workers\/[^/]+$/.test(file)) return 'workers';
  return /^(bin|test|bench|scripts)\//.exec(file)?.[1] as Area | undefined;
}

const SOURCE = /\.(ts|mts|mjs|svelte)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : sourceFiles(path);
    return SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  readonly from: string;
  /** A repository path for relative imports, else the package specifier. */
  readonly to: string;
  readonly relative: boolean;
  /** `import type …` / `export type … from` / `import('…').T` in a type: erased, nothing is loaded. */
  readonly typeOnly: boolean;
}

/** Every import of one file: static, re-exports, dynamic `import()`, `require()` and import types. */
export function importsOf(file: string, source: string = readFileSync(join(ROOT, file), 'utf8')): Import[] {
  const code = file.endsWith('.svelte') ? [...source.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : source;
  const kind = file.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, kind);
  const out: Import[] = [];
  const add = (specifier: ts.Node | undefined, typeOnly: boolean) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    const spec = specifier.text.replace(/\?.*$/, '');
    const isRelative = spec.startsWith('.');
    out.push({
      from: file,
      to: isRelative ? relative(ROOT, normalize(join(ROOT, dirname(file), spec))) : spec,
      relative: isRelative,
      typeOnly,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

// ------------------------------------------------------------------------------------------- checkers
// Each returns the offending edges or paths as "from → to" lines (empty when the rule holds).

/** Source files under src/ or workers/ that no area covers: a new folder must be placed in the table first. */
export function unplacedFiles(files: readonly string[]): string[] {
  return files.filter((f) => /^(src|workers)\//.test(f) && areaOf(f) === undefined);
}

/** Folders under src/ that are not an area, and any folder under workers/ (worker entries are files). */
export function unknownFolders(folders: readonly string[]): string[] {
  return folders.filter((d) => {
    const m = /^src\/([^/]+)$/.exec(d);
    return m ? !SRC_AREAS.includes(m[1] as Area) : d.startsWith('workers/');
  });
}

/** Relative imports against the direction table (and the files an area may import from outside areas). */
export function directionViolations(imports: readonly Import[]): string[] {
  const bad: string[] = [];
  for (const i of imports) {
    const from = areaOf(i.from);
    if (!i.relative || from === undefined || !(from in ALLOWED)) continue;
    const to = areaOf(i.to);
    if (to === undefined && ALLOWED_FILES[from]?.includes(i.to)) continue;
    if (to === undefined || !ALLOWED[from as ProductArea].includes(to)) bad.push(`${i.from} → ${i.to}`);
  }
  return bad;
}

/** Imports of src/app from outside it (but the UI's own tests and the UI frame bench). */
export function appImportViolations(imports: readonly Import[]): string[] {
  return imports
    .filter(
      (i) => i.relative && i.to.startsWith('src/app/') && !i.from.startsWith('src/app/') && !MAY_IMPORT_APP.some((re) => re.test(i.from)),
    )
    .map((i) => `${i.from} → ${i.to}`);
}

/** Packages where they may not be: any in core and report, Node-only ones outside the Node side. */
export function packageViolations(imports: readonly Import[]): string[] {
  const bad: string[] = [];
  for (const i of imports) {
    if (i.relative) continue;
    const from = areaOf(i.from);
    if (from === undefined) continue; // unplacedFiles reports the file itself
    if (NO_PACKAGES.has(from)) bad.push(`${i.from} → ${i.to} (src/${from} imports no package)`);
    else if (isNodeOnly(i.to) && !NODE_SIDE.has(from)) bad.push(`${i.from} → ${i.to} (Node-only, outside the Node side)`);
  }
  return bad;
}

/** Value imports of src/worker or workers/ from the page: only `import type` (and `export type … from`) may cross. */
export function workerValueImports(imports: readonly Import[]): string[] {
  const workerSide = (a: Area | undefined) => a === 'worker' || a === 'workers';
  return imports
    .filter((i) => i.relative && !i.typeOnly && areaOf(i.from) === 'app' && workerSide(areaOf(i.to)))
    .map((i) => `${i.from} → ${i.to} (not import type)`);
}

/**
 * Strongly connected groups of more than one node (or a node importing itself) in a graph of edges: each is
 * a cycle. Returned as the sorted members joined by " ↔ ", sorted (Tarjan's algorithm).
 */
function cyclesOf(edges: readonly (readonly [string, string])[]): string[] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (next.get(v) ?? []).includes(v)) out.push(group.sort().join(' ↔ '));
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out.sort();
}

/** Import cycles between files under src/, type-only imports included (a cycle is one idea split in two). */
export function fileCycles(imports: readonly Import[]): string[] {
  return cyclesOf(imports.filter((i) => i.relative && i.from.startsWith('src/') && i.to.startsWith('src/')).map((i) => [i.from, i.to]));
}

/** Import cycles between the folders of src/core (core/io and core/metrics depend one way, and so on). */
export function coreFolderCycles(imports: readonly Import[]): string[] {
  const folder = (f: string) => /^src\/core\/([^/]+)\//.exec(f)?.[1];
  const edges: [string, string][] = [];
  for (const i of imports) {
    const a = folder(i.from);
    const b = folder(i.to);
    if (i.relative && a !== undefined && b !== undefined && a !== b) edges.push([`core/${a}`, `core/${b}`]);
  }
  return cyclesOf(edges);
}

// ------------------------------------------------------------------------------------------- the tree

const ROOTS = ['src', 'workers', 'bin', 'test', 'bench', 'scripts'];
const FILES = ROOTS.flatMap(sourceFiles);
const IMPORTS = FILES.flatMap((f) => importsOf(f));
const FOLDERS = ['src', 'workers'].flatMap((dir) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`),
);

describe('the layout (read from the tree)', () => {
  it('reads the imports of every source file, Svelte components included', () => {
    expect(FILES.some((f) => f.endsWith('.svelte'))).toBe(true);
    expect(IMPORTS.length).toBeGreaterThan(500);
    // A check of the reader itself: known edges are seen, with their kind.
    expect(IMPORTS).toContainEqual({ from: 'workers/lab.worker.ts', to: 'src/worker/api.ts', relative: true, typeOnly: false });
    expect(IMPORTS).toContainEqual({ from: 'src/cli/main.ts', to: 'commander', relative: false, typeOnly: false });
    expect(IMPORTS.some((i) => i.typeOnly)).toBe(true);
    expect(FOLDERS).toContain('src/core');
  });

  it('every relative import names a file that exists (so the rules below see real edges)', () => {
    const known = new Set(FILES);
    const missing = IMPORTS.filter((i) => i.relative && SOURCE.test(i.to) && !known.has(i.to) && !i.to.endsWith('.d.ts'));
    expect(missing).toEqual([]);
  });

  it('every folder under src/ is an area of the table; workers/ holds worker entries only', () => {
    expect(unknownFolders(FOLDERS)).toEqual([]);
    expect(unplacedFiles(FILES)).toEqual([]);
  });

  it('src/core imports nothing outside itself', () => {
    expect(IMPORTS.filter((i) => i.from.startsWith('src/core/') && i.relative && !i.to.startsWith('src/core/'))).toEqual([]);
  });

  it('nothing outside src/app imports src/app (but the UI tests and the UI frame bench)', () => {
    expect(appImportViolations(IMPORTS)).toEqual([]);
  });

  it('each product area imports only the layers below it', () => {
    expect(directionViolations(IMPORTS)).toEqual([]);
    // The metadata allowance is in use (the CLI's version), not a dead rule.
    expect(IMPORTS).toContainEqual({ from: 'src/cli/main.ts', to: 'package.json', relative: true, typeOnly: false });
  });

  it('core and report import no package; Node built-ins, onnxruntime-node and sharp stay on the Node side', () => {
    expect(packageViolations(IMPORTS)).toEqual([]);
    // The Node side does use them (the rule is not vacuous).
    expect(IMPORTS.some((i) => areaOf(i.from) === 'cli' && i.to === 'onnxruntime-node')).toBe(true);
  });

  it('the page imports the workers’ types only', () => {
    expect(workerValueImports(IMPORTS)).toEqual([]);
    // The page does use their types (the rule is not vacuous).
    expect(IMPORTS.some((i) => areaOf(i.from) === 'app' && areaOf(i.to) === 'worker' && i.typeOnly)).toBe(true);
  });

  it('no import cycle between files of src/ (type-only imports count), nor between the folders of src/core', () => {
    expect(fileCycles(IMPORTS)).toEqual([]);
    expect(coreFolderCycles(IMPORTS)).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------- planted edges

/** The imports of made-up files: path → source, read by the same reader as the tree. */
const planted = (files: Record<string, string>) => Object.entries(files).flatMap(([file, code]) => importsOf(file, code));

describe('the checkers catch planted wrong edges', () => {
  it('a Node built-in in the lab, the encoders, the workers or a component; a Node-only package outside the Node side', () => {
    const imports = planted({
      'src/lab/x.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;",
      'src/lab/y.ts': "import 'node:fs';",
      'src/encoders/z.ts': "import { join } from 'path';\nimport * as ort from 'onnxruntime-node';",
      'workers/w.worker.ts': "const sharp = await import('sharp');",
      'src/app/views/P.svelte': '<script lang="ts">\n  import { cpus } from \'node:os\';\n</script>\n<p>{cpus().length}</p>',
      // Allowed: the same imports on the Node side, and browser packages in the browser areas.
      'src/cli/ok.ts': "import { readFileSync } from 'node:fs';\nimport * as ort from 'onnxruntime-node';",
      'scripts/ok.mjs': "const { createHash } = require('node:crypto');",
      'src/lab/ok.ts': "import { unzipSync } from 'fflate';",
    });
    expect(packageViolations(imports)).toEqual([
      'src/lab/x.ts → node:fs (Node-only, outside the Node side)',
      'src/lab/y.ts → node:fs (Node-only, outside the Node side)',
      'src/encoders/z.ts → path (Node-only, outside the Node side)',
      'src/encoders/z.ts → onnxruntime-node (Node-only, outside the Node side)',
      'workers/w.worker.ts → sharp (Node-only, outside the Node side)',
      'src/app/views/P.svelte → node:os (Node-only, outside the Node side)',
    ]);
  });

  it('any package in core or report, even a browser one or a type', () => {
    const imports = planted({
      'src/core/io/x.ts': "import { openDB } from 'idb';",
      'src/report/y.ts': "export type { Remote } from 'comlink';",
      'src/core/ok.ts': "import { x } from './metrics/registry.ts';",
    });
    expect(packageViolations(imports)).toEqual([
      'src/core/io/x.ts → idb (src/core imports no package)',
      'src/report/y.ts → comlink (src/report imports no package)',
    ]);
  });

  it('a value import of a worker from the page, in any of its forms', () => {
    const imports = planted({
      'src/app/a.ts': "import { api } from '../../workers/encode.worker.ts';",
      // verbatimModuleSyntax keeps `import { type X }` as a side-effect import of the worker module
      'src/app/b.ts': "import { type EncodeApi } from '../../workers/encode.worker.ts';",
      'src/app/c.ts': "export { api } from '../../workers/lab.worker.ts';",
      'src/app/d.ts': "const w = await import('../../workers/lab.worker.ts');",
      'src/app/e.ts': "import { LabEngine } from '../worker/engine.ts';",
      'src/app/ok4.ts': "import type { CollectionSummary } from '../worker/engine.ts';",
      'src/app/ok1.ts': "import type { EncodeApi } from '../../workers/encode.worker.ts';",
      'src/app/ok2.ts': "export type { LabApi } from '../../workers/lab.worker.ts';",
      'src/app/ok3.ts': "let api: import('../../workers/lab.worker.ts').LabApi;",
    });
    expect(workerValueImports(imports)).toEqual([
      'src/app/a.ts → workers/encode.worker.ts (not import type)',
      'src/app/b.ts → workers/encode.worker.ts (not import type)',
      'src/app/c.ts → workers/lab.worker.ts (not import type)',
      'src/app/d.ts → workers/lab.worker.ts (not import type)',
      'src/app/e.ts → src/worker/engine.ts (not import type)',
    ]);
  });

  it('a wrong direction, and the UI imported from outside it', () => {
    const imports = planted({
      'src/store/embeddings.ts': "import type { X } from '../app/types.ts';",
      'src/encoders/job.ts': "import { EmbeddingStore } from '../store/embeddings.ts';",
      'src/report/metrics.ts': "import type { LabApi } from '../lab/types.ts';",
      'src/core/x.ts': "import { recipeLine } from '../report/recipe.ts';",
      'workers/x.worker.ts': "import { Lab } from '../src/app/state/lab.svelte.ts';",
      'src/lab/ok.ts': "import { writePack } from '../encoders/pack.ts';",
    });
    expect(directionViolations(imports)).toEqual([
      'src/store/embeddings.ts → src/app/types.ts',
      'src/encoders/job.ts → src/store/embeddings.ts',
      'src/report/metrics.ts → src/lab/types.ts',
      'src/core/x.ts → src/report/recipe.ts',
      'workers/x.worker.ts → src/app/state/lab.svelte.ts',
    ]);
    expect(appImportViolations(imports)).toEqual([
      'src/store/embeddings.ts → src/app/types.ts',
      'workers/x.worker.ts → src/app/state/lab.svelte.ts',
    ]);
  });

  it('a cycle of files, type-only or not, and a cycle of core folders', () => {
    const imports = planted({
      'src/report/a.ts': "import { b } from './b.ts';",
      'src/report/b.ts': "import type { C } from './c.ts';",
      'src/report/c.ts': "export type { A } from './a.ts';",
      'src/report/self.ts': "import './self.ts';",
      'src/report/ok.ts': "import { a } from './a.ts';",
      'src/core/io/x.ts': "import { m } from '../metrics/m.ts';",
      'src/core/metrics/m.ts': "import type { X } from '../io/y.ts';",
    });
    expect(fileCycles(imports)).toEqual(['src/report/a.ts ↔ src/report/b.ts ↔ src/report/c.ts', 'src/report/self.ts']);
    expect(coreFolderCycles(imports)).toEqual(['core/io ↔ core/metrics']);
  });

  it('a folder the table does not know, under src/ or workers/', () => {
    expect(unknownFolders(['src/core', 'src/widgets', 'workers/helpers'])).toEqual(['src/widgets', 'workers/helpers']);
    expect(unplacedFiles(['src/lab/ok.ts', 'src/widgets/w.ts', 'src/loose.ts', 'workers/helpers/h.ts', 'workers/ok.worker.ts'])).toEqual([
      'src/widgets/w.ts',
      'src/loose.ts',
      'workers/helpers/h.ts',
    ]);
  });
});
