import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class LogInAccountCommand extends CampaignWrite<{ accountId: string; agentId: string }> {}

@CommandHandler(LogInAccountCommand)
export class LogInAccountHandler extends CampaignWriteHandler<LogInAccountCommand> implements ICommandHandler<LogInAccountCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: LogInAccountCommand): CampaignCommand {
    return { type: 'LogInAccount', ...c.payload } as CampaignCommand;
  }
}
