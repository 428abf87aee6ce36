import fc from 'fast-check';
import { GameEvent } from './events';
import { evolve } from './evolve';
import { assembleState, rowsOfState, stateRowsOf, StoredStateRow } from './state-rows';
import { CampaignState, DANGER_LEVELS, emptyState } from './state';

const AT = (v: number) => new Date(Date.UTC(2026, 0, 1) + v * 1000).toISOString();

/** A step of a random story: which kind of event, and numbers that pick its ids and values. */
type Step = { kind: number; a: number; b: number; c: number };
const step = fc.record({
  kind: fc.nat(19),
  a: fc.nat(5),
  b: fc.nat(5),
  c: fc.nat(3),
});

/** The event a step means in `s`, or null when it would be invalid there (decide would refuse it). */
function eventOf(s: CampaignState, { kind, a, b, c }: Step): GameEvent | null {
  const loc = `loc-${a}`;
  const npc = `npc-${b}`;
  const quest = `q-${a}`;
  const danger = DANGER_LEVELS[c];
  switch (kind) {
    case 0:
      return { type: 'LocationRegistered', data: { locationId: loc, name: `Place ${a}${c}`, dangerLevel: danger } };
    case 1:
      return s.locations[loc]
        ? { type: 'LocationRenamed', data: { locationId: loc, name: `Renamed ${c}`, dangerLevel: null } }
        : null;
    case 2:
      return {
        type: s.npcs[npc] ? 'NpcUpdated' : 'NpcRegistered',
        data: {
          npcId: npc,
          name: `Npc ${b}`,
          aliases: c ? [`alias ${c}`] : [],
          locationId: s.locations[loc] ? loc : null,
          fromLocationId: s.npcs[npc]?.locationId ?? null,
        },
      } as GameEvent;
    case 3:
      return {
        type: 'QuestRegistered',
        data: {
          questId: quest,
          name: `Quest ${a}`,
          objectives: [0, 1, 2].slice(0, c + 1).map((o) => ({ id: `o${o}`, name: `Step ${o}` })),
        },
      };
    case 4: {
      const q = s.quests[quest];
      const o = q?.objectives.find((x) => !x.completed);
      return o ? { type: 'ObjectiveCompleted', data: { questId: quest, objectiveId: o.id } } : null;
    }
    case 5:
      return s.quests[quest] && !s.quests[quest].completed
        ? { type: 'QuestCompleted', data: { questId: quest } }
        : null;
    case 6:
    case 7:
      return {
        type: 'MessageRecorded',
        data: {
          index: s.messageCount,
          role: 'dm',
          speaker: null,
          content: `line ${s.messageCount}`,
          locationId: s.currentLocationId,
          npcIds: [],
          at: AT(s.version + 1),
          round: s.round,
          visibility: 'public',
          audience: [],
          toolCalls: [],
          toolCallId: null,
          reasoning: null,
        },
      };
    case 8:
      return s.locations[loc]
        ? { type: 'LocationChanged', data: { fromLocationId: s.currentLocationId, toLocationId: loc, npcsPresent: [] } }
        : null;
    case 9:
      return { type: 'ActProgressed', data: { fromActId: s.currentActId, toActId: `act-${a}` } };
    case 10: {
      const l = s.locations[loc];
      if (!l) return null;
      const enc = `enc-${b}`;
      const done = l.completedEncounters.includes(enc);
      return {
        type: 'LocationStateUpdated',
        data: {
          locationId: loc,
          ...(c % 2 ? { dangerLevel: danger } : {}),
          ...(done ? {} : { completedEncounterId: enc }),
          fromDangerLevel: l.dangerLevel,
        },
      };
    }
    case 11:
      return { type: 'RoundEnded', data: { round: s.round } };
    case 12:
      return { type: 'BibleUpdated', data: { text: `bible ${a}`, dmOnly: `secret ${b}` } };
    case 13:
      return {
        type: 'GlossaryTermSet',
        data: { term: ['Ember', 'ember ', 'Old Oak', 'Zed'][c], definition: `def ${a}` },
      };
    case 14:
      return { type: 'GlossaryTermHidden', data: { term: ['EMBER', 'old  oak', 'Moon', 'Zed'][c] } };
    case 15:
      return {
        type: 'FactAsserted',
        data: { type: ['rumor', 'debt'][c % 2], key: `k${a}`, value: `v${b}`, priority: c, expiresAt: null },
      };
    case 16: {
      const f = Object.values(s.facts).find((x) => x.status === 'active' && x.key === `k${a}`);
      return f ? { type: 'FactResolved', data: { type: f.type, key: f.key } } : null;
    }
    case 17:
      return {
        type: s.players[`p${a}`] ? 'PlayerUpdated' : 'PlayerRegistered',
        data: { playerId: `p${a}`, name: `Hero ${a}`, aliases: [], stats: [{ label: 'HP', value: b * 10 + c }] },
      } as GameEvent;
    case 18:
      // Only ever a fork's first event after the copy; here it just moves the head (name, parent).
      return { type: 'CampaignForked', data: { parentId: `parent-${a}`, parentVersion: b + 1, name: `Fork ${c}` } };
    default: {
      const account = `acc-${a}`;
      if (c === 0) return { type: 'AccountLoggedOut', data: { accountId: account, agentId: null } };
      const agent = `agent-${b}`;
      const previous = Object.values(s.accounts).find((x) => x.agentId === agent && x.id !== account);
      return {
        type: 'AccountLoggedIn',
        data: {
          accountId: account,
          agentId: agent,
          previousAccountId: previous?.id ?? null,
          replacedAgentId: s.accounts[account]?.agentId ?? null,
        },
      };
    }
  }
}

