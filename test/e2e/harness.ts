/**
 * What the e2e files that open the lab share: the production build (as `npm start` builds it, unminified for
 * readable traces), the CLI run in-process (to compare the lab's exports with `fliplab`), and a download saved
 * to a folder.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Download, Page } from 'playwright-core';
import { build } from 'vite';
import { cli as runCli } from '../support/cli.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Build the app into `outDir` with the project's Vite config. */
export async function buildApp(outDir: string): Promise<void> {
  await build({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, minify: false, reportCompressedSize: false },
  });
}

/** `fliplab <argv>` in this process: its exit code and what it printed. */
export const cli = (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => runCli(...argv);

/** Click something that downloads a file; the file is saved in `dir` under its suggested name. */
export async function saveDownload(
  p: Page,
  dir: string,
  click: () => Promise<void>,
): Promise<{ name: string; text: string; path: string }> {
  const [download] = (await Promise.all([p.waitForEvent('download'), click()])) as [Download, void];
  const path = join(dir, download.suggestedFilename());
  await download.saveAs(path);
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8'), path };
}

/**
 * Read `read()` every `everyMs` until `done` holds for its value, and return that value. Fails after
 * `timeoutMs` saying `what` was awaited and the last value read; `stop()` returning a reason fails at once
 * (e.g. the job being waited on ended early).
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  options: { timeoutMs?: number; everyMs?: number; stop?: () => string | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    const reason = options.stop?.();
    if (reason !== undefined) throw new Error(`stopped waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last read: ${JSON.stringify(value)?.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 25));
  }
}
