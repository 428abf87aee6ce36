import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class EndRoundCommand extends CampaignWrite<Record<string, never>> {}

@CommandHandler(EndRoundCommand)
export class EndRoundHandler extends CampaignWriteHandler<EndRoundCommand> implements ICommandHandler<EndRoundCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: EndRoundCommand): CampaignCommand {
    return { type: 'EndRound', ...c.payload } as CampaignCommand;
  }
}
