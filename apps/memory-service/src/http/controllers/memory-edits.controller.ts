import { CampaignReader, RunCampaignCommand } from '@app/campaign';
import { DomainError, notFound } from '@app/common';
import { MemoryHistoryReader, MemoryReader } from '@app/memory';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Query, Req } from '@nestjs/common';
import { UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, NO_CONTENT, WRITE_ERRORS } from '../api-docs';
import { correctMemoryBody } from '../dto/campaign.dto';
import { idSchema, memoryIdSchema, queryInt } from '../validation';
import { answer, RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { callerOf, witnessOf } from '../caller';
import { MEMORY_EXAMPLE } from './memories.controller';
import { Access } from '../route-access';

// Range-checked against the campaign's version in the handler: out of 1..version is INVALID_VERSION (§10).
export const memoryHistoryQuery = z.strictObject({ asOf: queryInt(-2_000_000_000, 2_000_000_000).optional() });

const HISTORY_EXAMPLE = {
  items: [
    {
      revision: 1,
      summary: 'At The Rusty Anchor: Mira said smugglers moved forty crates to the old lighthouse.',
      origin: 'model',
      reason: 'recorded',
      version: 9,
      at: '2026-11-23T07:28:00.000Z',
      inputIndexes: [0, 1],
    },
    {
      revision: 2,
      summary: 'At The Rusty Anchor: Mira lied about the crates; they never left the cellar.',
      origin: 'dm',
      reason: 'corrected',
      version: 14,
      at: '2026-11-23T07:40:00.000Z',
      inputIndexes: [0, 1],
    },
  ],
};

const CORRECTED_EXAMPLE = {
  ...MEMORY_EXAMPLE,
  summary: HISTORY_EXAMPLE.items[1].summary,
  origin: 'dm',
  locked: true,
  version: 14,
  timeline: 1,
};

/**
 * The game master's word on memories (DESIGN §10 "Corrections"): rewrite one (locked against revision from then
 * on), delete one, read its history. The existence check runs in the write's transaction (memory's preparer).
 */
@ApiTags('timelines')
@Controller('v1/campaigns/:cid/memories/:memoryId')
@UseInterceptors(WriteMetaInterceptor)
export class MemoryEditsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
    @Inject(MemoryHistoryReader) private readonly histories: MemoryHistoryReader,
  ) {}

  @Access('full')
  @Put()
  @ApiRoute(
    'Correct a memory: it reads as written from now on, origin dm, locked (summary 1–2,000 characters)',
    {
      schema: R.correctedMemoryResponse,
      operationId: 'correctMemory',
      status: 200,
      example: CORRECTED_EXAMPLE,
    },
    WRITE_ERRORS,
  )
  async correct(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('memoryId', { schema: memoryIdSchema }) memoryId: string,
    @Body({ schema: correctMemoryBody }) dto: z.infer<typeof correctMemoryBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    const command = { type: 'CorrectMemory', memoryId, summary: dto.summary } as const;
    const out = await this.commands.execute(new RunCampaignCommand(cid, command, meta.resolve()));
    const [row] = out.storedBody === undefined ? await this.memories.byIds(cid, [memoryId]) : [];
    if (out.storedBody === undefined && !row)
      throw notFound('MEMORY_NOT_FOUND', `memory ${memoryId} not found in campaign ${cid}`);
    // The reply's wording, not the row's: what this write made it, also when replayed after a later correction.
    return answer(out, (r) => ({
      ...row,
      summary: r.summary,
      origin: 'dm' as const,
      locked: true as const,
      version: r.version,
      timeline: r.timeline ?? 1,
    }));
  }

  @Access('full')
  @Delete()
  @HttpCode(204)
  @ApiRoute(
    'Delete a memory: never served again (a second delete is MEMORY_NOT_FOUND)',
    { ...NO_CONTENT, operationId: 'deleteMemory' },
    WRITE_ERRORS,
  )
  remove(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('memoryId', { schema: memoryIdSchema }) memoryId: string,
    @WriteMeta({ body: false }) meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'DeleteMemory', memoryId }, meta, () => undefined);
  }

  @Access('viewer')
  @Get('history')
  @ApiRoute('A memory’s wordings and statuses, oldest first (asOf: as the campaign stood at that version)', {
    schema: R.memoryHistoryResponse,
    operationId: 'memoryHistory',
    status: 200,
    example: HISTORY_EXAMPLE,
  })
  async history(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('memoryId', { schema: memoryIdSchema }) memoryId: string,
    @Query({ schema: memoryHistoryQuery }) q: z.infer<typeof memoryHistoryQuery>,
    @Req() req: FastifyRequest,
  ) {
    const { state } = await this.campaigns.get(cid);
    if (q.asOf !== undefined && (q.asOf < 1 || q.asOf > state.version))
      throw new DomainError('invalid', 'INVALID_VERSION', `asOf must be 1 to ${state.version}, not ${q.asOf}`);
    const viewer = witnessOf(callerOf(req));
    const items = await this.histories.history(cid, memoryId, { asOf: q.asOf, viewer });
    if (!items) throw notFound('MEMORY_NOT_FOUND', `memory ${memoryId} not found in campaign ${cid}`);
    // A bound key learns no campaign index (DESIGN §8): the inputs are left out rather than numbered.
    return { items: viewer === undefined ? items : items.map(({ inputIndexes: _campaignIndexes, ...item }) => item) };
  }
}
