import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class LogOutAccountCommand extends CampaignWrite<{ accountId: string }> {}

@CommandHandler(LogOutAccountCommand)
export class LogOutAccountHandler extends CampaignWriteHandler<LogOutAccountCommand> implements ICommandHandler<LogOutAccountCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: LogOutAccountCommand): CampaignCommand {
    return { type: 'LogOutAccount', ...c.payload } as CampaignCommand;
  }
}
