import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

// The boot cache's ESM translation (boot-cache.ts): which files are ESM it translates, and swc's CommonJS of them.

/**
 * Packages whose ESM is loaded as CommonJS. swc's `node` interop matches Node for every import of a CommonJS
 * module, but a default import of another translated module would get its whole exports object; Nest's packages
 * have no default exports (checked for @nestjs 12), so their translation is exact. Other ESM loads natively.
 */
const TRANSLATED_SCOPES = [`${sep}node_modules${sep}@nestjs${sep}`];

export class EsmTranslator {
  /** While swc loads: the translator is not part of the boot, so the cache lets its modules load the usual way. */
  bypass = false;
  private readonly packageType = new Map<string, boolean>();
  private swc: typeof import('@swc/core') | null | undefined;

  /** ESM → CommonJS with Node's interop (a default import of a CommonJS module is its module.exports). */
  translate(filename: string): string {
    const swc = this.loadSwc();
    if (!swc) throw new Error(`boot cache: cannot translate ${filename} without @swc/core`);
    return swc.transformSync(renameWrapperNames(readFileSync(filename, 'utf8')), {
      filename,
      jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
      module: { type: 'commonjs', importInterop: 'node' },
      isModule: true,
      sourceMaps: false,
    }).code;
  }

  private loadSwc(): typeof import('@swc/core') | null {
    if (this.swc === undefined) {
      this.bypass = true;
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a dev dependency, optional at run time
        this.swc = require('@swc/core') as typeof import('@swc/core');
      } catch {
        this.swc = null;
      } finally {
        this.bypass = false;
      }
    }
    return this.swc;
  }

  /**
   * Whether a file is an ESM file this cache translates: a .js file (never .cjs) of a package with
   * `"type": "module"` (the nearest package.json decides), in a scope of TRANSLATED_SCOPES.
   */
  isEsm(filename: string): boolean {
    if (!filename.endsWith('.js') || !TRANSLATED_SCOPES.some((scope) => filename.includes(scope))) return false;
    const dirs: string[] = [];
    let dir = dirname(filename);
    let answer: boolean | undefined;
    for (;;) {
      answer = this.packageType.get(dir);
      if (answer !== undefined) break;
      dirs.push(dir);
      const pkg = join(dir, 'package.json');
      if (existsSync(pkg)) {
        try {
          answer = (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: string }).type === 'module';
        } catch {
          answer = false;
        }
        break;
      }
      const parent = dirname(dir);
      if (parent === dir || dir.endsWith(`${sep}node_modules`)) {
        answer = false;
        break;
      }
      dir = parent;
    }
    for (const d of dirs) this.packageType.set(d, answer);
    return answer;
  }
}

const WRAPPER_NAMES = ['require', 'module', 'exports', '__filename', '__dirname'];

/**
 * An ESM file may declare a top-level `require` (`createRequire(import.meta.url)`) or `__dirname`: inside the
 * CommonJS wrapper that would clash with its parameters (and swc's own `require` calls), so it is renamed.
 */
export function renameWrapperNames(source: string): string {
  for (const name of WRAPPER_NAMES) {
    if (!new RegExp(`^(?:export\\s+)?(?:const|let|var|function|class)\\s+${name}\\b`, 'm').test(source)) continue;
    // Not a property (`x.require`), a key (`require:`), part of a string or path (`'node:module'`).
    source = source.replace(new RegExp(`(?<![\\w$.'"/:])${name}(?![\\w$'":])`, 'g'), `__esm_${name}`);
  }
  return source;
}

export function canResolve(request: string): boolean {
  try {
    require.resolve(request);
    return true;
  } catch {
    return false;
  }
}
