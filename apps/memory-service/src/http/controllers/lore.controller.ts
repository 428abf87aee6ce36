import { CampaignReader, PutBibleCommand, SetGlossaryTermCommand } from '@app/campaign';
import { HideGlossaryTermCommand, LayersReader } from '@app/memory';
import { Body, Controller, Delete, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bibleBody, glossaryTermBody, pathTerm } from '../dto/layers.dto';
import { parse, pathId } from '../validation';
import { markReplay, writeMeta } from '../write-context';

/** Campaign bible and glossary (DESIGN §8): what every context is anchored on. */
@Controller('v1/campaigns/:cid')
export class LoreController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(LayersReader) private readonly layers: LayersReader,
  ) {}

  @Get('bible')
  async bible(@Param('cid') cid: string) {
    const { state } = await this.campaigns.get(pathId(cid, 'campaign id'));
    return { text: state.bible?.text ?? '', dmOnly: state.bible?.dmOnly ?? '' };
  }

  @Put('bible')
  async putBible(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    const dto = parse(bibleBody, body);
    const out = await this.commands.execute(
      new PutBibleCommand(cid, dto, writeMeta(req, cid, body), (r) => ({ version: r.version, bible: { text: r.state.bible?.text ?? '', dmOnly: r.state.bible?.dmOnly ?? '' } })),
    );
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Get('glossary')
  async glossary(@Param('cid') cid: string) {
    const { state } = await this.campaigns.get(pathId(cid, 'campaign id'));
    return { items: await this.layers.glossary(cid, state.glossary ?? {}, { includeHidden: true }) };
  }

  @Put('glossary/:term')
  async setTerm(@Param('cid') cid: string, @Param('term') raw: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    const term = pathTerm(raw);
    const { definition } = parse(glossaryTermBody, body);
    const out = await this.commands.execute(new SetGlossaryTermCommand(cid, { term, definition }, writeMeta(req, cid, body), (r) => ({ version: r.version, term, definition, locked: true })));
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Delete('glossary/:term')
  async hideTerm(@Param('cid') cid: string, @Param('term') raw: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    const term = pathTerm(raw);
    const out = await this.commands.execute(new HideGlossaryTermCommand(cid, { term }, writeMeta(req, cid, null), (r) => ({ version: r.version, term, hidden: true })));
    markReplay(reply, out.replayed);
    return out.body;
  }
}
