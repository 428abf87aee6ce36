import { Controller, Get, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiRoute, ApiTags } from '../api-docs';
import * as R from '../dto/responses';
import { callerOf } from '../caller';
import { Access } from '../route-access';

/**
 * Who the presented key is (DESIGN §8): whether it is bound to a character and which campaigns it reaches, so a
 * client such as the inspector opens in player mode instead of calling routes the key may not call.
 */
@ApiTags('operations')
@Controller('v1/caller')
export class CallerController {
  @Access('viewer')
  @Get()
  @ApiRoute(
    'The calling key: the character it is bound to (null = a full key) and its campaign scope',
    {
      schema: R.callerResponse,
      operationId: 'getCaller',
      status: 200,
      example: { viewer: { kind: 'player', id: 'aria' }, scope: 'saltmere*' },
    },
    [401],
  )
  caller(@Req() req: FastifyRequest) {
    const caller = callerOf(req);
    return {
      viewer: caller.viewer ? { kind: caller.viewer.kind, id: caller.viewer.id } : null,
      scope: caller.scopeKey,
    };
  }
}
