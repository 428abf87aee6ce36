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
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import vm from 'node:vm';

interface Entry {
  /** mtimeMs and size of the source when cached. */
  mtime: number;
  size: number;
  /** Byte range of the V8 code cache in the file's data section. */
  cache?: [number, number];
  /** Byte range of the CommonJS translation of an ESM file. */
  code?: [number, number];
}

interface Index {
  fingerprint: string;
  files: Map<string, Entry>;
  /** `parent folder \0 request` → resolved file. */
  resolved: Map<string, string>;
  esmToCjs: boolean;
}

/**
 * The index as stored: paths once in a table, entries as flat number arrays (JSON.parse of ≈ 1,800 files and
 * ≈ 4,000 resolutions as objects keyed by path took ≈ 50 ms, a twentieth of a cached boot).
 */
interface StoredIndex {
  fingerprint: string;
  esmToCjs: boolean;
  paths: string[];
  /** Per file: path, mtime, size, cache start, cache end, code start, code end (-1: none). */
  files: number[];
  /** Per resolution: parent folder (path), request, resolved file (path). */
  resolved: (string | number)[];
}

const FILE_FIELDS = 7;

function encodeIndex(index: Index): Buffer {
  const ids = new Map<string, number>();
  const id = (path: string) => {
    let n = ids.get(path);
    if (n === undefined) ids.set(path, (n = ids.size));
    return n;
  };
  const files: number[] = [];
  for (const [filename, e] of index.files) {
    files.push(id(filename), e.mtime, e.size, ...(e.cache ?? [-1, -1]), ...(e.code ?? [-1, -1]));
  }
  const resolved: (string | number)[] = [];
  for (const [key, filename] of index.resolved) {
    const cut = key.indexOf('\0');
    resolved.push(id(key.slice(0, cut)), key.slice(cut + 1), id(filename));
  }
  const stored: StoredIndex = {
    fingerprint: index.fingerprint,
    esmToCjs: index.esmToCjs,
    paths: [...ids.keys()],
    files,
    resolved,
  };
  return Buffer.from(JSON.stringify(stored));
}

function decodeIndex(json: string): Index {
  const stored = JSON.parse(json) as StoredIndex;
  const { paths, files: f, resolved: r } = stored;
  const files = new Map<string, Entry>();
  for (let i = 0; i < f.length; i += FILE_FIELDS) {
    const entry: Entry = { mtime: f[i + 1], size: f[i + 2] };
    if (f[i + 3] >= 0) entry.cache = [f[i + 3], f[i + 4]];
    if (f[i + 5] >= 0) entry.code = [f[i + 5], f[i + 6]];
    files.set(paths[f[i]], entry);
  }
  const resolved = new Map<string, string>();
  for (let i = 0; i < r.length; i += 3)
    resolved.set(`${paths[r[i] as number]}\0${r[i + 1]}`, paths[r[i + 2] as number]);
  return { fingerprint: stored.fingerprint, esmToCjs: stored.esmToCjs, files, resolved };
}

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
/**
 * Packages whose ESM is loaded as CommonJS. swc's `node` interop matches Node for every import of a CommonJS
 * module, but a default import of another translated module would get its whole exports object; Nest's packages
 * have no default exports (checked for @nestjs 12), so their translation is exact. Other ESM loads natively.
 */
const TRANSLATED_SCOPES = [`${sep}node_modules${sep}@nestjs${sep}`];
const ROOT = resolve(__dirname, '../../../..');
const NodeModule = Module as unknown as ModuleInternals;

class BootCache {
  readonly stats: BootCacheStats = { hits: 0, misses: 0, rejected: 0, translated: 0, resolvedFromCache: 0 };
  private index: Index | null = null;
  private data: Buffer | null = null;
  private readonly loaded = new Map<string, Loaded>();
  private readonly resolved = new Map<string, string>();
  private readonly packageType = new Map<string, boolean>();
  private dirty = false;
  private released = false;
  /** While swc loads: the translator is not part of the boot, so it is not cached. */
  private bypass = false;
  private esmToCjs: boolean;
  private swc: typeof import('@swc/core') | null | undefined;

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
      if (options !== undefined || !parent?.path || this.bypass || Module.isBuiltin(request)) {
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
      if (this.bypass) return originalJs(module, filename);
      const cached = this.index?.files.get(filename);
      const esm = cached ? cached.code !== undefined : this.isEsm(filename);
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
        if (old.cache) entry.cache = put(this.data.subarray(...old.cache));
        if (old.code) entry.code = put(this.data.subarray(...old.code));
        files.set(filename, entry);
      }
    }
    const index: Index = {
      fingerprint: this.fingerprint,
      files,
      resolved: new Map([...(this.index?.resolved ?? []), ...this.resolved]),
      esmToCjs: translate,
    };
    const header = encodeIndex(index);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      // Written aside and renamed: replicas starting together never read a half-written file.
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([length, header, ...chunks]));
      renameSync(tmp, this.file);
    } catch {
      // A read-only dist/ (an image, a shared mount) only means every start compiles; never a failed start.
    }
    this.loaded.clear();
  }

  /** Lets go of the cache file's bytes once the boot is over (idle RSS). */
  release(): void {
    this.released = true;
    this.data = null;
    this.index = null;
    this.loaded.clear();
    this.resolved.clear();
  }

  private read(): void {
    try {
      const buf = readFileSync(this.file);
      const length = buf.readUInt32LE(0);
      const index = decodeIndex(buf.subarray(4, 4 + length).toString('utf8'));
      if (index.fingerprint !== this.fingerprint) return;
      this.index = index;
      this.data = buf.subarray(4 + length);
    } catch {
      // No cache yet, or unreadable: this start loads the ordinary way and writes one.
    }
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
      code = current && entry.code ? this.data!.subarray(...entry.code).toString('utf8') : this.translate(filename);
      this.stats.translated++;
    } else {
      code = readFileSync(filename, 'utf8');
      if (code.startsWith('#!')) code = `//${code}`; // a bin script's hashbang, inside the wrapper
    }
    const cachedData = current && entry.cache ? this.data!.subarray(...entry.cache) : undefined;
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

  /** ESM → CommonJS with Node's interop (a default import of a CommonJS module is its module.exports). */
  private translate(filename: string): string {
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
  private isEsm(filename: string): boolean {
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

function canResolve(request: string): boolean {
  try {
    require.resolve(request);
    return true;
  } catch {
    return false;
  }
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
