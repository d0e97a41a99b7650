import { defineConfig } from 'vitest/config';

// Browser end-to-end tests (Debian chromium via playwright-core): `npm run test:e2e`.
// One file at a time: each file builds the test page and launches its own browser.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    fileParallelism: false,
    // Per-test budgets are named in the test files; these are the ceilings.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
