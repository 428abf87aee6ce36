import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner } from '../campaign.runner';
import { CampaignCommand, MessageInput } from '../domain/commands';
import { CampaignWrite, CampaignWriteHandler } from './campaign-write';

export class RecordMessagesCommand extends CampaignWrite<{ messages: MessageInput[]; now: string }> {}

@CommandHandler(RecordMessagesCommand)
export class RecordMessagesHandler extends CampaignWriteHandler<RecordMessagesCommand> implements ICommandHandler<RecordMessagesCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) runner: CampaignRunner) {
    super(runner);
  }
  protected toDomain(c: RecordMessagesCommand): CampaignCommand {
    return { type: 'RecordMessages', ...c.payload } as CampaignCommand;
  }
}
