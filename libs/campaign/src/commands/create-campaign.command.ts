import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class CreateCampaignCommand extends CampaignWrite<{ name: string; perRoleMemory?: boolean }> {}

@CommandHandler(CreateCampaignCommand)
export class CreateCampaignHandler extends CampaignWriteHandler<CreateCampaignCommand> implements ICommandHandler<CreateCampaignCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: CreateCampaignCommand): CampaignCommand {
    return { type: 'CreateCampaign', ...c.payload } as CampaignCommand;
  }
}
