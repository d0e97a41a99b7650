/**
 * Builds the `fliplab` CLI into dist-cli/ (one ESM bundle per lazily loaded part, compiled by esbuild), so
 * the command starts like a native tool instead of transpiling TypeScript at every run.
 *
 * Runs from `npm install` (the `prepare` script) and, when a source file changed since the last build, from
 * bin/fliplab.mjs itself before it starts the CLI — so `npx fliplab` is never stale for a developer.
 *
 * Heavy packages stay external and load only inside the commands that need them (encode, search):
 * @huggingface/transformers, onnxruntime-node/-web and sharp. dist-cli/inputs.json lists every source the
 * bundle was built from, for that staleness check.
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
  let result;
  try {
    result = await build({
      absWorkingDir: ROOT,
      entryPoints: { fliplab: 'src/cli/main.ts', 'eval-worker': 'src/node/eval-worker.ts' },
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: HEAVY,
      // bundled CommonJS dependencies (commander) may call require()
      banner: { js: "import { createRequire as __fliplabRequire } from 'node:module'; const require = __fliplabRequire(import.meta.url);" },
      sourcemap: true,
      metafile: true,
      logLevel: quiet ? 'silent' : 'info',
    });
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
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
