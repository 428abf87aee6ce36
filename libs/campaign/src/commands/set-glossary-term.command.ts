import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class SetGlossaryTermCommand extends CampaignWrite<{ term: string; definition: string }> {}

@CommandHandler(SetGlossaryTermCommand)
export class SetGlossaryTermHandler extends CampaignWriteHandler<SetGlossaryTermCommand> implements ICommandHandler<SetGlossaryTermCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: SetGlossaryTermCommand): CampaignCommand {
    return { type: 'SetGlossaryTerm', ...c.payload };
  }
}
