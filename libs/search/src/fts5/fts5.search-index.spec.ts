import { createDataSource, Database } from '@app/database';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { searchIndexContract } from '../testing/search-index.contract';
import { FTS5_DDL } from './fts5.schema';
import { Fts5SearchIndex } from './fts5.search-index';

let dir: string;
let ds: DataSource;

searchIndexContract(
  'FTS5 on a SQLite file',
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'lorekeeper-fts5-'));
    ds = createDataSource({ database: { type: 'sqlite', path: join(dir, 'search.db') }, entities: [], migrations: [] });
    await ds.initialize();
    for (const sql of FTS5_DDL) await ds.query(sql);
    const db = new Database(ds);
    return { db, index: new Fts5SearchIndex(db), make: (options) => new Fts5SearchIndex(db, options) };
  },
  async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  },
);
