import { closeSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

// The boot cache's file (boot-cache.ts): a 4-byte header length, the index as JSON, then the data section (code
// caches and ESM translations, addressed by byte ranges from the index).

export interface Entry {
  /** mtimeMs and size of the source when cached. */
  mtime: number;
  size: number;
  /** Byte range of the V8 code cache in the file's data section. */
  cache?: [number, number];
  /** Byte range of the CommonJS translation of an ESM file. */
  code?: [number, number];
}

export interface Index {
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

export function encodeIndex(index: Index): Buffer {
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

export function decodeIndex(json: string): Index {
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

/**
 * An open cache file's data section, read one range at a time as files ask for them. The section holds what every
 * configuration and first request loaded (12 MB once a start had counted tokens, 4.5 MB of it the tokenizer, which
 * loads after the boot), most of which a given start never asks for. Read whole, or a megabyte at a time, what was
 * read stayed in the start's RSS until a major GC: idle RSS 148–153 MB whole, 143–145 MB in chunks, 131–133 MB a
 * range at a time (the small buffers die in the next scavenge). The ≈ 2,300 reads cost ≈ 5–10 ms of a 370 ms start.
 */
export class CacheData {
  private fd: number | null;

  constructor(
    fd: number,
    private readonly base: number,
  ) {
    this.fd = fd;
  }

  /** The bytes of `range` (offsets in the data section); null once closed or past the file's end. */
  read([start, end]: [number, number]): Buffer | null {
    return this.fd === null ? null : readAt(this.fd, end - start, this.base + start);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The `length` bytes at `position`, or null if the file ends before them. */
function readAt(fd: number, length: number, position: number): Buffer | null {
  const buf = Buffer.allocUnsafe(length);
  return readSync(fd, buf, 0, length, position) === length ? buf : null;
}

/** The `length` bytes at `position` of the header; a file that ends before them is no cache. */
function readExactly(fd: number, length: number, position: number): Buffer {
  const buf = readAt(fd, length, position);
  if (!buf) throw new Error('short boot cache file');
  return buf;
}

/** The cache file's index and its open data section, or null when there is none, it is unreadable, or made for
 * another fingerprint (node, build, packages). The file stays open until `data.close()`. */
export function readCacheFile(file: string, fingerprint: string): { index: Index; data: CacheData } | null {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const length = readExactly(fd, 4, 0).readUInt32LE(0);
    const index = decodeIndex(readExactly(fd, length, 4).toString('utf8'));
    if (index.fingerprint !== fingerprint) {
      closeSync(fd);
      return null;
    }
    return { index, data: new CacheData(fd, 4 + length) };
  } catch {
    if (fd !== null) closeSync(fd);
    return null; // no cache yet, or unreadable: this start loads the ordinary way and writes one
  }
}

/** Writes the cache file aside and renames it into place: replicas starting together never read half a file. */
export function writeCacheFile(file: string, index: Index, chunks: Buffer[]): void {
  const header = encodeIndex(index);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([length, header, ...chunks]));
    renameSync(tmp, file);
  } catch {
    // A read-only dist/ (an image, a shared mount) only means every start compiles; never a failed start.
  }
}
