import { GameEvent } from './events';
import { glossaryKey } from './glossary-key';
import { CampaignState, emptyState, Location } from './state';
import { factId } from './world-state';

/**
 * The campaign state as versioned rows (`campaign_state_rows`, docs/state.md): one row per entity and
 * version, so a write stores only what its event changed and a read as of any version seeks the rows
 * valid then, instead of (de)serializing one document that grows with the campaign.
 */
export const STATE_KINDS = [
  'head',
  'location',
  'encounter',
  'npc',
  'quest',
  'fact',
  'player',
  'account',
  'glossary',
  'bible',
  'round',
] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/** Which entity a row holds. */
export interface StateRowRef {
  kind: StateKind;
  key: string;
}

/** An entity as one event left it: its JSON document, or null when the event removed it. */
export interface StateRow extends StateRowRef {
  doc: string | null;
}

/** A row as a read finds it valid at some version. */
export interface StoredStateRow extends StateRowRef {
  doc: string;
  /** Version that wrote this document. */
  validFrom: number;
  /** Version that first wrote the entity: a map lists its entities in that order, as the fold does. */
  born: number;
}

/** The state's fields that live in the `head` row; the rest are maps of their own kind, or columns. */
type Head = Omit<
  CampaignState,
  | 'id'
  | 'version'
  | 'messageCount'
  | 'locations'
  | 'npcs'
  | 'quests'
  | 'facts'
  | 'players'
  | 'accounts'
  | 'bible'
  | 'glossary'
  | 'roundEnds'
>;
/** Kept out of `head` although other lanes may add them to the state: they are columns of `campaigns`. */
const NOT_HEAD = new Set([
  'id',
  'version',
  'messageCount',
  'locations',
  'npcs',
  'quests',
  'facts',
  'players',
  'accounts',
  'bible',
  'glossary',
  'roundEnds',
  'timeline',
  'rewinds',
]);

/** Ids never hold a '/' (ID_PATTERN), and PostgreSQL text never a NUL. */
const SEP = '/';
export const encounterKey = (locationId: string, encounterId: string) => `${locationId}${SEP}${encounterId}`;

const head = (): StateRowRef => ({ kind: 'head', key: '' });
const row = (kind: StateKind, key: string): StateRowRef => ({ kind, key });

/** The rows `event` touches (exhaustive: a new event type does not compile until it says which). */
export function touchedBy(event: GameEvent, after: CampaignState): StateRowRef[] {
  switch (event.type) {
    case 'LocationChanged':
      // §8 split parties: the players whose own location the move set.
      return [head(), ...Object.keys(event.data.playerLocations ?? {}).map((key) => row('player', key))];
    case 'CampaignCreated':
    case 'CampaignSettingsChanged':
    case 'CampaignForked':
    case 'ActProgressed':
    case 'StoryTimeSet':
      return [head()];
    case 'CampaignRewound':
    case 'MessagesRetracted':
    case 'MemoryCorrected':
    case 'MemoryDeleted':
      // The timeline, retractions and memories live in tables of their own.
      return [];
    case 'LocationRegistered':
    case 'LocationRenamed':
      return [{ kind: 'location', key: event.data.locationId }];
    case 'LocationStateUpdated': {
      const { locationId: at, completedEncounterId: done } = event.data;
      return [row('location', at), ...(done ? [row('encounter', encounterKey(at, done))] : [])];
    }
    case 'NpcRegistered':
    case 'NpcUpdated':
      return [{ kind: 'npc', key: event.data.npcId }];
    case 'QuestRegistered':
    case 'ObjectiveCompleted':
    case 'QuestCompleted':
      return [{ kind: 'quest', key: event.data.questId }];
    case 'MessageRecorded':
      // Messages are rows of their own; the count is a column of `campaigns`.
      return [];
    case 'RoundEnded':
      return [head(), { kind: 'round', key: String(after.roundEnds?.length ?? 0) }];
    case 'BibleUpdated':
      return [{ kind: 'bible', key: '' }];
    case 'GlossaryTermSet':
    case 'GlossaryTermHidden':
      return [{ kind: 'glossary', key: glossaryKey(event.data.term) }];
    case 'FactAsserted':
    case 'FactResolved':
      return [{ kind: 'fact', key: factId(event.data.type, event.data.key) }];
    case 'PlayerRegistered':
    case 'PlayerUpdated':
      return [{ kind: 'player', key: event.data.playerId }];
    case 'AccountLoggedIn': {
      const { accountId, previousAccountId: previous } = event.data;
      return [row('account', accountId), ...(previous ? [row('account', previous)] : [])];
    }
    case 'AccountLoggedOut':
      return [{ kind: 'account', key: event.data.accountId }];
  }
}

/** The rows `event` wrote, with their documents as of `after` (the state right after the event). */
export function stateRowsOf(event: GameEvent, after: CampaignState): StateRow[] {
  return touchedBy(event, after).map((ref) => ({ ...ref, doc: docOf(after, ref) }));
}

