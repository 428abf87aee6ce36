import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class CompleteQuestCommand extends CampaignWrite<{ questId: string }> {}

@CommandHandler(CompleteQuestCommand)
export class CompleteQuestHandler extends CampaignWriteHandler<CompleteQuestCommand> implements ICommandHandler<CompleteQuestCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: CompleteQuestCommand): CampaignCommand {
    return { type: 'CompleteQuest', ...c.payload } as CampaignCommand;
  }
}
