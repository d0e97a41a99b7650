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

/**
 * `fliplab flips --json --per-query` at the lab's depths (1, 5, 10, 20, 50) for a reference and a candidate
 * named as the lab names them, qrels layered in order; the report without its recipes (the lab's and the CLI's
 * recipes differ by design), as a lab's exported report is compared with it.
 */
export async function cliFlipsReport(
  qrels: readonly string[],
  runs: { readonly reference: string; readonly candidate: string; readonly names: readonly [string, string] },
  extra: readonly string[] = [],
): Promise<Record<string, unknown>> {
  const out = await runCli(
    'flips',
    ...qrels.flatMap((f) => ['--qrels', f]),
    '--reference',
    runs.reference,
    '--candidate',
    runs.candidate,
    '--name',
    runs.names[0],
    '--name',
    runs.names[1],
    '--depths',
    '1,5,10,20,50',
    '--json',
    '--per-query',
    ...extra,
  );
  if (out.code !== 0) throw new Error(`fliplab flips failed: ${out.stderr}`);
  const { recipes: _r, ...report } = JSON.parse(out.stdout) as Record<string, unknown>;
  return report;
}

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
