import {
  CampaignCommand,
  CommandOutcome,
  ReplyOf,
  RunCampaignCommand,
  WriteMeta as CampaignWriteMeta,
} from '@app/campaign';
import { CallHandler, createParamDecorator, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { callerOf } from './caller';
import { idempotencyKey, ifMatch, requestHash } from './validation';

/**
 * Write metadata from the request: If-Match, Idempotency-Key, correlation id. Idempotency keys are scoped to the
 * API key that used them as well as the campaign (§8), so one tenant can neither detect nor squat another's keys.
 */
function writeMetaOf(req: FastifyRequest, scope: string, body: unknown): CampaignWriteMeta {
  const key = idempotencyKey(req.headers['idempotency-key']);
  const path = req.url.split('?')[0];
  const keyId = callerOf(req).keyId;
  const idemScope = keyId === null ? scope : `${scope}@${keyId}`;
  const expected = ifMatch(req.headers['if-match']);
  return {
    expectedVersion: expected?.version,
    expectedTimeline: expected?.timeline,
    idempotency: key ? { scope: idemScope, key, requestHash: requestHash(req.method, path, body ?? null) } : undefined,
    metadata: { correlationId: String(req.id) },
  };
}

/**
 * A write route's metadata (`@WriteMeta()`). A malformed If-Match or Idempotency-Key is a 400 thrown only
 * when the write runs (`resolve`), so the route's own checks of path and body still answer first.
 */
export class RequestWriteMeta {
  constructor(
    private readonly meta: CampaignWriteMeta,
    private readonly problem?: unknown,
  ) {}

  resolve(): CampaignWriteMeta {
    if (this.problem !== undefined) throw this.problem;
    return this.meta;
  }
}

export interface WriteMetaOptions {
  /** Idempotency scope; default the route's `:cid`. */
  scope?: string;
  /** False: the request hash ignores any body (a DELETE). */
  body?: boolean;
}

/** Parameter decorator: the request's write metadata (see `RequestWriteMeta`). */
export const WriteMeta = createParamDecorator((options: WriteMetaOptions | undefined, ctx: ExecutionContext) =>
  requestWriteMeta(ctx.switchToHttp().getRequest<FastifyRequest>(), options),
);

/** A request's write metadata, as `@WriteMeta(options)` gives it to a route. */
export function requestWriteMeta(req: FastifyRequest, options?: WriteMetaOptions): RequestWriteMeta {
  const scope = options?.scope ?? (req.params as Record<string, string>).cid;
  try {
    return new RequestWriteMeta(writeMetaOf(req, scope, options?.body === false ? null : req.body));
  } catch (err) {
    return new RequestWriteMeta({}, err);
  }
}

/** What a write route returns: the body, and whether an earlier request with the same Idempotency-Key answered. */
export class WriteAnswer<B = unknown> {
  constructor(
    readonly body: B,
    readonly replayed: boolean,
    /** `"<timeline>:<version>"` after the write, sent as ETag (a later If-Match); unknown for old replays. */
    readonly etag?: string,
  ) {}
}

/** Sends a `WriteAnswer`'s body and marks idempotent replays (`Idempotent-Replayed: true`) so a client can tell. */
@Injectable()
export class WriteMetaInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(map((out: unknown) => answerBody(reply, out)));
  }
}

/** A route's return value as the body to send: a `WriteAnswer`'s headers go on `reply` and its body is returned. */
export function answerBody(reply: FastifyReply, out: unknown): unknown {
  if (!(out instanceof WriteAnswer)) return out;
  if (out.replayed) void reply.header('idempotent-replayed', 'true');
  if (out.etag) void reply.header('etag', out.etag);
  return out.body;
}

/** Renders a command's reply, or sends back as it is an answer an older release stored for the key. */
export function answer<R, B>(out: CommandOutcome<R>, render: (reply: R) => B): WriteAnswer<B | unknown> {
  if (out.storedBody !== undefined) return new WriteAnswer(out.storedBody, out.replayed);
  return new WriteAnswer(render(out.reply), out.replayed, etagOf(out.reply));
}

/** `"<timeline>:<version>"` of a command's reply; none for a reply stored before timelines (no `timeline`). */
export function etagOf(reply: unknown): string | undefined {
  const r = reply as { version?: unknown; timeline?: unknown } | undefined;
  if (typeof r?.version !== 'number' || typeof r.timeline !== 'number') return undefined;
  return `"${r.timeline}:${r.version}"`;
}

/** Runs a game-stream command (`RunCampaignCommand`) and renders its reply. */
export async function runCommand<C extends CampaignCommand, B>(
  bus: CommandBus,
  campaignId: string,
  command: C,
  meta: RequestWriteMeta,
  render: (reply: ReplyOf<C['type']>) => B,
): Promise<WriteAnswer<B | unknown>> {
  const out = await bus.execute(new RunCampaignCommand(campaignId, command, meta.resolve()));
  return answer(out, render);
}

/** The answer of most game-stream commands. */
export const versionOnly = (r: { version: number }) => ({ version: r.version });
