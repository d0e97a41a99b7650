#!/usr/bin/env node
// The CLI runs compiled JavaScript (dist-cli/, built by scripts/build-cli.mjs at `npm install`). In a git
// checkout, a bundle older than any of its sources is rebuilt first (a few hundred ms, once), so
// `npx fliplab` always runs the code in src/. An installed package (no .git) runs the bundle it shipped.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist-cli', 'fliplab.mjs');

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
const { main } = await import(bundle);
process.exitCode = await main(process.argv.slice(2));
