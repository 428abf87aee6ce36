import { CampaignReader, CampaignStateCache, emptyState, fold, GameEvent } from '@app/campaign';
import { Database } from '@app/database';
import { gameStream, TypeOrmEventStore } from '@app/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistorySeeder } from './history-seeder';

describe('HistorySeeder', () => {
  it('writes the state rows the projector would: the state now and at every 97th version is the fold of the stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lk-seeder-'));
    const seeder = await HistorySeeder.open(join(dir, 'lk.db'));
    try {
      const seeded = seeder.seed({ campaignId: 's1', events: 3000, worker: 'processed' });
      const indexed = await seeder.indexSearch();
      expect(indexed.messages).toBe(seeded.messages);
      expect(indexed.memories).toBe(seeded.memories);
      const ds = (seeder as unknown as { ds: ConstructorParameters<typeof Database>[0] }).ds;
      const db = new Database(ds);
      const store = new TypeOrmEventStore(db);
      const reader = new CampaignReader(db, store, new CampaignStateCache());
      const events = await store.readStream(gameStream('s1'));
      const folded = (v: number) =>
        fold(
          emptyState('s1'),
          events.slice(0, v).map((e) => ({
            event: { type: e.type, data: e.data } as GameEvent,
            version: e.version,
            recordedAt: e.recordedAt,
          })),
        );
      const now = (await reader.find('s1'))!.state;
      expect(now).toEqual({ ...folded(seeded.events), timeline: 1, rewinds: [] });
      for (let v = 1; v <= seeded.events; v += 97)
        expect(await reader.stateAt('s1', v)).toEqual({ ...folded(v), timeline: 1 });
    } finally {
      await seeder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
