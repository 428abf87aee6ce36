import { LocalSummarizer, Summarizer, SummaryResult, TranscriptLine } from '@app/summarizer';
import { HttpResult, TestApp } from './test-app';

/**
 * The leak suite's campaign (issue 18): one marker word per message, so the markers a caller sees say exactly which
 * texts reached it. Who witnessed what is written down here from DESIGN §8, independently of the service.
 */

/** Every marker: `MK` + capitals, never a prefix of another. */
export const MARKER = /\bMK[A-Z]+\b/g;
export const markersIn = (text: string): Set<string> => new Set(text.match(MARKER) ?? []);
export const BIBLE_PUBLIC = 'MKBIBLEPUB';
export const BIBLE_DM = 'MKBIBLEDM';
export const FACT = 'MKFACTWAR';

export type Viewer = 'player:aria' | 'npc:mira' | 'npc:vex';
/** Each viewer's registered name (its id is the part after the colon; no aliases). */
export const NAME_OF: Record<Viewer, string> = { 'player:aria': 'Aria', 'npc:mira': 'Mira', 'npc:vex': 'Vex' };

export interface ScriptedMessage {
  marker: string;
  round: 1 | 2;
  role: 'player' | 'npc' | 'dm' | 'narrator';
  speaker?: string;
  locationId: 'hall' | 'vault';
  visibility: 'public' | 'private' | 'dm';
  audience?: string[];
  /** A glossary term the message also names (`… at the <place> here.`), so a term can be used by several messages. */
  place?: string;
  /**
   * The viewers DESIGN §8 says witness it: players with the party, NPCs where they stand, a private audience, and
   * the speaker ("a speaker witnesses what it says": id, name or alias, whole string, case-insensitive, whatever
   * the visibility).
   */
  witnesses: Viewer[];
}

// The party is in the hall in round 1 and in the vault in round 2; Mira stays in the hall, Vex in the vault.
// "Obsidian Gate" is coined in a dm-only note and used again in public in round 2: whoever witnessed that use knows it.
export const SCRIPT: ScriptedMessage[] = [
  {
    marker: 'MKHALLPUBA',
    round: 1,
    role: 'player',
    speaker: 'Aria',
    locationId: 'hall',
    visibility: 'public',
    witnesses: ['player:aria', 'npc:mira'],
  },
  {
    marker: 'MKHALLPUBB',
    round: 1,
    role: 'npc',
    speaker: 'Mira',
    locationId: 'hall',
    visibility: 'public',
    witnesses: ['player:aria', 'npc:mira'],
  },
  // Mira whispers to Aria: Aria is the audience, Mira the speaker.
  {
    marker: 'MKWHISPERARIA',
    round: 1,
    role: 'npc',
    speaker: 'Mira',
    locationId: 'hall',
    visibility: 'private',
    audience: ['aria'],
    witnesses: ['player:aria', 'npc:mira'],
  },
  {
    marker: 'MKWHISPERMIRA',
    round: 1,
    role: 'dm',
    locationId: 'hall',
    visibility: 'private',
    audience: ['mira'],
    witnesses: ['npc:mira'],
  },
  {
    marker: 'MKDMNOTEONE',
    round: 1,
    role: 'dm',
    locationId: 'hall',
    visibility: 'dm',
    place: 'Obsidian Gate',
    witnesses: [],
  },
  // A dm-only line Mira speaks (speaker in capitals): she witnesses it, the players do not, and no memory holds it.
  {
    marker: 'MKDMBYMIRA',
    round: 1,
    role: 'npc',
    speaker: 'MIRA',
    locationId: 'hall',
    visibility: 'dm',
    witnesses: ['npc:mira'],
  },
  {
    marker: 'MKVAULTPUBX',
    round: 1,
    role: 'npc',
    speaker: 'Vex',
    locationId: 'vault',
    visibility: 'public',
    witnesses: ['npc:vex'],
  },
  {
    marker: 'MKVAULTPUBC',
    round: 2,
    role: 'player',
    speaker: 'Aria',
    locationId: 'vault',
    visibility: 'public',
    witnesses: ['player:aria', 'npc:vex'],
  },
  // Vex whispers to Aria: Aria is the audience, Vex the speaker.
  {
    marker: 'MKWHISPERVEX',
    round: 2,
    role: 'npc',
    speaker: 'Vex',
    locationId: 'vault',
    visibility: 'private',
    audience: ['aria'],
    witnesses: ['player:aria', 'npc:vex'],
  },
  { marker: 'MKDMNOTETWO', round: 2, role: 'dm', locationId: 'vault', visibility: 'dm', witnesses: [] },
  {
    marker: 'MKVAULTPUBD',
    round: 2,
    role: 'narrator',
    locationId: 'vault',
    visibility: 'public',
    place: 'Obsidian Gate',
    witnesses: ['player:aria', 'npc:vex'],
  },
];

/** The text a scripted message is recorded with (its marker, and its place when it names one). */
export const contentOf = (m: ScriptedMessage): string =>
  `${m.speaker ?? 'The narrator'} speaks of ${m.marker}${m.place ? ` at the ${m.place}` : ''} here.`;

