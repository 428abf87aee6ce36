import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class ProgressActCommand extends CampaignWrite<{ actId: string }> {}

@CommandHandler(ProgressActCommand)
export class ProgressActHandler extends CampaignWriteHandler<ProgressActCommand> implements ICommandHandler<ProgressActCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: ProgressActCommand): CampaignCommand {
    return { type: 'ProgressAct', ...c.payload } as CampaignCommand;
  }
}
