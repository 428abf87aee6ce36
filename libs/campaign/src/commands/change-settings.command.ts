import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class ChangeSettingsCommand extends CampaignWrite<{ perRoleMemory?: boolean }> {}

@CommandHandler(ChangeSettingsCommand)
export class ChangeSettingsHandler extends CampaignWriteHandler<ChangeSettingsCommand> implements ICommandHandler<ChangeSettingsCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: ChangeSettingsCommand): CampaignCommand {
    return { type: 'ChangeSettings', ...c.payload } as CampaignCommand;
  }
}
