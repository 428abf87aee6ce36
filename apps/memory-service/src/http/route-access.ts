import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest, RouteOptions } from 'fastify';

/**
 * Who may call a route (DESIGN §8 "Decided on the route, not on the URL text"). Every route declares one:
 * - `public`: anyone, no key (probes, the API docs, the inspector's static files);
 * - `viewer`: any valid key, a viewer-bound one included (the read then filters to what its character witnessed);
 * - `full`: a key that is not bound to a character (writes, the raw event log, the stream, usage, metrics).
 * A route without a rule is treated as `full` (deny by default for bound keys); the route-table test fails on it.
 */
export type AccessRule = 'public' | 'viewer' | 'full';

const RULES: readonly AccessRule[] = ['public', 'viewer', 'full'];

/** Declares a Nest route's rule (Fastify route config, read back from `req.routeOptions.config`). */
export const Access = (rule: AccessRule) => RouteConfig({ access: rule });

/** The route config of a route registered on Fastify directly (`fastify.get(url, accessConfig('public'), …)`). */
export const accessConfig = (rule: AccessRule) => ({ config: { access: rule } });

const ruleIn = (config: unknown): AccessRule | undefined => {
  const rule = (config as { access?: unknown } | undefined)?.access;
  return RULES.includes(rule as AccessRule) ? (rule as AccessRule) : undefined;
};

/**
 * The rule of the route the router matched; `unmatched` when no route did (a key is still needed, and the
 * answer is the router's 404). Reads the matched route only, never the URL's text.
 */
export function ruleOf(req: FastifyRequest): AccessRule | 'unmatched' {
  if (req.routeOptions.url === undefined) return 'unmatched';
  return ruleIn(req.routeOptions.config) ?? 'full';
}

/** One registered route and its declared rule (undefined: none declared, served as `full`). */
export interface RouteRule {
  method: string;
  url: string;
  rule: AccessRule | undefined;
}

/** Every route as the router registers it (Fastify's onRoute hook), with its rule: the route-table test's input. */
export function recordRouteRules(onRoute: (hook: (route: RouteOptions) => void) => void): RouteRule[] {
  const table: RouteRule[] = [];
  onRoute((route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url, rule: ruleIn(route.config) });
  });
  return table;
}

/**
 * Fastify's rewriteUrl: the path the router sees, so every spelling of a path reaches the same route. Dot
 * segments (`/./`, `/../`, also percent-encoded) are resolved as RFC 3986 (section 5.2.4) says, and `;params` are cut
 * from each segment as servlet containers do (a `;` meant as data arrives encoded, `%3B`). Percent-encoded
 * letters, doubled and trailing slashes are the router's (it decodes; ignoreDuplicateSlashes/TrailingSlash).
 */
export function normalizePath(url: string): string {
  const q = url.search(/[?#]/);
  const path = q < 0 ? url : url.slice(0, q);
  if (!/[;.]|%2e/i.test(path)) return url;
  const segments = path.split('/').map((s) => s.split(';')[0]);
  const out: string[] = [];
  segments.forEach((segment, i) => {
    const dots = segment.replace(/%2e/gi, '.');
    if (dots !== '.' && dots !== '..') return void out.push(segment);
    if (dots === '..' && out.length > 1) out.pop();
    if (i === segments.length - 1) out.push('');
  });
  const normalized = out.join('/');
  return (normalized.startsWith('/') ? normalized : '/' + normalized) + (q < 0 ? '' : url.slice(q));
}
