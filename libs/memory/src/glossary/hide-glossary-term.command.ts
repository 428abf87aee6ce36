import { CAMPAIGN_RUNNER, CampaignRunner, CommandOutcome, ReplyOf, WriteMeta } from '@app/campaign';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LayersReader } from '../layers.reader';

export class HideGlossaryTermCommand extends Command<CommandOutcome<ReplyOf<'HideGlossaryTerm'>>> {
  constructor(
    readonly campaignId: string,
    readonly term: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}

/**
 * Lives beside the glossary: whether the worker already coined the term is a memory-side fact the game stream cannot
 * see.
 */
@CommandHandler(HideGlossaryTermCommand)
export class HideGlossaryTermHandler implements ICommandHandler<HideGlossaryTermCommand> {
  constructor(
    @Inject(CAMPAIGN_RUNNER) private readonly runner: CampaignRunner,
    @Inject(LayersReader) private readonly layers: LayersReader,
  ) {}
  async execute(c: HideGlossaryTermCommand) {
    const coined = await this.layers.hasTerm(c.campaignId, c.term);
    return this.runner.run(c.campaignId, { type: 'HideGlossaryTerm', term: c.term, coined }, c.meta);
  }
}
