#!/usr/bin/env node
// The CLI runs compiled JavaScript (dist-cli/, built by scripts/build-cli.mjs at `npm install`). In a git
// checkout, a bundle older than any of its sources is rebuilt first (a few hundred ms, once), so
// `npx fliplab` always runs the code in src/. An installed package (no .git) runs the bundle it shipped.
//
// The bundle is one CommonJS script compiled here with node:vm so that V8's code cache can be used: each
// command's first run stores the functions it compiled (dist-cli/cache/<command>.v8, written atomically;
// skipped where dist-cli/ is read-only), later runs skip parsing and compiling them. V8 checks the cache
// against the source and its own version and flags, and a rejected cache is written again.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist-cli', 'fliplab.cjs');

function fresh() {
  if (!existsSync(join(root, '.git')) || !existsSync(join(root, 'src', 'cli', 'main.ts'))) return existsSync(bundle); // installed
  try {
    const built = statSync(bundle).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(join(root, 'dist-cli', 'inputs.json'), 'utf8'));
    return inputs.every((f) => statSync(join(root, f)).mtimeMs <= built);
  } catch {
    return false;
  }
}

// `fliplab eval … | head` closes the pipe early: stop quietly, as a Unix tool does.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

if (!fresh()) {
  try {
    const { buildCli } = await import('../scripts/build-cli.mjs');
    await buildCli();
  } catch (e) {
    const why = `could not rebuild the CLI from src/ (npm run build:cli shows why): ${e?.message ?? e}`;
    if (!existsSync(bundle)) {
      process.stderr.write(`fliplab: internal error: ${why}\n`);
      process.exit(70);
    }
    process.stderr.write(`fliplab: warning: ${why}; running the previous build\n`);
  }
}

/** The bundle's exports, compiled with the code cache of `command`; `save()` stores a cache when there was none. */
function load(command) {
  const cacheFile = join(dirname(bundle), 'cache', `${command}.v8`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // the CommonJS wrapper on the script's first line, so line numbers in stack traces stay the bundle's
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`, {
    filename: bundle,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const save = () => {
    if (cachedData !== undefined && !script.cachedDataRejected) return;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // a read-only install: every run compiles, as without a cache
    }
  };
  return { main: module.exports.main, save };
}

const argv = process.argv.slice(2);
// a cache per command (what `eval` compiles is not what `search` does); anything else shares one
const { main, save } = load(/^[a-z][a-z-]{0,19}$/.test(argv[0] ?? '') ? argv[0] : 'fliplab');
process.exitCode = await main(argv);
save();
