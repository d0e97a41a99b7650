import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/unit/**/*.test.ts', 'test/parity/**/*.test.ts', 'test/cli/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        // Svelte component tests (Vitest + @testing-library/svelte in jsdom).
        plugins: [svelte(), svelteTesting()],
        test: {
          name: 'component',
          include: ['test/component/**/*.test.ts'],
          environment: 'jsdom',
          testTimeout: 30_000,
        },
      },
    ],
  },
});
