import { ChangeLocationHandler } from './change-location.command';
import { ChangeSettingsHandler } from './change-settings.command';
import { CompleteObjectiveHandler } from './complete-objective.command';
import { CompleteQuestHandler } from './complete-quest.command';
import { CreateCampaignHandler } from './create-campaign.command';
import { EndRoundHandler } from './end-round.command';
import { ProgressActHandler } from './progress-act.command';
import { PutLocationHandler } from './put-location.command';
import { PutNpcHandler } from './put-npc.command';
import { PutQuestHandler } from './put-quest.command';
import { RecordMessagesHandler } from './record-messages.command';
import { UpdateLocationStateHandler } from './update-location-state.command';
import { AssertFactHandler } from './assert-fact.command';
import { ResolveFactHandler } from './resolve-fact.command';
import { PutPlayerHandler } from './put-player.command';
import { LogInAccountHandler } from './log-in-account.command';
import { LogOutAccountHandler } from './log-out-account.command';

export * from './campaign-write';
export * from './change-location.command';
export * from './change-settings.command';
export * from './complete-objective.command';
export * from './complete-quest.command';
export * from './create-campaign.command';
export * from './end-round.command';
export * from './progress-act.command';
export * from './put-location.command';
export * from './put-npc.command';
export * from './put-quest.command';
export * from './record-messages.command';
export * from './update-location-state.command';
export * from './assert-fact.command';
export * from './resolve-fact.command';
export * from './put-player.command';
export * from './log-in-account.command';
export * from './log-out-account.command';

export const CommandHandlers = [
  CreateCampaignHandler,
  ChangeSettingsHandler,
  PutLocationHandler,
  PutNpcHandler,
  PutQuestHandler,
  RecordMessagesHandler,
  ChangeLocationHandler,
  CompleteObjectiveHandler,
  CompleteQuestHandler,
  ProgressActHandler,
  UpdateLocationStateHandler,
  EndRoundHandler,
  AssertFactHandler,
  ResolveFactHandler,
  PutPlayerHandler,
  LogInAccountHandler,
  LogOutAccountHandler,
];
