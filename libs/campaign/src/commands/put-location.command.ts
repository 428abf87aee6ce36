import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { DangerLevel } from '../domain/state';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class PutLocationCommand extends CampaignWrite<{ locationId: string; name: string; dangerLevel?: DangerLevel }> {}

@CommandHandler(PutLocationCommand)
export class PutLocationHandler extends CampaignWriteHandler<PutLocationCommand> implements ICommandHandler<PutLocationCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: PutLocationCommand): CampaignCommand {
    return { type: 'PutLocation', ...c.payload } as CampaignCommand;
  }
}
