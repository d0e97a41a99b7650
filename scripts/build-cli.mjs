/**
 * Builds the `fliplab` CLI into dist-cli/ (compiled by esbuild), so the command starts like a native tool
 * instead of transpiling TypeScript at every run:
 *   dist-cli/fliplab.cjs       the whole CLI in one CommonJS script. bin/fliplab.mjs compiles it with
 *                              node:vm and V8's code cache (dist-cli/cache/<command>.v8), which ESM cannot use
 *                              on Node 20; one script also saves the ES loader's per-chunk work. Measured on
 *                              the 1M-line eval: ~12% less wall time than the code-split ESM bundle it replaces.
 *   dist-cli/eval-worker.mjs   the worker thread of a two-thread eval (ESM, on its own).
 *
 * Runs from `npm install` (the `prepare` script) and, when a source file changed since the last build, from
 * bin/fliplab.mjs itself before it starts the CLI — so `npx fliplab` is never stale for a developer.
 *
 * Heavy packages stay external and load only inside the commands that need them (encode, search, answers
 * generate): @huggingface/transformers, onnxruntime-node/-web and sharp (their CommonJS builds).
 * dist-cli/inputs.json lists every source the bundle was built from, for that staleness check.
 *
 *   node scripts/build-cli.mjs [--verbose]
 */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(ROOT, 'dist-cli');
const HEAVY = ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'onnxruntime-common', 'sharp'];

export async function buildCli({ quiet = true } = {}) {
  const { build } = await import('esbuild');
  // Build beside dist-cli/ and swap it in only when the build succeeded: a failed build (a syntax error in
  // src/) leaves the previous bundle in place for bin/fliplab.mjs to fall back on.
  const staging = `${OUT_DIR}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const common = {
    absWorkingDir: ROOT,
    outdir: staging,
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: HEAVY,
    sourcemap: true,
    metafile: true,
    logLevel: quiet ? 'silent' : 'info',
  };
  let results;
  try {
    results = await Promise.all([
      build({
        ...common,
        entryPoints: { fliplab: 'src/cli/main.ts' },
        outExtension: { '.js': '.cjs' },
        format: 'cjs',
        // import() becomes require(): node:vm would need an import callback, experimental on Node 20 and
        // lost by functions restored from the code cache
        supported: { 'dynamic-import': false },
        // import.meta.url (the eval worker's URL, the package root) is the script's own file URL
        define: { 'import.meta.url': '__fliplab_import_meta_url' },
        banner: { js: "var __fliplab_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
      }),
      build({
        ...common,
        entryPoints: { 'eval-worker': 'src/node/eval-worker.ts' },
        outExtension: { '.js': '.mjs' },
        format: 'esm',
        // bundled CommonJS dependencies may call require()
        banner: {
          js: "import { createRequire as __fliplabRequire } from 'node:module'; const require = __fliplabRequire(import.meta.url);",
        },
      }),
    ]);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  const result = { metafile: { inputs: Object.assign({}, ...results.map((r) => r.metafile.inputs)) } };
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes('node_modules'))
    .map((f) => relative(ROOT, join(ROOT, f)));
  writeFileSync(
    join(staging, 'inputs.json'),
    `${JSON.stringify({ inputs: [...inputs, 'scripts/build-cli.mjs', 'package.json'] }, null, 1)}\n`,
  );
  const retired = `${OUT_DIR}.old-${process.pid}`;
  if (existsSync(OUT_DIR)) renameSync(OUT_DIR, retired);
  renameSync(staging, OUT_DIR);
  rmSync(retired, { recursive: true, force: true });
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli({ quiet: !process.argv.includes('--verbose') });
}
