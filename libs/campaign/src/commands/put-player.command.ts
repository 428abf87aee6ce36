import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { PlayerStat } from '../domain/world-state';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class PutPlayerCommand extends CampaignWrite<{ playerId: string; name: string; aliases?: string[]; stats?: PlayerStat[] }> {}

@CommandHandler(PutPlayerCommand)
export class PutPlayerHandler extends CampaignWriteHandler<PutPlayerCommand> implements ICommandHandler<PutPlayerCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: PutPlayerCommand): CampaignCommand {
    return { type: 'PutPlayer', ...c.payload } as CampaignCommand;
  }
}
