import type { CampaignReader, ClockSetting } from '@app/campaign';
import type { MemoryView } from '@app/memory';
import { SectionEntry, SectionInput } from '../context.types';
import { oneLine, toDay } from '../format';
import { clockOf, datingMessages, dateOf, Dated } from '../story-dates';

/**
 * §8 a memory line, dated in the story's time: `- <date of its last message> — <summary>`, `- round 3 — …` when that
 * message has no date, `- <summary>` with clock `none`.
 */
export function memoryLine(m: MemoryView, last: Dated | undefined, clock: ClockSetting): string {
  if (clock === 'none') return `- ${oneLine(m.summary)}`;
  const date = last ? (dateOf(last, clock) ?? `round ${last.round}`) : toDay(m.createdAt);
  return `- ${oneLine(date)} — ${oneLine(m.summary)}`;
}

/** Memories (given newest first) as entries oldest → newest, each dated by the last message of its selection. */
export async function memoryEntries(
  newestFirst: MemoryView[],
  campaigns: Pick<CampaignReader, 'messagesByIndex'>,
  { request, snapshot }: Pick<SectionInput, 'request' | 'snapshot'>,
): Promise<SectionEntry[]> {
  const clock = clockOf(snapshot.state);
  const indexes = newestFirst.map((m) => m.throughMessageIndex);
  const last = await datingMessages(campaigns, request.campaignId, indexes);
  return [...newestFirst].reverse().map((m) => ({
    ref: m.id,
    subjectId: m.subjectId,
    createdAt: m.createdAt,
    text: memoryLine(m, last.get(m.throughMessageIndex), clock),
    revision: m.revision,
    origin: m.origin,
  }));
}
