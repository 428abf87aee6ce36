import type { CampaignReader, CampaignState, ClockSetting, Message } from '@app/campaign';
import { toDay } from './format';

/** What dating a message reads: its story time, its `at`, whether the server filled that, its round. */
export type Dated = Pick<Message, 'at' | 'round' | 'storyTime' | 'atFilled'>;

/** The campaign's `clock` (§8): absent = story. */
export const clockOf = (state: Pick<CampaignState, 'settings'>): ClockSetting => state.settings.clock ?? 'story';

/**
 * §8 story time: the date a context prints for a message, by the campaign's clock — `story`: its story time, else its
 * client `at` as a day (`14 March 1247`); `wall`: the client `at` only; `none`: nothing. A server-filled `at` is never
 * printed. Null = no date (a header says only its round).
 */
export function dateOf(m: Dated, clock: ClockSetting): string | null {
  if (clock === 'none') return null;
  const wall = m.atFilled ? null : toDay(m.at);
  return clock === 'wall' ? wall : (m.storyTime ?? wall);
}

/** `round 3 · Day 3 of Frostmoon`, or `round 3` without a date: Recall's group header and a memory's fallback. */
export const roundAndDate = (m: Dated, clock: ClockSetting): string => {
  const date = dateOf(m, clock);
  return date === null ? `round ${m.round}` : `round ${m.round} · ${date}`;
};

/**
 * The messages memories are dated by (§8: the last message of each one's selection), by index. Read without the
 * retraction filter: a memory revised after its last message was retracted still has a date.
 */
export async function datingMessages(
  campaigns: Pick<CampaignReader, 'messagesByIndex'>,
  campaignId: string,
  indexes: number[],
): Promise<Map<number, Dated>> {
  const wanted = [...new Set(indexes.filter((i) => i >= 0))];
  const found = await campaigns.messagesByIndex(campaignId, wanted);
  return new Map(found.map((m) => [m.index, m]));
}
