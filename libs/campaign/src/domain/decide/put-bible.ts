import { invalid } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

/** Each part of the bible, in characters (DESIGN §8). */
export const BIBLE_MAX_CHARS = 32_000;

export function putBible(state: CampaignState, command: CommandOf<'PutBible'>): GameEvent[] {
  const dmOnly = command.dmOnly ?? state.bible?.dmOnly ?? '';
  for (const [part, text] of [
    ['text', command.text],
    ['dmOnly', dmOnly],
  ] as const) {
    const chars = [...text].length;
    if (chars > BIBLE_MAX_CHARS)
      throw invalid('BIBLE_TOO_LARGE', `bible ${part} has ${chars} characters; at most ${BIBLE_MAX_CHARS}`);
  }
  if (state.bible && state.bible.text === command.text && state.bible.dmOnly === dmOnly) return [];
  return [{ type: 'BibleUpdated', data: { text: command.text, dmOnly } }];
}
