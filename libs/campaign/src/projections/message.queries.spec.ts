import { Database, insertRows } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { openSqliteFile, SqliteFile } from '../../../../test/support/sqlite-file';
import { CampaignReader } from '../campaign.reader';
import { Message, Visibility } from '../domain/state';
import { PUBLIC_WITNESS } from '../domain/witnessing';
import { MessageRecord, ToolCallRecord } from './message.entity';
import { toMessageRecord } from './message.mapper';
import { messageRounds, witnessCounts } from './message.queries';
import { MessageWitnessRecord } from './witness.entity';

const A = 'player:a';
const B = 'player:b';

/** index, visibility, role, round, content, witnesses (the projector's rows, written here by hand). */
const LOG: [number, Visibility, Message['role'], number, string, string[]][] = [
  [0, 'public', 'system', 1, 'You run a tavern game.', [A, B]],
  [1, 'dm', 'system', 1, 'The innkeeper is a spy.', []],
  [2, 'public', 'dm', 1, 'The Rusty Anchor is loud tonight.', [A]],
  [3, 'private', 'dm', 2, 'Only B hears the Whisperwood name.', [B]],
  [4, 'public', 'tool', 2, '{"hp": 7}', [A, B]],
  [5, 'public', 'dm', 3, 'A sign reads 100% FRESH_FISH.', [A]],
];

describe('message reads through seenBy (SQLite)', () => {
  let file: SqliteFile;
  let db: Database;
  let reader: CampaignReader;

  beforeAll(async () => {
    file = await openSqliteFile();
    db = file.db;
    reader = new CampaignReader(db, new TypeOrmEventStore(db));
    await db.transaction(async (m) => {
      const message = ([index, visibility, role, round, content]: (typeof LOG)[number]): Message => ({
        index,
        role,
        speaker: null,
        content,
        locationId: 'tavern',
        npcIds: [],
        at: '2026-03-01T10:00:00.000Z',
        round,
        visibility,
        audience: [],
        toolCalls: [],
        toolCallId: role === 'tool' ? 'call-1' : null,
        reasoning: null,
      });
      await insertRows(
        m,
        MessageRecord,
        LOG.map((l) => toMessageRecord('c1', message(l), l[0] + 1)),
      );
      const witnesses = LOG.flatMap(([index, , , , , keys]) =>
        keys.map((viewerId) => ({ campaignId: 'c1', viewerId, index })),
      );
      await insertRows(m, MessageWitnessRecord, witnesses);
      await insertRows(m, ToolCallRecord, [{ campaignId: 'c1', callId: 'call-1', name: 'get_hp', messageIndex: 2 }]);
    });
  });
  afterAll(() => file.close());

  const indexes = (list: { index: number }[]) => list.map((x) => x.index);

  it('a window holds what its audience saw: all (dm), public lines (public view), its own (a character)', async () => {
    expect(indexes((await reader.window('c1', { limit: 10 })).messages)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(indexes((await reader.window('c1', { limit: 10, seenBy: PUBLIC_WITNESS })).messages)).toEqual([0, 2, 4, 5]);
    expect(indexes((await reader.window('c1', { limit: 10, seenBy: A })).messages)).toEqual([0, 2, 4, 5]);
    expect(indexes((await reader.window('c1', { limit: 10, seenBy: B })).messages)).toEqual([0, 3, 4]);
  });

  it('a window from a round pins the first system message its audience saw, names the tools of results', async () => {
    const dm = await reader.window('c1', { limit: 10, fromRound: 2 });
    expect(indexes(dm.messages)).toEqual([3, 4, 5]);
    expect(dm.pinned?.index).toBe(0);
    expect(dm.toolNames).toEqual(new Map([['call-1', 'get_hp']]));
    const b = await reader.window('c1', { limit: 1, fromRound: 3, seenBy: B });
    expect(b.messages).toEqual([]);
    expect(b.pinned?.content).toBe('You run a tavern game.');
    expect((await reader.window('c1', { limit: 10, fromRound: 9 })).pinned?.index).toBe(0);
  });

  it('witnessed and the message list filter by the same rule, across chunks of bound values', async () => {
    const many = [...Array.from({ length: 1200 }, (_, i) => i + 100), 5, 3, 2];
    expect([...(await reader.witnessed('c1', A, many))].sort()).toEqual([2, 5]);
    expect([...(await reader.witnessed('c1', B, many))].sort()).toEqual([3]);
    expect([...(await reader.witnessed('c1', PUBLIC_WITNESS, many))].sort()).toEqual([2, 5]);
    expect(indexes(await reader.messages('c1', { after: 0, limit: 10, witnessedBy: B }))).toEqual([3, 4]);
  });

  it('counts in a transaction how many of the inputs each witness key saw, the public view included', async () => {
    const counts = await db.transaction((m) => witnessCounts(m, 'c1', [1, 2, 3, 3, 4]));
    expect(counts).toEqual(
      new Map([
        [A, 2],
        [B, 2],
        [PUBLIC_WITNESS, 2],
      ]),
    );
    expect(await db.transaction((m) => witnessCounts(m, 'c1', []))).toEqual(new Map());
  });

  it('dates message indexes by round, skipping the "no message" index -1', async () => {
    expect(await db.transaction((m) => messageRounds(m, 'c1', [-1, 3, 5, 99]))).toEqual(
      new Map([
        [3, 2],
        [5, 3],
      ]),
    );
  });

  it('finds the texts a viewer saw that contain a term, taking % and _ in the term literally', async () => {
    expect(await reader.contentsContaining('c1', ['whisperwood'], A)).toEqual([]);
    expect(await reader.contentsContaining('c1', ['whisperwood'], B)).toEqual(['Only B hears the Whisperwood name.']);
    expect(await reader.contentsContaining('c1', ['100% fresh_fish'], PUBLIC_WITNESS)).toEqual([
      'A sign reads 100% FRESH_FISH.',
    ]);
    expect(await reader.contentsContaining('c1', ['100% freshxfish'], PUBLIC_WITNESS)).toEqual([]);
  });
});
