import { CampaignReader } from '@app/campaign';
import { HideGlossaryTermCommand, LayersReader } from '@app/memory';
import { Body, Controller, Delete, Get, Inject, Param, Put, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { bibleBody, glossaryTermBody, pathTerm } from '../dto/layers.dto';
import { asOfOf, asOfQuery } from '../dto/campaign.dto';
import { idSchema } from '../validation';
import { answer, RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { callerOf, witnessOf } from '../caller';
import { Access } from '../route-access';
import { ViewerOrdinals } from '../viewer-ordinals';

const BIBLE_EXAMPLE = {
  text: 'Saltmere is a smugglers’ port ruled by the Tide Court.',
  dmOnly: 'Mira is the Tide Court’s informant.',
};
const TERM_EXAMPLE = {
  term: 'Void-Chisel',
  definition: 'A blade that cuts doors into stone.',
  coinedMessageIndex: 12,
  locked: false,
  hidden: false,
  createdAt: '2026-11-23T07:28:00.000Z',
};

/** The reads' query: only `asOf` (DESIGN §10). */
export const loreQuery = z.strictObject({ ...asOfQuery });

/** Campaign bible and glossary (DESIGN §8): what every context is anchored on. */
@ApiTags('layered context')
@Controller('v1/campaigns/:cid')
@UseInterceptors(WriteMetaInterceptor)
export class LoreController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(LayersReader) private readonly layers: LayersReader,
  ) {}

  @Access('viewer')
  @Get('bible')
  @ApiRoute('The campaign bible (both parts; a viewer-bound key gets `text` only)', {
    schema: R.bibleResponse,
    operationId: 'getBible',
    status: 200,
    example: BIBLE_EXAMPLE,
  })
  async bible(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: loreQuery }) q: z.infer<typeof loreQuery>,
    @Req() req: FastifyRequest,
  ) {
    const { state } = await this.campaigns.snapshot(cid, asOfOf(q.asOf), ['bible']);
    // A viewer-bound key reads the public part only (§8); the field is left out rather than shown empty.
    if (callerOf(req).viewer) return { text: state.bible?.text ?? '' };
    return { text: state.bible?.text ?? '', dmOnly: state.bible?.dmOnly ?? '' };
  }

  @Access('full')
  @Put('bible')
  @ApiRoute(
    'Set the campaign bible (each part ≤ 32,000 characters, else BIBLE_TOO_LARGE; dmOnly omitted = kept)',
    { schema: R.putBibleResponse, operationId: 'putBible', status: 200, example: { version: 3, bible: BIBLE_EXAMPLE } },
    WRITE_ERRORS,
  )
  putBible(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: bibleBody }) dto: z.infer<typeof bibleBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'PutBible', ...dto }, meta, (r) => ({
      version: r.version,
      bible: r.bible,
    }));
  }

  @Access('viewer')
  @Get('glossary')
  @ApiRoute('The glossary, alphabetical, hidden terms included (flagged)', {
    schema: R.glossaryResponse,
    operationId: 'getGlossary',
    status: 200,
    example: { items: [TERM_EXAMPLE] },
  })
  async glossary(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: loreQuery }) q: z.infer<typeof loreQuery>,
    @Req() req: FastifyRequest,
  ) {
    const { state, horizon: at } = await this.campaigns.snapshot(cid, asOfOf(q.asOf), ['glossary']);
    const viewer = witnessOf(callerOf(req));
    const overrides = state.glossary ?? {};
    if (viewer) {
      const items = await this.layers.glossary(cid, overrides, { viewer, publicOnly: true, at });
      // DESIGN §8: the coining message as the bound key's seq, null when its character did not witness it.
      const ordinals = await ViewerOrdinals.of(this.campaigns, cid, viewer, at);
      const seq = (index: number | null) => (index === null ? null : (ordinals.seqOf(index) ?? null));
      return { items: items.map((t) => ({ ...t, coinedMessageIndex: seq(t.coinedMessageIndex) })) };
    }
    return { items: await this.layers.glossary(cid, overrides, { includeHidden: true, at }) };
  }

  @Access('full')
  @Put('glossary/:term')
  @ApiRoute(
    'Set and lock a glossary term’s definition',
    {
      schema: R.setTermResponse,
      operationId: 'setGlossaryTerm',
      status: 200,
      example: { version: 7, term: 'Void-Chisel', definition: 'A blade that cuts doors into stone.', locked: true },
    },
    WRITE_ERRORS,
  )
  setTerm(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('term') raw: string,
    @Body({ schema: glossaryTermBody }) dto: z.infer<typeof glossaryTermBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    const term = pathTerm(raw);
    const command = { type: 'SetGlossaryTerm', term, definition: dto.definition } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({
      version: r.version,
      term,
      definition: dto.definition,
      locked: true,
    }));
  }

  @Access('full')
  @Delete('glossary/:term')
  @ApiRoute(
    'Hide a glossary term (the worker never re-adds it)',
    {
      schema: R.hideTermResponse,
      operationId: 'hideGlossaryTerm',
      status: 200,
      example: { version: 8, term: 'Void-Chisel', hidden: true },
    },
    WRITE_ERRORS,
  )
  async hideTerm(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('term') raw: string,
    @WriteMeta({ body: false }) meta: RequestWriteMeta,
  ) {
    const term = pathTerm(raw);
    const out = await this.commands.execute(new HideGlossaryTermCommand(cid, term, meta.resolve()));
    return answer(out, (r) => ({ version: r.version, term, hidden: true }));
  }
}
