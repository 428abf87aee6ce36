import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { createDataSource } from './data-source';

@Entity('probe')
class Probe {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 40 })
  label: string;
}

describe('createDataSource on SQLite: integers are bound, not pasted into the SQL', () => {
  let dir: string;
  let ds: DataSource;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lorekeeper-ds-'));
    ds = createDataSource({
      database: { type: 'sqlite', path: join(dir, 'probe.db') },
      entities: [Probe],
      migrations: [],
      synchronize: true,
    });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores and compares integers exactly as before, in integer and text columns alike', async () => {
    await ds
      .createQueryBuilder()
      .insert()
      .into(Probe)
      .values([
        { id: 'a', version: 3, label: 4 as unknown as string },
        { id: 'b', version: 9_007_199_254_740_991, label: 'x' },
      ])
      .execute();
    await ds
      .createQueryBuilder()
      .update(Probe)
      .set({ version: 4 })
      .where('id = :id AND version = :v', { id: 'a', v: 3 })
      .execute();
    const rows = await ds.query('SELECT id, version, typeof(version) AS t, label FROM probe ORDER BY id');
    expect(rows).toEqual([
      { id: 'a', version: 4, t: 'integer', label: '4' },
      { id: 'b', version: 9_007_199_254_740_991, t: 'integer', label: 'x' },
    ]);
    const found = await ds
      .getRepository(Probe)
      .createQueryBuilder('p')
      .where('p.version IN (:...vs) AND p.version > :min', { vs: [4, 5], min: 1.5 })
      .getMany();
    expect(found.map((p) => p.id)).toEqual(['a']);
  });

  it('gives the same SQL text for different versions, so the statement is prepared once', () => {
    const sql = (v: number) =>
      ds
        .createQueryBuilder()
        .update(Probe)
        .set({ version: v + 1 })
        .where('id = :id AND version = :v', { id: 'a', v })
        .getQueryAndParameters()[0];
    expect(sql(3)).toBe(sql(4));
    expect(sql(3)).not.toMatch(/\d/);
  });
});