export const ALL_MESSAGES = new Set(SCRIPT.map((m) => m.marker));
export const PUBLIC_MESSAGES = new Set(SCRIPT.filter((m) => m.visibility === 'public').map((m) => m.marker));
export const DM_ONLY_MESSAGES = new Set(SCRIPT.filter((m) => m.visibility === 'dm').map((m) => m.marker));
export const witnessedBy = (viewer: Viewer, round?: 1 | 2): Set<string> =>
  new Set(
    SCRIPT.filter((m) => m.witnesses.includes(viewer) && (round === undefined || m.round === round)).map(
      (m) => m.marker,
    ),
  );

/**
 * A mock summarizer that repeats its input: every memory, "Previously" and definition carries exactly the markers of
 * the messages it was built from, so a marker's presence shows that its message was an input.
 */
export class EchoSummarizer implements Summarizer {
  readonly name = 'echo';
  private readonly local = new LocalSummarizer();
  private echo(messages: TranscriptLine[], previous?: string | null): Promise<SummaryResult> {
    const text = [previous ?? '', ...messages.map((m) => m.content)].join(' ').trim() || 'Nothing happened.';
    return Promise.resolve({ text, inputTokens: 1, outputTokens: 1 });
  }
  summarizeLocation(input: { messages: TranscriptLine[] }) {
    return this.echo(input.messages);
  }
  summarizeNpc(input: { messages: TranscriptLine[] }) {
    return this.echo(input.messages);
  }
  summarizeWorld(input: { messages: TranscriptLine[] }) {
    return this.echo(input.messages);
  }
  summarizeRolling(input: { messages: TranscriptLine[]; previousSummary: string | null }) {
    return this.echo(input.messages, input.previousSummary);
  }
  defineTerm(input: Parameters<Summarizer['defineTerm']>[0], signal?: AbortSignal) {
    return this.local.defineTerm(input, signal);
  }
}

/** Builds the scripted campaign `cid` through the API with `headers` (a full key); waits for the worker. */
export async function buildLeakCampaign(
  t: TestApp,
  cid: string,
  o: { perRoleMemory: boolean; headers?: Record<string, string> },
): Promise<void> {
  const ok = async (method: string, path: string, body?: unknown): Promise<HttpResult> => {
    const res = await t.http(method, `/v1/campaigns/${cid}${path}`, body, o.headers);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res;
  };
  const created = await t.http(
    'POST',
    '/v1/campaigns',
    { id: cid, name: 'Leak keep', perRoleMemory: o.perRoleMemory },
    o.headers,
  );
  if (created.status !== 201) throw new Error(`create → ${created.status} ${created.text}`);
  await ok('PUT', '/locations/hall', { name: 'Hall' });
  await ok('PUT', '/locations/vault', { name: 'Vault' });
  await ok('PUT', '/players/aria', { name: 'Aria' });
  await ok('PUT', '/npcs/mira', { name: 'Mira', locationId: 'hall' });
  await ok('PUT', '/npcs/vex', { name: 'Vex', locationId: 'vault' });
  await ok('PUT', '/quests/relic', { name: 'Relic', objectives: [{ id: 'map', name: 'Find the map' }] });
  await ok('PUT', '/bible', { text: `The keep guards ${BIBLE_PUBLIC}.`, dmOnly: `The traitor is ${BIBLE_DM}.` });
  await ok('PUT', `/facts/conflict/war`, { value: `War with ${FACT}` });
  await ok('POST', '/commands/change-location', { toLocationId: 'hall' });
  const say = (round: 1 | 2) =>
    ok('POST', '/messages', {
      messages: SCRIPT.filter((m) => m.round === round).map((m) => ({
        role: m.role,
        ...(m.speaker ? { speaker: m.speaker } : {}),
        content: contentOf(m),
        locationId: m.locationId,
        visibility: m.visibility,
        ...(m.audience ? { audience: m.audience } : {}),
      })),
    });
  await say(1);
  await ok('POST', '/commands/end-round', {});
  await ok('POST', '/commands/change-location', { toLocationId: 'vault' });
  await say(2);
  await ok('POST', '/commands/complete-objective', { questId: 'relic', objectiveId: 'map' });
  const { version } = (await ok('GET', '')).body;
  const settled = await ok('GET', `/context?minVersion=${version}&waitMs=20000`);
  if (settled.body.processedVersion < version) throw new Error('the worker did not catch up');
}

/** The union of the markers of the items whose every marker the viewer may see (DESIGN: all inputs witnessed). */
export function visibleItems(itemTexts: string[], allowed: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const text of itemTexts) {
    const markers = [...markersIn(text)];
    if (markers.length > 0 && markers.every((m) => allowed.has(m))) markers.forEach((m) => out.add(m));
  }
  return out;
}

export const union = (...sets: Iterable<string>[]): Set<string> => new Set(sets.flatMap((s) => [...s]));
export const sorted = (s: Iterable<string>): string[] => [...s].sort();

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** DESIGN §8's "whole word, case-insensitive" (a glossary term's use). */
export const usesWord = (text: string, word: string): boolean =>
  new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
