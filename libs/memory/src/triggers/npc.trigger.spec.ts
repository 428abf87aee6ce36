import { mentionMatcher, mentions, npcWindow, SelectableMessage } from './npc.trigger';

const msg = (index: number, content: string, extra: Partial<SelectableMessage> = {}): SelectableMessage => ({
  index,
  content,
  speaker: null,
  npcIds: [],
  ...extra,
});
const mira = { id: 'mira', name: 'Mira', aliases: ['the barkeep', 'Red'] };

describe('mentions (id, name or alias as a whole word, case-insensitive)', () => {
  it.each([
    ['Mira pours a drink.', true],
    ['I wave at mira.', true],
    ['MIRA!', true],
    ["Mira's tavern is warm.", true],
    ['"Mira," she said.', true],
    ['—Mira—', true],
    ['Ask the barkeep.', true],
    ['THE BARKEEP nods.', true],
    ['Red smiles.', true],
    ['Miranda pours a drink.', false],
    ['Admira the view.', false],
    ['Mira_2 logs in.', false],
    ['Mira2 logs in.', false],
    ['the barkeeper leaves', false],
    ['Reddish light.', false],
    ['Nobody is here.', false],
  ])('%j → %s', (content, expected) => {
    expect(mentions(mira, msg(0, content))).toBe(expected);
  });

  it('matches the speaker field as well as the content', () => {
    expect(mentions(mira, msg(0, 'Welcome, traveller.', { speaker: 'Mira' }))).toBe(true);
    expect(mentions(mira, msg(0, 'Welcome.', { speaker: 'Miranda' }))).toBe(false);
  });

  it('matches the NPC id in npcIds even when the text does not name it', () => {
    expect(mentions(mira, msg(0, 'She nods.', { npcIds: ['mira'] }))).toBe(true);
    expect(mentions(mira, msg(0, 'She nods.', { npcIds: ['miranda'] }))).toBe(false);
  });

  it('treats names with regex characters and non-ASCII letters literally, as whole words', () => {
    const odd = { id: 'o', name: 'Mr. T (the Elder)', aliases: ['Zoë', 'C++'] };
    const match = mentionMatcher(odd);
    expect(match('Greet Mr. T (the Elder) now')).toBe(true);
    expect(match('Mr. Tx (the Elder)')).toBe(false);
    expect(match('Zoë waves')).toBe(true);
    expect(match('ZOË waves')).toBe(true);
    expect(match('Zoëlla waves')).toBe(false);
    expect(match('I write C++ daily')).toBe(true);
    expect(match('Mr T the Elder')).toBe(false);
  });

  it('ignores blank aliases instead of matching everything', () => {
    const npc = { id: 'x', name: 'Ash', aliases: ['', '   '] };
    expect(mentions(npc, msg(0, 'A quiet night.'))).toBe(false);
    expect(mentions(npc, msg(0, 'Ash arrives.'))).toBe(true);
  });
});

describe('npcWindow (present-and-mentioned, ±1 within the selection)', () => {
  it('is empty when the NPC is not mentioned in the selection', () => {
    expect(npcWindow(mira, [msg(0, 'Bob talks.'), msg(1, 'Miranda answers.')])).toEqual([]);
    expect(npcWindow(mira, [])).toEqual([]);
  });

  it('keeps each mentioning message plus the one before and after it', () => {
    const selection = [0, 1, 2, 3, 4, 5, 6].map((i) => msg(i, `line ${i}`));
    selection[3] = msg(3, 'Mira frowns.');
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([2, 3, 4]);
  });

  it('neighbours are taken within the selection, not by index (gaps from other locations)', () => {
    const selection = [msg(2, 'a'), msg(5, 'Mira speaks.'), msg(9, 'b'), msg(14, 'c')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([2, 5, 9]);
  });

  it('clips the window at the ends of the selection', () => {
    const selection = [msg(10, 'Mira first.'), msg(11, 'x'), msg(12, 'y'), msg(13, 'the barkeep last')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([10, 11, 12, 13]);
    expect(npcWindow(mira, [msg(1, 'x'), msg(2, 'y'), msg(3, 'z'), msg(4, 'Red here')]).map((m) => m.index)).toEqual([
      3, 4,
    ]);
  });

  it('merges overlapping windows without duplicates, in order', () => {
    const selection = [msg(0, 'a'), msg(1, 'Mira'), msg(2, 'Red'), msg(3, 'b'), msg(4, 'c'), msg(5, 'd')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([0, 1, 2, 3]);
  });

  it('returns the selection objects themselves (whatever extra fields they carry)', () => {
    const selection = [{ ...msg(0, 'Mira'), at: 't0' }];
    expect(npcWindow(mira, selection)[0]).toBe(selection[0]);
  });
});
