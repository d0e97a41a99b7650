#!/usr/bin/env node
/**
 * `npm test`: every check, in the time CI allows. The type check and the lint (about a minute of one core
 * together) run beside the unit and component tests instead of before them; their output is printed when
 * they end, so it does not interleave with the tests'. Any failure stops the run before the browser tests,
 * which come last (they build the app and take most of the time).
 */
import { spawn } from 'node:child_process';

/** Runs an npm script; resolves with its exit code (and its output when buffered). */
function run(script, { buffer }) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (buffer) {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
    }
    child.on('close', (code) => resolve({ script, code: code ?? 1, output }));
  });
}

const checks = (async () => {
  const results = [];
  for (const script of ['typecheck', 'lint']) results.push(await run(script, { buffer: true }));
  return results;
})();
const units = await run('test:vitest', { buffer: false });
const staticChecks = await checks;
for (const r of staticChecks) {
  process.stdout.write(`\n> npm run ${r.script}${r.code === 0 ? '' : ` (failed, exit ${r.code})`}\n${r.output}`);
}
const failed = [...staticChecks, units].filter((r) => r.code !== 0);
if (failed.length > 0) {
  console.error(`\nnpm test: ${failed.map((r) => r.script).join(', ')} failed; the browser tests were not run`);
  process.exit(1);
}
const e2e = await run('test:e2e', { buffer: false });
process.exit(e2e.code);
