import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/parity/**/*.test.ts', 'test/cli/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
