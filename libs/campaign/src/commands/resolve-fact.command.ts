import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class ResolveFactCommand extends CampaignWrite<{ factType: string; key: string }> {}

@CommandHandler(ResolveFactCommand)
export class ResolveFactHandler extends CampaignWriteHandler<ResolveFactCommand> implements ICommandHandler<ResolveFactCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: ResolveFactCommand): CampaignCommand {
    return { type: 'ResolveFact', ...c.payload } as CampaignCommand;
  }
}
