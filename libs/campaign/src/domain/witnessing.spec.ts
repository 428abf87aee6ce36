import { decide } from './decide';
import { fold } from './evolve';
import { GameEvent } from './events';
import { CampaignState, emptyState, Message } from './state';
import { roundAt, witnessesOf } from './witnessing';

/** Plays commands through decide/evolve, as the runner does. */
function play(...commands: Parameters<typeof decide>[1][]): CampaignState {
  let state = emptyState('c');
  for (const command of commands) {
    const events = decide(state, command);
    state = fold(
      state,
      events.map((event: GameEvent, i) => ({
        event,
        version: state.version + i + 1,
        recordedAt: '2026-01-01T00:00:00.000Z',
      })),
    );
  }
  return state;
}

const base = () =>
  play(
    { type: 'CreateCampaign', name: 'c' },
    { type: 'PutLocation', locationId: 'inn', name: 'Inn' },
    { type: 'PutLocation', locationId: 'road', name: 'Road' },
    { type: 'PutNpc', npcId: 'mira', name: 'Mira', locationId: 'inn' },
    { type: 'PutNpc', npcId: 'jonas', name: 'Jonas', locationId: 'road' },
    { type: 'PutNpc', npcId: 'ghost', name: 'Ghost', locationId: null },
    { type: 'PutPlayer', playerId: 'aria', name: 'Aria' },
    { type: 'PutPlayer', playerId: 'bran', name: 'Bran' },
    { type: 'ChangeLocation', toLocationId: 'inn' },
  );

const msg = (m: Partial<Message>): Pick<Message, 'visibility' | 'audience' | 'locationId'> => ({
  visibility: 'public',
  audience: [],
  locationId: 'inn',
  ...m,
});

describe('witnessesOf (DESIGN §8)', () => {
  it('a public message is witnessed by the players (with the party) and the NPCs at its location', () => {
    expect(witnessesOf(base(), msg({}))).toEqual(['npc:mira', 'player:aria', 'player:bran']);
  });

  it('a public message elsewhere is witnessed by the NPCs there only, never by an NPC that is nowhere', () => {
    expect(witnessesOf(base(), msg({ locationId: 'road' }))).toEqual(['npc:jonas']);
    expect(witnessesOf(base(), msg({ locationId: null }))).toEqual([]);
  });

  it('a private message is witnessed by exactly its audience, wherever they are; a dm note by nobody', () => {
    expect(witnessesOf(base(), msg({ visibility: 'private', audience: ['aria', 'jonas'] }))).toEqual([
      'npc:jonas',
      'player:aria',
    ]);
    expect(witnessesOf(base(), msg({ visibility: 'dm' }))).toEqual([]);
  });

  it('before the party goes anywhere, players witness what happens nowhere', () => {
    const state = play({ type: 'CreateCampaign', name: 'c' }, { type: 'PutPlayer', playerId: 'aria', name: 'Aria' });
    expect(witnessesOf(state, msg({ locationId: null }))).toEqual(['player:aria']);
  });

  it('decide refuses a private message without audience or naming an unknown character (players count)', () => {
    const state = base();
    const record = (m: object) =>
      decide(state, {
        type: 'RecordMessages',
        now: '2026-01-01T00:00:00.000Z',
        messages: [{ role: 'dm', content: 'psst', ...m }],
      });
    expect(() => record({ visibility: 'private' })).toThrow(expect.objectContaining({ code: 'AUDIENCE_REQUIRED' }));
    expect(() => record({ visibility: 'private', audience: ['aria', 'nobody'] })).toThrow(
      expect.objectContaining({ code: 'AUDIENCE_NOT_FOUND' }),
    );
    expect(record({ visibility: 'private', audience: ['aria', 'mira'] })).toHaveLength(1);
  });

  it('roundAt counts the rounds ended before a version', () => {
    let state = base();
    const v0 = state.version;
    expect(roundAt(state, v0)).toBe(1);
    state = fold(state, [{ event: { type: 'RoundEnded', data: { round: 1 } }, version: v0 + 1, recordedAt: '' }]);
    state = fold(state, [{ event: { type: 'RoundEnded', data: { round: 2 } }, version: v0 + 2, recordedAt: '' }]);
    expect(state.round).toBe(3);
    expect(roundAt(state, v0 + 1)).toBe(1);
    expect(roundAt(state, v0 + 2)).toBe(2);
    expect(roundAt(state, v0 + 3)).toBe(3);
  });
});

