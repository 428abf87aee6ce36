import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, readCacheFile, writeCacheFile } from './boot-cache.store';

/** The boot cache's file: an index, then a data section read a range at a time (boot-cache.store.ts). */
describe('boot cache file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lk-boot-store-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const index = (fingerprint: string): Index => ({
    fingerprint,
    esmToCjs: false,
    files: new Map([
      ['/app/a.js', { mtime: 1, size: 10, cache: [0, 5] }],
      ['/app/b.mjs', { mtime: 2, size: 20, cache: [5, 8], code: [8, 14] }],
    ]),
    resolved: new Map([['/app\0./a', '/app/a.js']]),
  });
  const write = (file: string) =>
    writeCacheFile(file, index('fp-1'), [Buffer.from('AAAAA'), Buffer.from('BBB'), Buffer.from('code-b')]);

  it('gives back the index and each range as it was written, read when asked', () => {
    const file = join(dir, 'cache.bin');
    write(file);
    const found = readCacheFile(file, 'fp-1');
    expect(found?.index).toEqual(index('fp-1'));
    const data = found!.data;
    expect(data.read([8, 14])?.toString()).toBe('code-b');
    expect(data.read([0, 5])?.toString()).toBe('AAAAA');
    expect(data.read([5, 8])?.toString()).toBe('BBB');
    expect(data.read([10, 40])).toBeNull(); // past the end: the file loads the ordinary way
    data.close();
    expect(data.read([0, 5])).toBeNull();
  });

  it('is no cache for another fingerprint, a missing file or a truncated one', () => {
    const file = join(dir, 'cache.bin');
    expect(readCacheFile(file, 'fp-1')).toBeNull();
    write(file);
    expect(readCacheFile(file, 'fp-2')).toBeNull();
    writeCacheFile(file, index('fp-1'), []);
    expect(readCacheFile(file, 'fp-1')?.data.read([0, 5])).toBeNull();
  });

  it('keeps reading the file it opened when a new one is renamed into its place', () => {
    const file = join(dir, 'cache.bin');
    write(file);
    const data = readCacheFile(file, 'fp-1')!.data;
    writeCacheFile(file, index('fp-1'), [Buffer.from('ZZZZZ')]);
    expect(data.read([0, 5])?.toString()).toBe('AAAAA');
    data.close();
  });
});
