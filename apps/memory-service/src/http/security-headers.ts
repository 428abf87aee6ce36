import type { FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

/**
 * DESIGN §8 "Browser hardening": the policy every answer carries (HTML, scripts, JSON, problems, the event stream).
 * `img-src data:` is for the inspector's empty inline favicon and Swagger UI's inline SVG icons; nothing else
 * loads from anywhere but this origin, and no page may frame ours.
 */
const CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Sets the headers on the raw response, so answers Fastify does not send itself (a hijacked stream) carry them. */
export function applySecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!res.headersSent) res.setHeader(name, value);
}

/** A page that needs an inline script allows exactly that script, by a nonce fresh for each answer. */
export function nonceCsp(): { nonce: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  return { nonce, csp: CSP.replace("default-src 'self'", `default-src 'self'; script-src 'self' 'nonce-${nonce}'`) };
}

/** onRequest, first of all hooks: an answer refused by a later hook (401, 403, 404) carries the headers too. */
export function installSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (_req, reply, done) => {
    applySecurityHeaders(reply.raw);
    done();
  });
}
