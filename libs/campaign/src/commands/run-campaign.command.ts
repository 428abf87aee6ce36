import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CAMPAIGN_RUNNER, CampaignRunner, CommandOutcome, WriteMeta } from '../campaign.runner';
import { CampaignCommand } from '../domain/commands';
import { ReplyOf } from '../domain/replies';

/** Any game-stream command: which campaign, the domain command, and the request's write metadata. */
export class RunCampaignCommand<C extends CampaignCommand = CampaignCommand> extends Command<
  CommandOutcome<ReplyOf<C['type']>>
> {
  constructor(
    readonly campaignId: string,
    readonly command: C,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}

/** Load → decide → append + project, and the command's reply (see `CampaignRunner`). */
@CommandHandler(RunCampaignCommand)
export class RunCampaignHandler implements ICommandHandler<RunCampaignCommand> {
  constructor(@Inject(CAMPAIGN_RUNNER) private readonly runner: CampaignRunner) {}

  execute(c: RunCampaignCommand): Promise<CommandOutcome> {
    return this.runner.run(c.campaignId, c.command, c.meta);
  }
}
