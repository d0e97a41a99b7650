#!/usr/bin/env node
// The CLI runs its TypeScript sources through tsx, so `npx fliplab` is always the code in src/ — no build
// step to forget, no stale bundle.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
