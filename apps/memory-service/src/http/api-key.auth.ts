import { ApiKeyEntry, AppConfig, BoundViewer, DomainError, globToRegExp, ID_PATTERN, parseApiKeys } from '@app/common';
import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Caller, setCaller, viewerBound } from './caller';
import { sendProblem, toProblem } from './problem.filter';

/**
 * Paths anyone may call: probes, the API docs and the inspector's static page (it holds no data and asks
 * for a key itself). Everything else, /metrics included, needs a key.
 */
const OPEN = [/^\/health(?:[/?]|$)/, /^\/docs(?:[/?.-]|$)/, /^\/inspector(?:[/?]|$)/, /^\/(?:\?|$)/];
/**
 * Reads a viewer-bound key may not make: the raw event log (events, timeline, §15's export), the live stream, usage,
 * metrics.
 */
const NOT_FOR_VIEWERS = [
  /^\/v1\/campaigns\/[^/]+\/(?:events|stream|timeline|usage|export)(?:[/?]|$)/,
  /^\/metrics(?:[/?]|$)/,
];

/** The key each authenticated request came with (for reads that list several campaigns). */
const KEY_OF = new WeakMap<object, Key>();

/** Which campaign ids this request may see: null = all (no keys configured, or an unscoped key). */
export function campaignFilterOf(req: FastifyRequest): ((campaignId: string) => boolean) | null {
  const key = KEY_OF.get(req);
  return key && key.scopes !== null ? (id) => canReach(key, id) : null;
}

interface Key {
  digest: Buffer;
  /** null = every campaign. */
  scopes: RegExp[] | null;
  /** The key's globs, sorted (`*` = every campaign): keys with the same scope share broadcasts. */
  scopeKey: string;
  /** A stable, non-secret name of the key (a digest prefix): idempotency keys are scoped to it. */
  id: string;
  viewer: BoundViewer | null;
}

/** The configured keys, matched in constant time per key (SHA-256 digests of equal length). */
export class ApiKeyRing {
  private readonly keys: Key[];

  constructor(entries: ApiKeyEntry[]) {
    const byToken = new Map<string, Key>();
    const globs = new Map<string, string[] | null>();
    for (const e of entries) {
      const digest = sha256(e.token);
      const key = byToken.get(e.token) ?? {
        digest,
        scopes: [],
        scopeKey: '',
        id: digest.toString('hex').slice(0, 16),
        viewer: e.viewer ?? null,
      };
      if (e.scope === null) key.scopes = null;
      else key.scopes?.push(globToRegExp(e.scope));
      const known = globs.has(e.token) ? globs.get(e.token)! : [];
      globs.set(e.token, e.scope === null || known === null ? null : [...known, e.scope]);
      byToken.set(e.token, key);
    }
    for (const [token, key] of byToken) key.scopeKey = globs.get(token)?.sort().join(',') ?? '*';
    this.keys = [...byToken.values()];
  }

  /** The key the token belongs to, or null. Every key is compared, so timing says nothing about which. */
  find(token: string): Key | null {
    const presented = sha256(token);
    let found: Key | null = null;
    for (const key of this.keys) if (timingSafeEqual(presented, key.digest) && found === null) found = key;
    return found;
  }
}

export const canReach = (key: Key, campaignId: string): boolean =>
  key.scopes === null || key.scopes.some((re) => re.test(campaignId));

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

function unauthorized(reply: FastifyReply, detail: string): FastifyReply {
  void reply.header('www-authenticate', 'Bearer realm="lorekeeper"');
  sendProblem(reply, toProblem(new DomainError('unauthorized', 'UNAUTHORIZED', detail)));
  return reply;
}

/**
 * LOREKEEPER_API_KEYS (docs/guarantees.md "Access control"): a bearer token on every request except the
 * open paths; a scoped key sees campaigns outside its scope as not found (404), so it cannot probe
 * which ids exist, and may not create them (403). Unset: one warning at boot, no checks.
 */
export function installApiKeyAuth(fastify: FastifyInstance, config: AppConfig, logger = new Logger('auth')): void {
  if (!config.apiKeys) {
    logger.warn(
      'LOREKEEPER_API_KEYS is not set: the API is UNAUTHENTICATED and anyone who can reach this port can ' +
        'read and write every campaign',
    );
    return;
  }
  const ring = new ApiKeyRing(parseApiKeys(config.apiKeys));
  logger.log('API keys required on every route except /health, /docs and the inspector page');

  fastify.addHook('onRequest', (req, reply) => authenticate(ring, req, reply));
  // POST /v1/campaigns names the new id in the body, which is parsed only after onRequest.
  fastify.addHook('preValidation', checkCreateScope);
}

/** onRequest: the bearer token, the campaign in the path, and what a viewer-bound key may not do. */
async function authenticate(ring: ApiKeyRing, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const path = req.url.split('?')[0];
  if (OPEN.some((re) => re.test(path))) return;
  const header = req.headers.authorization;
  if (header === undefined) return unauthorized(reply, 'an Authorization: Bearer <token> header is required');
  const m = BEARER.exec(header);
  const key = m ? ring.find(m[1]) : null;
  if (!key) return unauthorized(reply, 'the bearer token is not valid');
  KEY_OF.set(req, key);
  const caller: Caller = {
    keyId: key.id,
    scopeKey: key.scopeKey,
    viewer: key.viewer,
    canReach: (cid) => canReach(key, cid),
  };
  setCaller(req, caller);
  const cid = (req.params as Record<string, unknown> | undefined)?.cid;
  // An invalid id reaches the controller, which answers 400 INVALID_ID: there is nothing to hide.
  if (typeof cid === 'string' && ID_PATTERN.test(cid) && !canReach(key, cid)) {
    sendProblem(reply, toProblem(new DomainError('not_found', 'CAMPAIGN_NOT_FOUND', `campaign ${cid} not found`)));
    return reply;
  }
  if (key.viewer && (!['GET', 'HEAD'].includes(req.method) || NOT_FOR_VIEWERS.some((re) => re.test(path)))) {
    sendProblem(
      reply,
      toProblem(
        viewerBound(
          key.viewer,
          req.method === 'GET' || req.method === 'HEAD' ? 'may not read this route' : 'is read-only',
        ),
      ),
    );
    return reply;
  }
}

/** preValidation of POST /v1/campaigns: a scoped key creates only ids within its scope. */
async function checkCreateScope(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  if (req.method !== 'POST' || req.routeOptions.url !== '/v1/campaigns') return;
  const key = KEY_OF.get(req);
  if (!key || key.scopes === null) return;
  const body = req.body as Record<string, unknown> | null | undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return; // the controller answers 400
  const id = body.id;
  if (id !== undefined && typeof id !== 'string') return;
  if (id === undefined || !canReach(key, id)) {
    sendProblem(
      reply,
      toProblem(
        new DomainError(
          'forbidden',
          'CAMPAIGN_OUT_OF_SCOPE',
          id === undefined
            ? 'this key may only create campaigns with an explicit id within its scope'
            : `this key may not create campaign ${id}`,
        ),
      ),
    );
    return reply;
  }
}
