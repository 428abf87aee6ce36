/**
 * The boot cache: what Node 22's compile cache does, for Node 20, plus the two costs it leaves. Module loading
 * is most of a cold start (docs/performance.md, Footprint): compiling ≈1,300 CommonJS files, resolving every
 * `require`, and running Nest 12's ESM packages through the ESM loader (no code cache for ESM on Node 20, and
 * the CommonJS packages they import are parsed again by its lexer). Once a start has run, this keeps in one file:
 * - each loaded file's V8 code cache (made after the boot, so it holds the functions the boot compiled);
 * - each `require` resolution (parent folder + request → file);
 * - the ESM files of packages with `"type": "module"` compiled to CommonJS by swc (Node's import interop), so
 *   the next start loads Nest as plain CommonJS with a code cache. This needs @swc/core (a dev dependency,
 *   the build's compiler); without it the ESM packages load natively.
 * A cache is used only when node, the build stamp and the installed packages are the ones it was made with, and
 * each file only when its size and mtime match; anything else loads the ordinary way and the file is rewritten
 * after that start. It lives in dist/.boot-cache/ (never committed: dist/ is ignored). BOOT_CACHE=off disables it.
 *
 * Import this module first (main.ts does): it installs itself when loaded, before the modules it speeds up.
 * Here: the loader hooks and when to write; the cache file's format is boot-cache.store.ts, the ESM translation
 * boot-cache.esm.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, resolve } from 'node:path';
import vm from 'node:vm';
import { canResolve, EsmTranslator } from './boot-cache.esm';
import { CacheData, Entry, Index, readCacheFile, writeCacheFile } from './boot-cache.store';

export { renameWrapperNames } from './boot-cache.esm';

export interface BootCacheStats {
  /** Files compiled with a code cache V8 accepted. */
  hits: number;
  /** Files compiled without one (new, changed, or rejected by V8). */
  misses: number;
  /** Code caches V8 rejected (a flag or V8 version it was not made with). */
  rejected: number;
  /** ESM files loaded as their cached or fresh CommonJS translation. */
  translated: number;
  resolvedFromCache: number;
}

interface Loaded {
  script: vm.Script;
  mtime: number;
  size: number;
  code?: string;
}

// Node internals this relies on (stable since Node 12, still there in 24): the CommonJS loader's hooks.
interface ModuleInternals {
  _extensions: Record<string, (module: Module, filename: string) => void>;
  _resolveFilename: (request: string, parent: Module | undefined, isMain: boolean, options?: unknown) => string;
  _resolveLookupPaths: (request: string, parent: Module) => string[] | null;
  _cache: Record<string, Module>;
}

const VERSION = 3;
const ROOT = resolve(__dirname, '../../../..');
const NodeModule = Module as unknown as ModuleInternals;

class BootCache {
  readonly stats: BootCacheStats = { hits: 0, misses: 0, rejected: 0, translated: 0, resolvedFromCache: 0 };
  private index: Index | null = null;
  private data: CacheData | null = null;
  private readonly loaded = new Map<string, Loaded>();
  private readonly resolved = new Map<string, string>();
  private dirty = false;
  private released = false;
  private readonly esm = new EsmTranslator();
  private esmToCjs: boolean;

  constructor(
    private readonly file: string,
    private readonly fingerprint: string,
  ) {
    this.read();
    // A cache made with translated ESM keeps translating: a native ESM copy of a package already loaded as
    // CommonJS would be a second instance of its classes (Nest's DI compares them by identity).
    // Without a cache, translate from this start on when swc is installed (it loads only if a file needs it).
    this.esmToCjs = this.index?.esmToCjs ?? canResolve('@swc/core');
  }

  install(): void {
    const originalResolve = NodeModule._resolveFilename;
    NodeModule._resolveFilename = (request, parent, isMain, options) => {
      if (options !== undefined || !parent?.path || this.esm.bypass || Module.isBuiltin(request)) {
        return originalResolve(request, parent, isMain, options);
      }
      const key = `${parent.path}\0${request}`;
      const known = this.index?.resolved.get(key);
      if (known !== undefined) {
        this.stats.resolvedFromCache++;
        this.resolved.set(key, known);
        return known;
      }
      const filename = originalResolve(request, parent, isMain, options);
      this.resolved.set(key, filename);
      this.dirty = true;
      return filename;
    };
    const originalJs = NodeModule._extensions['.js'];
    NodeModule._extensions['.js'] = (module, filename) => {
      if (this.esm.bypass) return originalJs(module, filename);
      const cached = this.index?.files.get(filename);
      const esm = cached ? cached.code !== undefined : this.esm.isEsm(filename);
      if (esm && !this.esmToCjs) return originalJs(module, filename); // no swc: Node's ESM loader
      this.compile(module, filename, esm);
    };
  }

