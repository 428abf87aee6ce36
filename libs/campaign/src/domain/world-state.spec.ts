import { DomainError } from '@app/common';
import { CampaignCommand } from './commands';
import { decide } from './decide';
import { fold } from './evolve';
import { CampaignState, emptyState } from './state';

/** Runs commands through decide → fold like the runner does, with a fixed recordedAt. */
function run(state: CampaignState, ...commands: CampaignCommand[]): CampaignState {
  for (const c of commands) {
    const events = decide(state, c);
    state = fold(
      state,
      events.map((event, i) => ({ event, version: state.version + i + 1, recordedAt: '2026-01-01T00:00:00.000Z' })),
    );
  }
  return state;
}
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as DomainError).code;
  }
  return 'none';
};
const now = '2026-01-01T00:00:00.000Z';
const assert = (factType: string, key: string, value: string, expiresAt: string | null = null): CampaignCommand => ({
  type: 'AssertFact',
  factType,
  key,
  value,
  priority: 0,
  expiresAt,
  now,
});

describe('facts, players and accounts on the game stream', () => {
  const created = run(emptyState('c'), { type: 'CreateCampaign', name: 'C' });

  it('asserts, refreshes and resolves facts', () => {
    const s = run(created, assert('conflict', 'war', 'War'), assert('conflict', 'war', 'War'));
    expect(s.version).toBe(2);
    expect(s.facts['conflict:war']).toMatchObject({ value: 'War', status: 'active', assertedVersion: 2 });
    const resolved = run(s, { type: 'ResolveFact', factType: 'conflict', key: 'war' });
    expect(resolved.facts['conflict:war'].status).toBe('resolved');
    expect(code(() => decide(resolved, { type: 'ResolveFact', factType: 'conflict', key: 'war' }))).toBe(
      'FACT_ALREADY_RESOLVED',
    );
    expect(code(() => decide(resolved, { type: 'ResolveFact', factType: 'conflict', key: 'peace' }))).toBe(
      'FACT_NOT_FOUND',
    );
    expect(run(resolved, assert('conflict', 'war', 'War')).facts['conflict:war'].status).toBe('active');
  });

  it('needs a future TTL on ephemeral types', () => {
    expect(code(() => decide(created, assert('buff', 'b', 'Blessed')))).toBe('TTL_REQUIRED');
    expect(code(() => decide(created, assert('timer', 't', 'Boom', '2025-12-31T23:59:59.000Z')))).toBe(
      'EXPIRES_IN_PAST',
    );
    expect(decide(created, assert('weather', 'w', 'Rain'))).toHaveLength(1);
  });

  it('registers players with ordered stats and the version at registration', () => {
    const p = run(created, {
      type: 'PutPlayer',
      playerId: 'aria',
      name: 'Aria',
      stats: [
        { label: 'HP', value: '9/10' },
        { label: 'Gold', value: 3 },
      ],
    });
    expect(p.players.aria).toEqual({
      id: 'aria',
      name: 'Aria',
      aliases: [],
      stats: [
        { label: 'HP', value: '9/10' },
        { label: 'Gold', value: 3 },
      ],
      registeredVersion: 2,
    });
    const updated = run(p, { type: 'PutPlayer', playerId: 'aria', name: 'Aria the Bold' });
    expect(updated.players.aria).toMatchObject({
      name: 'Aria the Bold',
      registeredVersion: 2,
      stats: p.players.aria.stats,
    });
    expect(decide(updated, { type: 'PutPlayer', playerId: 'aria', name: 'Aria the Bold' })).toEqual([]);
  });

  it('binds an agent to one account and an account to one agent: the last login wins', () => {
    let s = run(created, { type: 'LogInAccount', accountId: 'A', agentId: 'bot' });
    expect(decide(s, { type: 'LogInAccount', accountId: 'A', agentId: 'bot' })).toEqual([]);
    const moved = decide(s, { type: 'LogInAccount', accountId: 'B', agentId: 'bot' });
    expect(moved).toEqual([
      {
        type: 'AccountLoggedIn',
        data: { accountId: 'B', agentId: 'bot', previousAccountId: 'A', replacedAgentId: null },
      },
    ]);
    s = run(
      s,
      { type: 'LogInAccount', accountId: 'B', agentId: 'bot' },
      { type: 'LogInAccount', accountId: 'B', agentId: 'other' },
    );
    expect(s.accounts).toEqual({ A: { id: 'A', agentId: null }, B: { id: 'B', agentId: 'other' } });
    s = run(s, { type: 'LogOutAccount', accountId: 'B' });
    expect(s.accounts.B.agentId).toBeNull();
  });
});
