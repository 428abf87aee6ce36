import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { DangerLevel } from '../domain/state';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class UpdateLocationStateCommand extends CampaignWrite<{ locationId: string; dangerLevel?: DangerLevel; completeEncounter?: string }> {}

@CommandHandler(UpdateLocationStateCommand)
export class UpdateLocationStateHandler extends CampaignWriteHandler<UpdateLocationStateCommand> implements ICommandHandler<UpdateLocationStateCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: UpdateLocationStateCommand): CampaignCommand {
    return { type: 'UpdateLocationState', ...c.payload } as CampaignCommand;
  }
}
