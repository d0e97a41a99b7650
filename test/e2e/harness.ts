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
import { main } from '../../src/cli/main.ts';

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
export async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
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
