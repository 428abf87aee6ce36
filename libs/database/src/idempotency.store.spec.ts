import { DomainError } from '@app/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { Database, isUniqueViolation } from './database';
import { IdempotencyRecord } from './idempotency.entity';
import { IdempotencyStore } from './idempotency.store';

const AT = '2026-03-01T10:00:00.000Z';

describe('IdempotencyStore on SQLite: the first answer to a key, bound to its request', () => {
  let dir: string;
  let ds: DataSource;
  let db: Database;
  const store = new IdempotencyStore();
  const idem = { scope: 'c1@key-a', key: 'k-1', requestHash: 'h-1' };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lorekeeper-idem-'));
    ds = createDataSource({
      database: { type: 'sqlite', path: join(dir, 'db.sqlite') },
      entities: [IdempotencyRecord],
      migrations: [],
      synchronize: true,
    });
    await ds.initialize();
    db = new Database(ds);
  });
  afterEach(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has no answer for a new key, then replays the recorded body for the same request', async () => {
    expect(await db.transaction((m) => store.replay(m, idem))).toBeUndefined();
    await db.transaction((m) => store.record(m, idem, 201, { id: 'b-1', version: 3 }, AT));
    expect(await db.transaction((m) => store.replay(m, idem))).toEqual({ id: 'b-1', version: 3 });
    const row = await db.read((m) =>
      m.getRepository(IdempotencyRecord).findOneByOrFail({ scope: idem.scope, key: idem.key }),
    );
    expect([row.status, row.createdAt]).toEqual([201, AT]);
  });

  it('refuses the same key with another request (422 IDEMPOTENCY_KEY_REUSED) and keeps scopes apart', async () => {
    await db.transaction((m) => store.record(m, idem, 0, { version: 1 }, AT));
    const err = await db.transaction((m) => store.replay(m, { ...idem, requestHash: 'h-2' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await db.transaction((m) => store.replay(m, { ...idem, scope: 'c1@key-b' }))).toBeUndefined();
  });

  it('lets a second record of one key fail as a unique violation (the writers retry and replay)', async () => {
    await db.transaction((m) => store.record(m, idem, 0, { version: 1 }, AT));
    const err = await db.transaction((m) => store.record(m, idem, 0, { version: 2 }, AT)).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
  });
});
