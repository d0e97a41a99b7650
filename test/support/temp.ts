/**
 * Temporary folders for tests: created under the system temp dir with a `fliplab-` prefix and removed when
 * the file's tests are done, so a test run leaves nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A fresh folder, removed after the calling file's (or describe block's) tests. Call it at module or describe level. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fliplab-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