interface Stored {
  kind: string;
  key: string;
  validFrom: number;
  validTo: number | null;
  doc: string;
}

/** What the projector does to `campaign_state_rows`, in memory: close the current row, add the new one. */
function write(table: Stored[], version: number, event: GameEvent, after: CampaignState): void {
  for (const r of stateRowsOf(event, after)) {
    const current = table.find((t) => t.kind === r.kind && t.key === r.key && t.validTo === null);
    if (current) current.validTo = version;
    if (r.doc !== null) table.push({ kind: r.kind, key: r.key, validFrom: version, validTo: null, doc: r.doc });
  }
}

/** The rows valid at `v`, as `stateAt` reads them. */
function rowsAt(table: Stored[], v: number): StoredStateRow[] {
  const born = new Map<string, number>();
  for (const t of table)
    if (t.validFrom <= v) born.set(`${t.kind}/${t.key}`, Math.min(born.get(`${t.kind}/${t.key}`) ?? v, t.validFrom));
  return table
    .filter((t) => t.validFrom <= v && (t.validTo === null || t.validTo > v))
    .map((t) => ({ ...t, born: born.get(`${t.kind}/${t.key}`)! }) as StoredStateRow);
}

/** Key order matters too: views and sections list a map's entities in the fold's order. */
const shape = (s: CampaignState) => ({
  s,
  order: [s.locations, s.npcs, s.quests, s.facts, s.players, s.accounts, s.glossary ?? {}].map((o) => Object.keys(o)),
});

describe('state rows', () => {
  it('assembleState of the rows valid at every prefix equals the fold of that prefix', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        let state = evolve(
          emptyState('c1'),
          { type: 'CampaignCreated', data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } } },
          AT(1),
          1,
        );
        state = { ...state, version: 1 };
        const table: Stored[] = [];
        write(
          table,
          1,
          { type: 'CampaignCreated', data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } } },
          state,
        );
        const folds = [state];
        for (const st of steps) {
          const event = eventOf(state, st);
          if (!event) continue;
          const version = state.version + 1;
          state = { ...evolve(state, event, AT(version), version), version };
          write(table, version, event, state);
          folds.push(state);
        }
        for (const expected of folds) {
          const got = assembleState('c1', rowsAt(table, expected.version), {
            version: expected.version,
            messageCount: expected.messageCount,
          });
          expect(shape(got)).toEqual(shape(expected));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('rowsOfState names every entity of a state once, so a backfill writes all of it', () => {
    const s: CampaignState = {
      ...emptyState('c1'),
      locations: { a: { id: 'a', name: 'A', dangerLevel: null, completedEncounters: ['e1', 'e2'] } },
      npcs: { n: { id: 'n', name: 'N', aliases: [], locationId: 'a' } },
      roundEnds: [4, 9],
      bible: { text: 't', dmOnly: '' },
    };
    const rows = rowsOfState(s);
    expect(rows.map((r) => `${r.kind}:${r.key}`)).toEqual([
      'head:',
      'location:a',
      'encounter:a/e1',
      'encounter:a/e2',
      'npc:n',
      'bible:',
      'round:1',
      'round:2',
    ]);
    const stored = rows.map((r, i) => ({ ...r, doc: r.doc!, validFrom: i + 1, born: i + 1 }));
    expect(assembleState('c1', stored, { version: 0, messageCount: 0 })).toEqual(s);
  });
});
