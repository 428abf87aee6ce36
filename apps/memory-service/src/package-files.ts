import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * A file shipped beside the code (the inspector, docs/configuration.md), found above this module: from the
 * sources (jest), from dist/ (npm start) and from an installed package (node_modules/lorekeeper/dist/…) alike.
 */
export function packageFile(relative: string): string {
  let dir = resolve(__dirname);
  for (;;) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const up = resolve(dir, '..');
    if (up === dir) throw new Error(`${relative} not found above ${__dirname}`);
    dir = up;
  }
}
