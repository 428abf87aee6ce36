import { notFound } from '@app/common';
import { CampaignCommand } from './commands';
import { assertFact } from './decide/assert-fact';
import { changeLocation } from './decide/change-location';
import { changeSettings } from './decide/change-settings';
import { completeObjective } from './decide/complete-objective';
import { completeQuest } from './decide/complete-quest';
import { correctMemory } from './decide/correct-memory';
import { createCampaign } from './decide/create-campaign';
import { deleteMemory } from './decide/delete-memory';
import { endRound } from './decide/end-round';
import { hideGlossaryTerm } from './decide/hide-glossary-term';
import { logInAccount } from './decide/log-in-account';
import { logOutAccount } from './decide/log-out-account';
import { progressAct } from './decide/progress-act';
import { putBible } from './decide/put-bible';
import { putLocation } from './decide/put-location';
import { putNpc } from './decide/put-npc';
import { putPlayer } from './decide/put-player';
import { putQuest } from './decide/put-quest';
import { recordMessages } from './decide/record-messages';
import { resolveFact } from './decide/resolve-fact';
import { retractMessages } from './decide/retract-messages';
import { setGlossaryTerm } from './decide/set-glossary-term';
import { updateLocationState } from './decide/update-location-state';
import { GameEvent } from './events';
import { CampaignState } from './state';

export { BIBLE_MAX_CHARS } from './decide/put-bible';
export { RETRACT_MAX_INDEXES, RETRACT_REASON_MAX_CHARS } from './decide/retract-messages';
export { MEMORY_SUMMARY_MAX_CHARS } from './decide/correct-memory';

/**
 * Validates a command against the state and returns the events it causes (pure). One function per command
 * in `decide/`; a command type without a case here does not compile.
 */
export function decide(state: CampaignState, command: CampaignCommand): GameEvent[] {
  if (command.type === 'CreateCampaign') return createCampaign(state, command);
  if (state.version === 0) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${state.id} not found`);
  const events = decideOne(state, command);
  // §8: a story command that gives a new story time sets it before what it causes (its memories are dated by it).
  const storyTime = 'storyTime' in command ? command.storyTime : undefined;
  if (storyTime === undefined || storyTime === (state.storyTime ?? null)) return events;
  return [{ type: 'StoryTimeSet', data: { storyTime } }, ...events];
}

function decideOne(state: CampaignState, command: Exclude<CampaignCommand, { type: 'CreateCampaign' }>): GameEvent[] {
  switch (command.type) {
    case 'ChangeSettings':
      return changeSettings(state, command);
    case 'PutLocation':
      return putLocation(state, command);
    case 'PutNpc':
      return putNpc(state, command);
    case 'PutQuest':
      return putQuest(state, command);
    case 'RecordMessages':
      return recordMessages(state, command);
    case 'ChangeLocation':
      return changeLocation(state, command);
    case 'CompleteObjective':
      return completeObjective(state, command);
    case 'CompleteQuest':
      return completeQuest(state, command);
    case 'ProgressAct':
      return progressAct(state, command);
    case 'UpdateLocationState':
      return updateLocationState(state, command);
    case 'EndRound':
      return endRound(state);
    case 'PutBible':
      return putBible(state, command);
    case 'SetGlossaryTerm':
      return setGlossaryTerm(state, command);
    case 'HideGlossaryTerm':
      return hideGlossaryTerm(state, command);
    case 'AssertFact':
      return assertFact(state, command);
    case 'ResolveFact':
      return resolveFact(state, command);
    case 'PutPlayer':
      return putPlayer(state, command);
    case 'LogInAccount':
      return logInAccount(state, command);
    case 'LogOutAccount':
      return logOutAccount(state, command);
    case 'RetractMessages':
      return retractMessages(state, command);
    case 'CorrectMemory':
      return correctMemory(state, command);
    case 'DeleteMemory':
      return deleteMemory(state, command);
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
