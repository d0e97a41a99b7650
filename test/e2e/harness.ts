/**
 * What the e2e files share: a temp folder, a server on the builds made once for the run (global-setup.ts) and
 * Chromium (`e2eSetup`); the CLI run in-process (to compare the lab's exports with `fliplab`); a download saved
 * to a folder; polling; a models root linking the generated model fixtures.
 */
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Download, Page } from 'playwright-core';
import { build } from 'vite';
import { inject } from 'vitest';
import { DEFAULT_MODELS_DIR } from '../../scripts/models/make-fixtures.ts';
import { cli as runCli } from '../support/cli.ts';
import { startHubServer, type HubServer, type HubServerOptions } from '../support/hub-server.ts';
import { launchChromium } from './browser.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folders of the app and the test pages, built once for the run (global-setup.ts). */
    e2eBuilds: { app: string; pages: string };
  }
}

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

/** The folder of the app built for this run (global-setup.ts): served by `e2eSetup`, or one folder down. */
export const builtApp = (): string => inject('e2eBuilds').app;

/** One e2e file's world: its temp folder, a server and (unless it launches its own) Chromium. */
export interface E2e {
  readonly work: string;
  readonly server: HubServer;
  readonly browser: Browser;
  /** Close the browser and the server, and delete the folder. */
  close(): Promise<void>;
}

/**
 * Set up one e2e file: a temp folder (`fliplab-<name>-`), then `prepare(work)` (the file's own collection
 * files, models or mirror: it returns the server options they need, beside `serve`), a server on the shared
 * build of the app
 * or of the test pages, and Chromium (`webgpu` asks for an adapter; `launch` replaces the launch, e.g. with
 * other flags).
 */
export async function e2eSetup(options: {
  readonly name: string;
  readonly site: 'app' | 'pages';
  readonly webgpu?: boolean;
  /** Server options (models, datasets) beside the build. */
  readonly serve?: Omit<HubServerOptions, 'staticRoot'>;
  readonly prepare?: (work: string) => Promise<Omit<HubServerOptions, 'staticRoot'> | void>;
  readonly launch?: () => Promise<Browser>;
}): Promise<E2e> {
  const work = await mkdtemp(join(tmpdir(), `fliplab-${options.name}-`));
  let server: HubServer | undefined;
  try {
    const extra = (await options.prepare?.(work)) ?? {};
    const builds = inject('e2eBuilds');
    server = await startHubServer({
      log: process.env.HUB_LOG === '1',
      ...options.serve,
      ...extra,
      staticRoot: options.site === 'app' ? builds.app : builds.pages,
    });
    const browser = await (options.launch?.() ?? launchChromium({ webgpu: options.webgpu ?? false }));
    const open = server;
    return {
      work,
      server: open,
      browser,
      close: async () => {
        await browser.close();
        await open.close();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await server?.close();
    await rm(work, { recursive: true, force: true });
    throw e;
  }
}

/**
 * A models root for the local hub server (`modelsRoot`) holding the generated fixtures `ids` (`<org>/<name>`, made
 * by makeModelFixtures or makeReaderFixtures first), linked, so Node and the browser read the very same files. A
 * pair `[repo, fixture]` serves the fixture under a preset's repo id (`onnx-community/Qwen2.5-0.5B-Instruct`).
 * Returns `root`.
 */
export async function linkFixtureModels(
  root: string,
  ids: readonly (string | readonly [repo: string, fixture: string])[],
): Promise<string> {
  for (const id of ids) {
    const [repo, fixture] = typeof id === 'string' ? [id, id] : id;
    await mkdir(dirname(join(root, repo)), { recursive: true });
    await symlink(join(DEFAULT_MODELS_DIR, fixture), join(root, repo), 'dir');
  }
  return root;
}

/** `fliplab <argv>` in this process: its exit code and what it printed. */
export const cli = (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => runCli(...argv);

/**
 * `fliplab flips --json --per-query --significance` at the lab's depths (1, 5, 10, 20, 50) for a reference and a candidate
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
    '--significance',
    ...extra,
  );
  if (out.code !== 0) throw new Error(`fliplab flips failed: ${out.stderr}`);
  const { recipes: _r, ...report } = JSON.parse(out.stdout) as Record<string, unknown>;
  return portableReport(report);
}

/**
 * A flip report (or a significance report itself) whose paired t-test p values (`rows[].p_t`, `p_t_adjusted`)
 * are rounded to 10 significant digits: they come from Math.exp and Math.log (Student's t tail), which may
 * differ in the last bits between the browser's V8 and Node's; every other number is exact arithmetic and
 * compared as it is.
 */
export function portableReport<T>(report: T): T {
  type Tests = { rows: Record<string, unknown>[] };
  const round = (x: unknown) => (typeof x === 'number' ? Number(x.toPrecision(10)) : x);
  const portable = (tests: Tests): Tests => ({
    ...tests,
    rows: tests.rows.map((r) => ({ ...r, p_t: round(r['p_t']), p_t_adjusted: round(r['p_t_adjusted']) })),
  });
  const r = report as { significance?: Tests; rows?: Tests['rows']; family?: unknown };
  if (r.significance !== undefined) return { ...report, significance: portable(r.significance) };
  if (r.rows !== undefined && r.family !== undefined) return portable(report as Tests) as T;
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