  /** Writes the cache when this start loaded something it did not hold; once, after the boot. */
  persist(): void {
    if (!this.dirty || this.released) return;
    this.dirty = false;
    const chunks: Buffer[] = [];
    let offset = 0;
    const put = (buf: Buffer): [number, number] => {
      chunks.push(buf);
      offset += buf.length;
      return [offset - buf.length, offset];
    };
    const files = new Map<string, Entry>();
    const translate = this.esmToCjs;
    for (const [filename, loaded] of this.loaded) {
      const { script, code } = loaded;
      const entry: Entry = { mtime: loaded.mtime, size: loaded.size, cache: put(script.createCachedData()) };
      if (code !== undefined) entry.code = put(Buffer.from(code));
      files.set(filename, entry);
    }
    // What an earlier start with another configuration loaded stays (another summarizer, /docs): the cache
    // converges on the union instead of flipping between configurations.
    if (this.index && this.data) {
      for (const [filename, old] of this.index.files) {
        if (files.has(filename)) continue;
        const entry: Entry = { mtime: old.mtime, size: old.size };
        const [cache, code] = [old.cache && this.data.read(old.cache), old.code && this.data.read(old.code)];
        if (cache) entry.cache = put(cache);
        if (code) entry.code = put(code);
        files.set(filename, entry);
      }
    }
    const index: Index = {
      fingerprint: this.fingerprint,
      files,
      resolved: new Map([...(this.index?.resolved ?? []), ...this.resolved]),
      esmToCjs: translate,
    };
    writeCacheFile(this.file, index, chunks);
    this.loaded.clear();
  }

  /** Closes the cache file once the boot is over, and lets go of what it held (idle RSS). */
  release(): void {
    this.released = true;
    this.data?.close();
    this.data = null;
    this.index = null;
    this.loaded.clear();
    this.resolved.clear();
  }

  private read(): void {
    const found = readCacheFile(this.file, this.fingerprint);
    if (!found) return;
    this.index = found.index;
    this.data = found.data;
  }

  private stat(filename: string): { mtime: number; size: number } {
    const st = statSync(filename);
    return { mtime: st.mtimeMs, size: st.size };
  }

  private compile(module: Module, filename: string, esm: boolean): void {
    const { mtime, size } = this.stat(filename);
    const entry = this.index?.files.get(filename);
    const current = entry !== undefined && entry.mtime === mtime && entry.size === size && this.data !== null;
    let code: string;
    if (esm) {
      const cached = current && entry.code ? this.data!.read(entry.code) : null;
      code = cached ? cached.toString('utf8') : this.esm.translate(filename);
      this.stats.translated++;
    } else {
      code = readFileSync(filename, 'utf8');
      if (code.startsWith('#!')) code = `//${code}`; // a bin script's hashbang, inside the wrapper
    }
    const cachedData = (current && entry.cache && this.data!.read(entry.cache)) || undefined;
    const script = new vm.Script(Module.wrap(code), {
      filename,
      cachedData,
      // import() inside a cached file resolves like it would in any CommonJS module.
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    } as vm.ScriptOptions);
    if (cachedData && !script.cachedDataRejected) this.stats.hits++;
    else {
      if (cachedData) this.stats.rejected++;
      this.stats.misses++;
      this.dirty = true;
    }
    this.loaded.set(filename, { script, mtime, size, code: esm ? code : undefined });
    const fn = script.runInThisContext() as (...args: unknown[]) => void;
    fn.call(module.exports, module.exports, requireFor(module), module, filename, dirname(filename));
  }
}

/** The `require` a CommonJS module is given (what Node's makeRequireFunction builds). */
function requireFor(module: Module): NodeJS.Require {
  const req = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolveFn = ((request: string, options?: { paths?: string[] }) =>
    NodeModule._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolveFn.paths = (request: string) => NodeModule._resolveLookupPaths(request, module);
  req.resolve = resolveFn;
  req.main = require.main;
  req.extensions = NodeModule._extensions as unknown as NodeJS.RequireExtensions;
  req.cache = NodeModule._cache as unknown as NodeJS.Require['cache'];
  return req;
}

/** What the cache depends on besides each file: node and V8, the build, the installed packages. */
function fingerprintOf(root: string): string {
  const mark = (file: string) => {
    try {
      const st = statSync(join(root, file));
      return `${st.mtimeMs}:${st.size}`;
    } catch {
      return '-';
    }
  };
  return [
    VERSION,
    process.version,
    process.arch,
    mark('dist/.built-at'),
    mark('node_modules/.package-lock.json'),
    mark('package-lock.json'),
  ].join('|');
}

let active: BootCache | null = null;

/** Installs the cache unless BOOT_CACHE=off (or already installed); the file is dist/.boot-cache/<node>.bin. */
export function installBootCache(env: NodeJS.ProcessEnv = process.env, root: string = ROOT): BootCache | null {
  if (active || env.BOOT_CACHE === 'off') return active;
  active = new BootCache(
    join(root, 'dist', '.boot-cache', `node-${process.version}-${process.arch}.bin`),
    fingerprintOf(root),
  );
  active.install();
  return active;
}

export const bootCacheStats = (): BootCacheStats | null => active?.stats ?? null;

/** After the boot: writes the cache if this start missed it, then frees the bytes it read. */
export function finishBootCache(): BootCacheStats | null {
  if (!active) return null;
  active.persist();
  active.release();
  return active.stats;
}

installBootCache();
