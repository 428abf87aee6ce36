import { DomainError } from '@app/common';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A line of an NDJSON file with its 1-based number (blank lines are skipped but counted). */
export interface NumberedLine {
  line: number;
  text: string;
}

/** The file's non-blank lines, read as a stream (constant memory, whatever its size). */
export async function* fileLines(path: string): AsyncGenerator<NumberedLine> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    reader.close();
    input.destroy();
  }
}

export const tooLarge = (limit: number): DomainError =>
  new DomainError('too_large', 'BODY_TOO_LARGE', `the export is larger than IMPORT_MAX_BYTES (${limit} bytes)`);

/** A temporary copy of a request body, removed by `cleanup`. */
export interface SpooledBody {
  path: string;
  bytes: number;
  cleanup(): Promise<void>;
}

/**
 * Writes a request body to a temporary file, refusing it (413) past `limit` bytes: the import then reads it twice
 * (validate, apply) without holding it in memory, and its transaction never waits on the client's upload.
 */
export async function spool(body: Readable, limit: number): Promise<SpooledBody> {
  const dir = await mkdtemp(join(tmpdir(), 'lorekeeper-import-'));
  const path = join(dir, 'import.ndjson');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(bytes > limit ? tooLarge(limit) : null, chunk);
    },
  });
  try {
    await pipeline(body, count, createWriteStream(path));
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { path, bytes, cleanup };
}
