import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class PutQuestCommand extends CampaignWrite<{ questId: string; name: string; objectives: { id: string; name: string }[] }> {}

@CommandHandler(PutQuestCommand)
export class PutQuestHandler extends CampaignWriteHandler<PutQuestCommand> implements ICommandHandler<PutQuestCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: PutQuestCommand): CampaignCommand {
    return { type: 'PutQuest', ...c.payload } as CampaignCommand;
  }
}
