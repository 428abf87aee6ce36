import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class AssertFactCommand extends CampaignWrite<{ factType: string; key: string; value: string; priority: number; expiresAt: string | null; now: string }> {}

@CommandHandler(AssertFactCommand)
export class AssertFactHandler extends CampaignWriteHandler<AssertFactCommand> implements ICommandHandler<AssertFactCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: AssertFactCommand): CampaignCommand {
    return { type: 'AssertFact', ...c.payload } as CampaignCommand;
  }
}
