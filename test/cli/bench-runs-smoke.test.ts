/**
 * bench:runs as a smoke test: its small leg (a 100-query pair) still generates the runs, runs `fliplab
 * flips`, `fliplab significance` and `fliplab eval` as processes and prints its ratio and memory lines. The numbers mean nothing here.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

describe('bench/runs.ts --small', () => {
  it('times flips against eval on a generated pair and prints the goals', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/runs.ts'), '--small', '--no-lab'], {
      encoding: 'utf8',
      cwd: ROOT,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/two runs of 100,000 lines \(100 queries × 1000\)/);
    expect(r.stdout).toMatch(/flips ÷ eval \d+\.\d\d×/);
    expect(r.stdout).toMatch(/significance ÷ eval \d+\.\d\d×/);
    expect(r.stdout).toMatch(/fliplab flips --depths 1,10,100 \(both runs\)\s+\d+ ms/);
  }, 120_000);
});
