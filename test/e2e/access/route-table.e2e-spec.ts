import { routeRulesOf } from '../../../apps/memory-service/src/bootstrap';
import type { AccessRule, RouteRule } from '../../../apps/memory-service/src/http/route-access';
import { raw, RawAnswer, spellings } from '../../support/path-spellings';
import { startTestApp, TestApp } from '../../support/test-app';

const FULL = 'full-token-0123456789abcdef';
const SCOPED = 'scoped-token-0123456789abcdef';
const PLAYER = 'player-token-0123456789abcdef';
const NPC = 'npc-token-0123456789abcdef';
const KEYS = `${FULL}, ${SCOPED}=camp*, ${PLAYER}=camp*@player:bob, ${NPC}=camp*@npc:mira`;
const KINDS: [string, string | undefined][] = [
  ['none', undefined],
  ['full', FULL],
  ['scoped', SCOPED],
  ['player-bound', PLAYER],
  ['npc-bound', NPC],
];

jest.setTimeout(180_000);

/** Path parameters: a campaign inside every key's scope that does not exist (nothing changes), real file names. */
const PARAMS: Record<string, string> = { cid: 'camp-x', file: 'inspector.js', asset: 'swagger-ui.css' };

type Decision = 'unauthorized' | 'viewer-bound' | 'passed';

/** What the route's rule decides for a kind of key (route-access.ts). */
function expected(rule: AccessRule, kind: string): Decision {
  if (rule === 'public') return 'passed';
  if (kind === 'none') return 'unauthorized';
  return rule === 'full' && kind.endsWith('-bound') ? 'viewer-bound' : 'passed';
}

function decisionOf(res: { status: number; body: string }): Decision {
  if (res.status === 401) return 'unauthorized';
  if (res.status === 403 && (res.body === '' || res.body.includes('"VIEWER_BOUND"'))) return 'viewer-bound';
  return 'passed';
}

/**
 * DESIGN §8 "Decided on the route": every route of the router's own table × every spelling × every kind of key
 * reaches the decision its declared rule gives. Issue 28: `%65vents` answered a player-bound key with the log.
 */
describe('route table: every route × spelling × key kind', () => {
  let t: TestApp;
  let table: RouteRule[];

  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEYS } });
    table = routeRulesOf(t.app);
  });
  afterAll(async () => t.close());

  it('knows every route from the router, and every route declares who may call it', () => {
    expect(table.length).toBeGreaterThan(60);
    expect(table.filter((r) => r.rule === undefined).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    // the reads a bound key may never make are declared for full keys only
    const full = new Set(table.filter((r) => r.rule === 'full' && r.method === 'GET').map((r) => r.url));
    for (const url of ['events', 'stream', 'timeline', 'usage', 'memories/:memoryId/usage']) {
      expect(full).toContain(`/v1/campaigns/:cid/${url}`);
    }
    expect(full).toContain('/metrics');
    expect(table.filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.rule !== 'full')).toEqual([]);
  });

  it('decides the same for every spelling of every route, as its rule says', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const route of table) {
      const plain = new Map<string, number>();
      for (const [spelling, path] of spellings(route.url, PARAMS)) {
        for (const [kind, token] of KINDS) {
          const res = await raw(t.url, route.method, path, token);
          const want = expected(route.rule!, kind);
          const got = decisionOf(res);
          checked++;
          // and the same answer as the plain path: every spelling reached the same route
          if (spelling === 'plain') plain.set(kind, res.status);
          if (!hardened(res)) wrong.push(`${route.method} ${path} as ${kind}: no security headers`);
          if (got !== want || res.status >= 500 || res.status !== plain.get(kind) || isRouterMiss(res)) {
            wrong.push(`${route.method} ${path} (${spelling}) as ${kind}: ${res.status} ${got}, want ${want}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // the size of the table, for the record (routes × spellings × keys)
    process.stdout.write(`route table: ${table.length} routes, ${checked} requests\n`);
  });
});

/** DESIGN §8 "Browser hardening": the three headers, the policy without 'unsafe-inline'. */
function hardened(res: RawAnswer): boolean {
  const csp = String(res.headers['content-security-policy'] ?? '');
  return (
    /^default-src 'self';/.test(csp) &&
    csp.includes("frame-ancestors 'none'") &&
    !csp.includes('unsafe-inline') &&
    res.headers['x-content-type-options'] === 'nosniff' &&
    res.headers['referrer-policy'] === 'no-referrer'
  );
}

describe('security headers beyond the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEYS } });
    expect((await raw(t.url, 'GET', '/health')).status).toBe(200);
  });
  afterAll(async () => t.close());

  it('lets /docs run its one inline script by a nonce fresh for each answer', async () => {
    const [a, b] = [await raw(t.url, 'GET', '/docs'), await raw(t.url, 'GET', '/docs')];
    for (const res of [a, b]) {
      expect(hardened(res)).toBe(true);
      const nonce = /'nonce-([A-Za-z0-9+/=]{16,})'/.exec(String(res.headers['content-security-policy']))?.[1];
      expect(nonce).toBeDefined();
      expect(res.body).toContain(`<script nonce="${nonce}">`);
      expect(res.body.match(/<script>/g)).toBeNull();
    }
    expect(a.headers['content-security-policy']).not.toEqual(b.headers['content-security-policy']);
  });

  it('sends them on the hijacked event stream, a malformed URL and an unmatched path', async () => {
    const created = await t.http(
      'POST',
      '/v1/campaigns',
      { id: 'camp', name: 'Camp' },
      { authorization: `Bearer ${FULL}` },
    );
    expect(created.status).toBe(201);
    const stream = await raw(t.url, 'HEAD', '/v1/campaigns/camp/stream', FULL);
    expect(stream.status).toBe(200);
    for (const res of [
      stream,
      await raw(t.url, 'GET', '/v1/campaigns/%E0%A4%A'),
      await raw(t.url, 'GET', '/nope', FULL),
    ]) {
      expect(hardened(res)).toBe(true);
    }
  });
});

/** The router's own 404 (no route matched): a spelling that missed its route. */
const isRouterMiss = (res: { body: string }) => res.body.includes('"ROUTE_NOT_FOUND"');
