import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class CompleteObjectiveCommand extends CampaignWrite<{ questId: string; objectiveId: string }> {}

@CommandHandler(CompleteObjectiveCommand)
export class CompleteObjectiveHandler extends CampaignWriteHandler<CompleteObjectiveCommand> implements ICommandHandler<CompleteObjectiveCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: CompleteObjectiveCommand): CampaignCommand {
    return { type: 'CompleteObjective', ...c.payload } as CampaignCommand;
  }
}
