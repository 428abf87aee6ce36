import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class ChangeLocationCommand extends CampaignWrite<{ toLocationId: string }> {}

@CommandHandler(ChangeLocationCommand)
export class ChangeLocationHandler extends CampaignWriteHandler<ChangeLocationCommand> implements ICommandHandler<ChangeLocationCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: ChangeLocationCommand): CampaignCommand {
    return { type: 'ChangeLocation', ...c.payload } as CampaignCommand;
  }
}
