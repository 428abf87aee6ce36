import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class PutBibleCommand extends CampaignWrite<{ text: string; dmOnly?: string }> {}

@CommandHandler(PutBibleCommand)
export class PutBibleHandler extends CampaignWriteHandler<PutBibleCommand> implements ICommandHandler<PutBibleCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: PutBibleCommand): CampaignCommand {
    return { type: 'PutBible', ...c.payload };
  }
}
