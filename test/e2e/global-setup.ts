/**
 * Built once for the whole e2e run: the app (as `npm start` serves it, unminified for readable traces) and the
 * e2e test pages (test/e2e/pages). Each file serves them read-only through `e2eSetup` (harness.ts) instead of
 * building its own copy.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildApp } from './harness.ts';
import { buildTestPages } from './build-pages.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'fliplab-e2e-builds-'));
  const builds = { app: join(dir, 'app'), pages: join(dir, 'pages') };
  await buildApp(builds.app);
  await buildTestPages(builds.pages);
  project.provide('e2eBuilds', builds);
  return () => rm(dir, { recursive: true, force: true });
}
