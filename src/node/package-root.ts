/**
 * The project's folder, found from wherever this code runs: the TypeScript sources (src/node/) or the
 * compiled CLI (dist-cli/, one folder deep), by walking up to the package.json named "fliplab".
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'fliplab') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    if (dirname(dir) === dir) throw new Error(`fliplab's package.json not found above ${from}`);
  }
}
