import { CampaignCommand, CommandOf } from './commands';
import { GameEvent } from './events';
import { CampaignState } from './state';
import { factId } from './world-state';

type ReplyFns = {
  [K in CampaignCommand['type']]: (after: CampaignState, command: CommandOf<K>, events: GameEvent[]) => object;
};

const nothing = () => ({});

/**
 * What each command answers besides its version: the part of the state it wrote, as plain data (pure).
 * The write transaction stores it as the Idempotency-Key's answer, so a replay renders the same body
 * as the first request; the HTTP layer renders it. A command type missing here does not compile.
 */
export const REPLIES = {
  CreateCampaign: (after) => ({ campaign: after }),
  ChangeSettings: (after) => ({ settings: after.settings }),
  PutLocation: (after, c) => ({ location: after.locations[c.locationId] }),
  PutNpc: (after, c) => ({ npc: after.npcs[c.npcId] }),
  PutQuest: (after, c) => ({ quest: after.quests[c.questId] }),
  RecordMessages: (_after, _c, events) => ({
    indexes: events.flatMap((e) => (e.type === 'MessageRecorded' ? [e.data.index] : [])),
  }),
  ChangeLocation: nothing,
  CompleteObjective: nothing,
  CompleteQuest: nothing,
  ProgressAct: nothing,
  UpdateLocationState: nothing,
  EndRound: (after) => ({ round: after.round }),
  PutBible: (after) => ({ bible: { text: after.bible?.text ?? '', dmOnly: after.bible?.dmOnly ?? '' } }),
  SetGlossaryTerm: nothing,
  HideGlossaryTerm: nothing,
  // `now`: a fact's status is judged at the time of the request, also when the answer is replayed later.
  AssertFact: (after, c) => ({ fact: after.facts[factId(c.factType, c.key)], now: c.now }),
  ResolveFact: (after, c) => ({ fact: after.facts[factId(c.factType, c.key)] }),
  PutPlayer: (after, c) => ({ player: after.players[c.playerId] }),
  LogInAccount: (_after, _c, [e]) => ({
    previousAccount: e?.type === 'AccountLoggedIn' ? e.data.previousAccountId : null,
  }),
  LogOutAccount: nothing,
  RetractMessages: nothing,
  CorrectMemory: nothing,
  DeleteMemory: nothing,
} satisfies ReplyFns;

/** The answer to a command of type `K`: the campaign's version after it, and what `REPLIES` adds. */
export type ReplyOf<K extends CampaignCommand['type'] = CampaignCommand['type']> = { version: number } & ReturnType<
  (typeof REPLIES)[K]
>;

export function replyTo<C extends CampaignCommand>(
  after: CampaignState,
  command: C,
  events: GameEvent[],
): ReplyOf<C['type']> {
  const reply = REPLIES[command.type] as (after: CampaignState, command: C, events: GameEvent[]) => object;
  return { version: after.version, ...reply(after, command, events) } as ReplyOf<C['type']>;
}
