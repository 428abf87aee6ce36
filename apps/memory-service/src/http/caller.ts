import { viewerKey } from '@app/campaign';
import { BoundViewer, DomainError } from '@app/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling (DESIGN §8 "Who may read what"): the API key's name, scope and bound character, if any. */
export interface Caller {
  /** Null without LOREKEEPER_API_KEYS: every caller is the same anonymous one. */
  keyId: string | null;
  /** The key's campaign globs, sorted and joined (`*` = every campaign). */
  scopeKey: string;
  /** Set for a viewer-bound key: every read is served as this character. */
  viewer: BoundViewer | null;
  canReach(campaignId: string): boolean;
}

export const ANONYMOUS: Caller = { keyId: null, scopeKey: '*', viewer: null, canReach: () => true };

const callers = new WeakMap<FastifyRequest, Caller>();

export const setCaller = (req: FastifyRequest, caller: Caller): void => void callers.set(req, caller);

/** The caller of a request (ANONYMOUS when authentication is off). */
export const callerOf = (req: FastifyRequest): Caller => callers.get(req) ?? ANONYMOUS;

/** 403 VIEWER_BOUND: what a key bound to a character may not do. */
export const viewerBound = (viewer: BoundViewer, what: string): DomainError =>
  new DomainError('forbidden', 'VIEWER_BOUND', `this key reads as ${viewer.kind}:${viewer.id} and ${what}`);

/** The witness key a viewer-bound caller's reads are filtered by (undefined = no filter). */
export const witnessOf = (caller: Caller): string | undefined =>
  caller.viewer ? viewerKey(caller.viewer.kind, caller.viewer.id) : undefined;