/** One row's document in `state`; null when the entity is not there. */
export function docOf(state: CampaignState, { kind, key }: StateRowRef): string | null {
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  switch (kind) {
    case 'head':
      return JSON.stringify(headOf(state));
    case 'location': {
      const l = state.locations[key];
      return l ? JSON.stringify({ id: l.id, name: l.name, dangerLevel: l.dangerLevel }) : null;
    }
    case 'encounter': {
      const [locationId, encounterId] = key.split(SEP);
      return state.locations[locationId]?.completedEncounters.includes(encounterId) ? '1' : null;
    }
    case 'npc':
      return json(state.npcs[key]);
    case 'quest':
      return json(state.quests[key]);
    case 'fact':
      return json(state.facts[key]);
    case 'player':
      return json(state.players[key]);
    case 'account':
      return json(state.accounts[key]);
    case 'glossary':
      return json(state.glossary?.[key]);
    case 'bible':
      return json(state.bible);
    case 'round': {
      const ends = state.roundEnds ?? [];
      return json(ends[Number(key) - 1]);
    }
  }
}

function headOf(state: CampaignState): Head {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) if (!NOT_HEAD.has(k)) out[k] = v;
  return out as unknown as Head;
}

/** Every row of `state` (a backfill's check, a size estimate): entities in their map order. */
export function rowsOfState(state: CampaignState): StateRow[] {
  const refs: StateRowRef[] = [head()];
  for (const l of Object.values(state.locations)) {
    refs.push({ kind: 'location', key: l.id });
    for (const e of l.completedEncounters) refs.push({ kind: 'encounter', key: encounterKey(l.id, e) });
  }
  const keys = (kind: StateKind, o: Record<string, unknown> | undefined) =>
    Object.keys(o ?? {}).forEach((key) => refs.push({ kind, key }));
  keys('npc', state.npcs);
  keys('quest', state.quests);
  keys('fact', state.facts);
  keys('player', state.players);
  keys('account', state.accounts);
  keys('glossary', state.glossary);
  if (state.bible) refs.push({ kind: 'bible', key: '' });
  (state.roundEnds ?? []).forEach((_, i) => refs.push({ kind: 'round', key: String(i + 1) }));
  return refs.map((ref) => ({ ...ref, doc: docOf(state, ref) }));
}

/** What one row costs to keep (the state cache's measure; the JSON document's length, as before). */
export const rowChars = (r: StateRowRef & { doc: string | null }) =>
  r.kind.length + r.key.length + (r.doc?.length ?? 0);

/**
 * The inverse of the rows: the state whose rows are `rows` (those valid at `version`, in any order).
 * Maps list entities by `born` (the fold's insertion order), encounters by the version that completed them,
 * round ends by round. Kinds absent from `rows` come out empty, as in a new campaign.
 */
export function assembleState(
  id: string,
  rows: StoredStateRow[],
  o: { version: number; messageCount: number },
): CampaignState {
  const state: CampaignState = { ...emptyState(id), version: o.version, messageCount: o.messageCount };
  const sorted = [...rows].sort((a, b) => a.born - b.born || a.validFrom - b.validFrom || cmp(a.key, b.key));
  const encounters: StoredStateRow[] = [];
  const rounds: StoredStateRow[] = [];
  for (const r of sorted) {
    const doc = JSON.parse(r.doc) as unknown;
    switch (r.kind) {
      case 'head':
        Object.assign(state, doc);
        break;
      case 'location':
        state.locations[r.key] = { ...(doc as Omit<Location, 'completedEncounters'>), completedEncounters: [] };
        break;
      case 'encounter':
        encounters.push(r);
        break;
      case 'npc':
        state.npcs[r.key] = doc as CampaignState['npcs'][string];
        break;
      case 'quest':
        state.quests[r.key] = doc as CampaignState['quests'][string];
        break;
      case 'fact':
        state.facts[r.key] = doc as CampaignState['facts'][string];
        break;
      case 'player':
        state.players[r.key] = doc as CampaignState['players'][string];
        break;
      case 'account':
        state.accounts[r.key] = doc as CampaignState['accounts'][string];
        break;
      case 'glossary':
        (state.glossary ??= {})[r.key] = doc as NonNullable<CampaignState['glossary']>[string];
        break;
      case 'bible':
        state.bible = doc as NonNullable<CampaignState['bible']>;
        break;
      case 'round':
        rounds.push(r);
        break;
    }
  }
  for (const r of encounters.sort((a, b) => a.validFrom - b.validFrom || cmp(a.key, b.key))) {
    const [locationId, encounterId] = r.key.split(SEP);
    state.locations[locationId]?.completedEncounters.push(encounterId);
  }
  if (rounds.length)
    state.roundEnds = rounds.sort((a, b) => Number(a.key) - Number(b.key)).map((r) => JSON.parse(r.doc) as number);
  return state;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
