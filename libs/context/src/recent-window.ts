import type { CampaignState, Message } from '@app/campaign';
import { oneLine } from './format';
import { clockOf, dateOf, Dated } from './story-dates';

/** Tools whose results are snapshots of game state (DESIGN §7): only the newest result of each is worth a place. */
export const DEFAULT_SNAPSHOT_TOOLS: readonly string[] = [
  'get_status',
  'get_ship',
  'get_cargo',
  'get_system',
  'get_poi',
  'get_nearby',
  'get_map',
];

export interface Compacted<M extends Message> {
  kept: M[];
  /** Older results of a snapshot tool, oldest first. */
  compacted: M[];
}

/**
 * Snapshot compaction (DESIGN §7), pure: of the tool results whose call resolves (through
 * `toolNames`: call id → tool name) to a snapshot tool, only the newest per tool stays. Results of
 * any other tool, or whose call cannot be resolved, are never removed; order is kept.
 */
export function compactSnapshots<M extends Message>(
  window: M[],
  toolNames: ReadonlyMap<string, string>,
  snapshotTools: ReadonlySet<string>,
): Compacted<M> {
  const seen = new Set<string>();
  const drop = new Set<M>();
  for (let i = window.length - 1; i >= 0; i--) {
    const tool = toolOf(window[i], toolNames);
    if (tool === undefined || !snapshotTools.has(tool)) continue;
    if (seen.has(tool)) drop.add(window[i]);
    else seen.add(tool);
  }
  return { kept: window.filter((m) => !drop.has(m)), compacted: window.filter((m) => drop.has(m)) };
}

const toolOf = (m: Message, toolNames: ReadonlyMap<string, string>) =>
  m.role === 'tool' && m.toolCallId ? toolNames.get(m.toolCallId) : undefined;

/**
 * One Recent Messages line: `[<index>] <speaker, else role>: <content on one line>`; a tool result
 * is labelled `tool <tool name>`, an assistant's calls follow as `[calls <name>#<call id>, …]`. `content` is the
 * message's content on one line, when the caller has it already. `numbered: false` (a player's or NPC's context,
 * DESIGN §8 "A viewer's context shows no holes") leaves the index out: its gaps would count the hidden lines.
 */
export function recentLine(
  m: Message,
  toolNames: ReadonlyMap<string, string>,
  mark = '',
  content = oneLine(m.content),
  numbered = true,
): string {
  const tool = toolOf(m, toolNames);
  const label = m.role === 'tool' ? (tool ? `tool ${tool}` : 'tool') : (m.speaker ?? m.role);
  const calls = m.toolCalls.length ? `[calls ${m.toolCalls.map((c) => `${c.name}#${c.id}`).join(', ')}]` : '';
  const body = [content, calls].filter(Boolean).join(' ');
  return `${numbered ? `[${m.index}] ` : ''}${mark ? `${mark} ` : ''}${oneLine(label)}: ${body}`;
}

/**
 * §8 secrets marked, before the speaker: `(private: Aria, Mira Vell)` for a whisper (its audience by name), `(dm only)`
 * for a dm-only note, nothing for a public line.
 */
export function secretMark(state: CampaignState, m: Pick<Message, 'visibility' | 'audience'>): string {
  if (m.visibility === 'dm') return '(dm only)';
  if (m.visibility !== 'private') return '';
  const name = (id: string) => oneLine(state.players?.[id]?.name ?? state.npcs[id]?.name ?? id);
  return `(private: ${m.audience.map(name).join(', ')})`;
}

/**
 * §8 Recent Messages' group header: `round 3 · The Gallery · Day 3 of Frostmoon` — the place left out for a message
 * without a location, the date (story-dates.ts, by the campaign's clock) when there is none.
 */
export function roundAndPlace(state: CampaignState, m: Pick<Message, 'round' | 'locationId'> & Dated): string {
  const place = m.locationId === null ? null : (state.locations[m.locationId]?.name ?? m.locationId);
  const date = dateOf(m, clockOf(state));
  return [`round ${m.round}`, place === null ? null : oneLine(place), date === null ? null : oneLine(date)]
    .filter((p) => p !== null)
    .join(' · ');
}