describe('bible and glossary commands (DESIGN §8)', () => {
  it('a bible part over 32,000 characters is BIBLE_TOO_LARGE (counted in characters, not UTF-16 units)', () => {
    const state = base();
    expect(() => decide(state, { type: 'PutBible', text: 'x'.repeat(32_001) })).toThrow(
      expect.objectContaining({ code: 'BIBLE_TOO_LARGE' }),
    );
    expect(decide(state, { type: 'PutBible', text: '🐉'.repeat(32_000) })).toHaveLength(1);
  });

  it('PUT bible keeps an omitted dm-only part and appends nothing when unchanged', () => {
    const state = play({ type: 'CreateCampaign', name: 'c' }, { type: 'PutBible', text: 'Lore', dmOnly: 'Secret' });
    expect(state.bible).toEqual({ text: 'Lore', dmOnly: 'Secret' });
    expect(decide(state, { type: 'PutBible', text: 'Lore' })).toEqual([]);
    expect(decide(state, { type: 'PutBible', text: 'More lore' })).toEqual([
      { type: 'BibleUpdated', data: { text: 'More lore', dmOnly: 'Secret' } },
    ]);
  });

  it('glossary overrides are keyed case-insensitively; hiding an unknown term is 404 unless the worker coined it', () => {
    const state = play(
      { type: 'CreateCampaign', name: 'c' },
      { type: 'SetGlossaryTerm', term: 'Void-Chisel', definition: 'A blade.' },
    );
    expect(state.glossary).toEqual({ 'void-chisel': { term: 'Void-Chisel', definition: 'A blade.', hidden: false } });
    expect(decide(state, { type: 'SetGlossaryTerm', term: 'void-chisel', definition: 'A blade.' })).toEqual([]);
    expect(() => decide(state, { type: 'HideGlossaryTerm', term: 'Geometers', coined: false })).toThrow(
      expect.objectContaining({ code: 'GLOSSARY_TERM_NOT_FOUND' }),
    );
    expect(decide(state, { type: 'HideGlossaryTerm', term: 'Geometers', coined: true })).toHaveLength(1);
    const hidden = play(
      { type: 'CreateCampaign', name: 'c' },
      { type: 'SetGlossaryTerm', term: 'Void-Chisel', definition: 'A blade.' },
      { type: 'HideGlossaryTerm', term: 'VOID-CHISEL', coined: false },
    );
    expect(hidden.glossary!['void-chisel']).toEqual({ term: 'Void-Chisel', definition: 'A blade.', hidden: true });
    expect(decide(hidden, { type: 'HideGlossaryTerm', term: 'void-chisel', coined: false })).toEqual([]);
  });

  it('a speaker witnesses what it says, whatever the visibility: id, name or alias, case-insensitive, the whole string', () => {
    const state = base();
    expect(witnessesOf(state, { ...msg({ visibility: 'private', audience: ['aria'] }), speaker: 'Jonas' })).toEqual([
      'npc:jonas',
      'player:aria',
    ]);
    expect(witnessesOf(state, { ...msg({ visibility: 'dm' }), speaker: 'bran' })).toEqual(['player:bran']);
    expect(witnessesOf(state, { ...msg({ visibility: 'dm' }), speaker: 'MIRA' })).toEqual(['npc:mira']);
    // Not a part of a longer name, and no speaker witnesses nothing extra.
    expect(witnessesOf(state, { ...msg({ visibility: 'dm' }), speaker: 'Mira the Wise' })).toEqual([]);
    expect(witnessesOf(state, { ...msg({ visibility: 'dm' }), speaker: null })).toEqual([]);
  });
});
