import { APP_CONFIG, AppConfig, DomainError } from '@app/common';
import {
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ApiRoute, ApiTags, ApiTextBody, ApiZodQuery } from '../http/api-docs';
import { callerOf } from '../http/caller';
import { Access } from '../http/route-access';
import { asOfOf, asOfOnlyQuery } from '../http/dto/campaign.dto';
import { idSchema } from '../http/validation';
import { CampaignTransfer } from './campaign-transfer';
import { EXPORT_FORMAT, NDJSON } from './export-format';
import { spool, tooLarge } from './ndjson-lines';

const importQuery = z.strictObject({
  id: idSchema.optional().describe('the id to import the campaign under (default: the exported id)'),
});

const importResponse = z.object({
  id: z.string(),
  version: z.number().int().min(1).describe('the game stream version, as exported'),
  memoryVersion: z.number().int().min(0).describe('the memory stream version, as exported'),
});

const HEADER_EXAMPLE = {
  format: EXPORT_FORMAT,
  version: 1,
  campaignId: 'saltmere',
  name: 'Saltmere',
  exportedAt: '2026-03-01T18:00:00.000Z',
  timeline: 1,
  game: 42,
  memory: 7,
  processedVersion: 42,
  rewinds: [],
};

/**
 * The import's body is read as a stream, not by the 1 MiB JSON parser: up to IMPORT_MAX_BYTES, spooled to a file by
 * the route. Any other route that receives NDJSON is refused (415) as before.
 */
export function acceptNdjsonImports(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(NDJSON, (req, payload, done) => {
    if (req.routeOptions.url !== '/v1/campaigns/import')
      return done(new UnsupportedMediaTypeException(`only POST /v1/campaigns/import reads ${NDJSON}`), undefined);
    done(null, payload);
  });
}

/** DESIGN §15: a campaign out as NDJSON (full keys only: a viewer-bound key is refused) and back in. */
@ApiTags('campaigns')
@Controller('v1/campaigns')
export class TransferController {
  constructor(
    @Inject(CampaignTransfer) private readonly transfer: CampaignTransfer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Access('full')
  @Get(':cid/export')
  @ApiZodQuery(asOfOnlyQuery)
  @ApiRoute('Export the campaign (as of a version) as NDJSON: a header, every event of both streams, then rows', {
    status: 200,
    operationId: 'exportCampaign',
    mediaType: NDJSON,
    description: NDJSON,
    example: `${JSON.stringify(HEADER_EXAMPLE)}\n`,
  })
  async export(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: asOfOnlyQuery }) q: z.infer<typeof asOfOnlyQuery>,
    @Res() reply: FastifyReply,
  ) {
    const out = await this.transfer.export(cid, asOfOf(q.asOf));
    const filename = `${cid}${out.header.asOf === undefined ? '' : `-at-${out.header.asOf}`}.ndjson`;
    return reply
      .header('content-type', NDJSON)
      .header('content-disposition', `attachment; filename="${filename.replace(/[^A-Za-z0-9._:-]/g, '_')}"`)
      .send(Readable.from(out.lines));
  }

  @Access('full')
  @Post('import')
  @HttpCode(201)
  @ApiZodQuery(importQuery)
  @ApiTextBody(NDJSON, 'a campaign export (GET …/export), one JSON value per line')
  @ApiRoute(
    'Import a campaign export (NDJSON, up to IMPORT_MAX_BYTES) in one transaction, without a model call',
    {
      schema: importResponse,
      operationId: 'importCampaign',
      status: 201,
      example: { id: 'saltmere', version: 42, memoryVersion: 7 },
    },
    [400, 403, 409, 413, 415],
  )
  async import(@Query({ schema: importQuery }) q: z.infer<typeof importQuery>, @Req() req: FastifyRequest) {
    const limit = this.config.importMaxBytes;
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > limit) throw tooLarge(limit);
    const body = req.body;
    if (body !== undefined && !(body instanceof Readable))
      throw new UnsupportedMediaTypeException(`send the export as ${NDJSON}`);
    const file = await spool(body ?? Readable.from([]), limit);
    const caller = callerOf(req);
    try {
      const [reply] = await this.transfer.importFile(file.path, {
        id: q.id,
        single: true,
        permit: (id) => {
          if (!caller.canReach(id))
            throw new DomainError('forbidden', 'CAMPAIGN_OUT_OF_SCOPE', `this key may not create campaign ${id}`);
        },
      });
      return reply;
    } finally {
      await file.cleanup();
    }
  }
}
