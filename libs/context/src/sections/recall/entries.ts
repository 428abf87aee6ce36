import { CampaignReader, CampaignState, ClockSetting, Horizon, StoredMessage } from '@app/campaign';
import { cutText } from '@app/common';
import { GlossaryEntry, MemoryReader } from '@app/memory';
import { SearchHit } from '@app/search';
import { SectionEntry } from '../../context.types';
import { oneLine, toDay } from '../../format';
import { secretMark } from '../../recent-window';
import { relativeDatesOf } from '../../relative-dates';
import { clockOf, datingMessages, roundAndDate } from '../../story-dates';
import { Candidate } from './rank';
import { wordsOf } from './terms';

/** A recalled message is cut here: one long speech must not crowd out the other hits. */
const MAX_RECALLED_CHARS = 1000;

/**
 * A recalled message: `Aria: …` under its group `round 2 · 1 May 2026`. The text form prints Recall as a timeline with
 * one header per round and day rather than a date on every line — ~10 tokens a line that buy more hits per budget.
 */
export function messageEntry(m: StoredMessage, state: CampaignState): SectionEntry {
  const text = oneLine(m.content);
  const cut = cutText(text, MAX_RECALLED_CHARS);
  // Read out of its day, "yesterday" needs the date it meant (from the message's story time).
  const clock = clockOf(state);
  const dated = relativeDatesOf(cut, m, clock);
  // §8: every view reads which recalled lines are secret.
  const mark = secretMark(state, m);
  return {
    ref: String(m.index),
    createdAt: m.at,
    group: roundAndDate(m, clock),
    seq: m.index,
    text: `${mark ? `${mark} ` : ''}${m.speaker ?? m.role}: ${dated}`,
    body: text,
  };
}

/** Where memory hits are read from, and for whom. */
export interface MemoryScope {
  campaigns: CampaignReader;
  memories: MemoryReader;
  campaignId: string;
  at: Horizon;
  witness: string | null;
  clock: ClockSetting;
}

/** Memory hits the viewer may read, each dated by the last message it summarizes (§8 story time). */
export async function memoryCandidates(scope: MemoryScope, hits: SearchHit[]): Promise<Candidate[]> {
  if (hits.length === 0) return [];
  const { campaigns, memories, campaignId, at, witness, clock } = scope;
  const refs = hits.map((h) => String(h.ref));
  const summaries = new Map((await memories.byIds(campaignId, refs, witness ?? undefined, at)).map((m) => [m.id, m]));
  const through = [...summaries.values()].map((m) => m.throughMessageIndex);
  const dates = await datingMessages(campaigns, campaignId, through);
  const top = hits[0].score || 1;
  return hits.flatMap((h) => {
    const m = summaries.get(String(h.ref));
    if (!m) return [];
    const last = dates.get(m.throughMessageIndex);
    // §8: dated by the last message of its selection, by the campaign's clock.
    const when = last
      ? roundAndDate(last, clock)
      : [h.round !== null ? `round ${h.round}` : null, clock === 'none' ? null : toDay(m.createdAt)]
          .filter(Boolean)
          .join(' · ');
    const text = `- [${when}] Memory (${m.scope} ${m.subjectId}): ${oneLine(m.summary)}`;
    const entry = { ref: m.id, subjectId: m.subjectId, createdAt: m.createdAt, text, revision: m.revision };
    return [{ entry: { ...entry, origin: m.origin }, score: h.score / top, kind: 1 }];
  });
}

/**
 * The glossary is small and already loaded: its entries are ranked here by the query's words (term words weigh
 * double).
 */
export function glossaryCandidates(entries: GlossaryEntry[], held: Set<string>, words: string[]): Candidate[] {
  const scored = entries
    .filter((e) => !held.has(e.term.toLowerCase()))
    .map((e) => {
      const term = new Set(wordsOf(e.term));
      const definition = new Set(wordsOf(e.definition));
      return { e, score: words.reduce((n, w) => n + (term.has(w) ? 2 : definition.has(w) ? 1 : 0), 0) };
    })
    .filter((x) => x.score > 0);
  const top = Math.max(1, ...scored.map((x) => x.score));
  return scored.map(({ e, score }) => ({
    entry: {
      ref: `glossary:${e.term}`,
      createdAt: e.createdAt ?? undefined,
      // No date: a term's is the worker's clock, not the story's (§8 story time).
      text: `- Glossary — ${oneLine(e.term)}: ${oneLine(e.definition)}`,
    },
    score: score / top,
    kind: 2,
  }));
}
