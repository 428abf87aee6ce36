import { Command } from '@nestjs/cqrs';
import { CampaignCommand } from '../domain/commands';
import { CampaignRunner, WriteMeta, WriteOutcome, WriteResult } from '../campaign.runner';

/** Base of every game-stream command: which campaign, the payload, write metadata, and the response renderer. */
export abstract class CampaignWrite<P> extends Command<WriteOutcome<unknown>> {
  constructor(
    readonly campaignId: string,
    readonly payload: P,
    readonly meta: WriteMeta = {},
    readonly render: (r: WriteResult) => unknown = (r) => ({ version: r.version }),
  ) {
    super();
  }
}

/** Shared body of the handlers: map to the domain command, run it. */
export abstract class CampaignWriteHandler<C extends CampaignWrite<unknown>> {
  constructor(protected readonly runner: CampaignRunner) {}
  protected abstract toDomain(command: C): CampaignCommand;
  execute(command: C): Promise<WriteOutcome<unknown>> {
    return this.runner.run(command.campaignId, this.toDomain(command), command.meta, command.render);
  }
}
