import { defineConfig } from 'vitest/config';

// Browser end-to-end tests (Debian chromium via playwright-core): `npm run test:e2e`.
// One file at a time. The app and the test pages are built once (global-setup.ts); each file serves them.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    globalSetup: ['test/e2e/global-setup.ts'],
    fileParallelism: false,
    // Per-test budgets are named in the test files; these are the ceilings.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
