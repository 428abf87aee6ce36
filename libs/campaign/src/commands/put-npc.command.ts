import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class PutNpcCommand extends CampaignWrite<{ npcId: string; name: string; aliases?: string[]; locationId?: string | null }> {}

@CommandHandler(PutNpcCommand)
export class PutNpcHandler extends CampaignWriteHandler<PutNpcCommand> implements ICommandHandler<PutNpcCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: PutNpcCommand): CampaignCommand {
    return { type: 'PutNpc', ...c.payload } as CampaignCommand;
  }
}
