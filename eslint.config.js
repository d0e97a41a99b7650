// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, eslint-plugin-svelte's for
// Svelte 5 components, and eslint-config-prettier last so formatting is Prettier's alone (`npm run lint`).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';

export default ts.config(
  { ignores: ['dist/', 'dist-cli/', 'dist-cli.*/', 'node_modules/', 'public/', 'docs/', 'coverage/', 'test/fixtures/', '**/*.d.ts'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  prettier,
  ...svelte.configs.prettier,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      // `_name` marks a parameter kept for a signature (commander actions, callbacks).
      // Prettier writes {' '} to keep a space between inline elements; it is not a useless mustache.
      'svelte/no-useless-mustaches': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Prettier wraps code at 140; this catches what it cannot wrap (long strings and comments).
    files: ['src/**', 'workers/**'],
    rules: { 'max-len': ['error', { code: 140, tabWidth: 2, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'] } },
  },
);
