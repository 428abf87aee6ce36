/** Fact types whose facts must carry a TTL (DESIGN §6). */
export const EPHEMERAL_FACT_TYPES = ['buff', 'debuff', 'alert', 'rumor', 'timer'] as const;
/** Fact types that stay until resolved (DESIGN §6). */
export const DURABLE_FACT_TYPES = [
  'conflict',
  'relationship',
  'debt',
  'quest',
  'reputation',
  'alliance',
  'record',
] as const;

export type FactClass = 'ephemeral' | 'other' | 'durable';

/** Which trimming class a fact type belongs to; unknown types are `other`. */
export function factClass(type: string): FactClass {
  if ((EPHEMERAL_FACT_TYPES as readonly string[]).includes(type)) return 'ephemeral';
  if ((DURABLE_FACT_TYPES as readonly string[]).includes(type)) return 'durable';
  return 'other';
}

/** A world fact; expiry is judged at read time against the clock, never by an event. */
export interface Fact {
  type: string;
  key: string;
  value: string;
  priority: number;
  expiresAt: string | null;
  status: 'active' | 'resolved';
  assertedAt: string;
  /** Game version of the assertion that set the current value: "oldest first" without clocks. */
  assertedVersion: number;
  resolvedAt: string | null;
}

/** A player's registration or update; `locationId` only when the player is placed apart (§8 split parties). */
export interface PlayerData {
  playerId: string;
  name: string;
  aliases: string[];
  stats: PlayerStat[];
  locationId?: string;
}

export interface PlayerStat {
  label: string;
  value: string | number;
}

/** A player character (DESIGN §6; witnessing of §8 uses `registeredVersion`). */
export interface Player {
  id: string;
  name: string;
  aliases: string[];
  /** In the order given: the HUD keeps it. */
  stats: PlayerStat[];
  registeredVersion: number;
  /** §8 split parties: where the player stands apart from the party; absent = with the party. */
  locationId?: string;
}

/** Which agent a game account is bound to (DESIGN §5); the snapshot cache lives outside the stream. */
export interface AccountBinding {
  id: string;
  agentId: string | null;
}

export const factId = (type: string, key: string) => `${type}:${key}`;

export type WorldStateCommand =
  | {
      type: 'AssertFact';
      factType: string;
      key: string;
      value: string;
      priority: number;
      expiresAt: string | null;
      now: string;
    }
  | { type: 'ResolveFact'; factType: string; key: string }
  | {
      type: 'PutPlayer';
      playerId: string;
      name: string;
      aliases?: string[];
      stats?: PlayerStat[];
      /** §8: a location places the player apart; null brings it back to the party. */
      locationId?: string | null;
    }
  | { type: 'LogInAccount'; accountId: string; agentId: string }
  | { type: 'LogOutAccount'; accountId: string };

export type WorldStateEvent =
  | {
      type: 'FactAsserted';
      data: { type: string; key: string; value: string; priority: number; expiresAt: string | null };
    }
  | { type: 'FactResolved'; data: { type: string; key: string } }
  | { type: 'PlayerRegistered'; data: PlayerData }
  | { type: 'PlayerUpdated'; data: PlayerData }
  | {
      type: 'AccountLoggedIn';
      data: { accountId: string; agentId: string; previousAccountId: string | null; replacedAgentId: string | null };
    }
  | { type: 'AccountLoggedOut'; data: { accountId: string; agentId: string | null } };

/** The parts of the campaign state these commands read and write (older state documents lack them). */
export interface WorldStateSlice {
  version: number;
  npcs: Record<string, unknown>;
  facts?: Record<string, Fact>;
  players?: Record<string, Player>;
  accounts?: Record<string, AccountBinding>;
}

/** evolve() for the same events (pure). Versions are contiguous, so the event's own is `version + 1`. */
export function evolveWorldState<S extends WorldStateSlice>(state: S, e: WorldStateEvent, recordedAt: string): S {
  switch (e.type) {
    case 'FactAsserted': {
      const { type, key, value, priority, expiresAt } = e.data;
      const fact: Fact = {
        type,
        key,
        value,
        priority,
        expiresAt,
        status: 'active',
        assertedAt: recordedAt,
        assertedVersion: state.version + 1,
        resolvedAt: null,
      };
      return { ...state, facts: { ...state.facts, [factId(type, key)]: fact } };
    }
    case 'FactResolved': {
      const id = factId(e.data.type, e.data.key);
      const prev = state.facts![id];
      return { ...state, facts: { ...state.facts, [id]: { ...prev, status: 'resolved', resolvedAt: recordedAt } } };
    }
    case 'PlayerRegistered':
    case 'PlayerUpdated': {
      const { playerId, name, aliases, stats, locationId } = e.data;
      const registeredVersion = state.players?.[playerId]?.registeredVersion ?? state.version + 1;
      const player: Player = {
        id: playerId,
        name,
        aliases: [...aliases],
        stats: stats.map((s) => ({ ...s })),
        registeredVersion,
        ...(locationId !== undefined ? { locationId } : {}),
      };
      return { ...state, players: { ...state.players, [playerId]: player } };
    }
    case 'AccountLoggedIn': {
      const { accountId, agentId, previousAccountId } = e.data;
      const accounts = { ...state.accounts, [accountId]: { id: accountId, agentId } };
      if (previousAccountId) accounts[previousAccountId] = { id: previousAccountId, agentId: null };
      return { ...state, accounts };
    }
    case 'AccountLoggedOut':
      return { ...state, accounts: { ...state.accounts, [e.data.accountId]: { id: e.data.accountId, agentId: null } } };
  }
}
