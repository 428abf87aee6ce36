import fc from 'fast-check';
import { Agent, request as httpRequest } from 'node:http';
import { URL } from 'node:url';
import {
  hostileContentType,
  hostileHeaderValue,
  hostileId,
  hostileValue,
  nastyKey,
  rawBody,
  RawJson,
  serialize,
} from './hostile-values';
import { ROUTES, RouteSpec, seedFuzzWorld, WORLD } from './route-table';

/** How a valid request is broken. */
export type Mutation =
  | 'valid'
  | 'field-hostile'
  | 'field-missing'
  | 'field-extra'
  | 'body-hostile'
  | 'raw-body'
  | 'content-type'
  | 'param-hostile'
  | 'query-hostile'
  | 'header-hostile'
  | 'method';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  mutation: Mutation;
  /** The campaign the path names, when it is the seeded one (its version must not move on a 4xx). */
  campaign?: string;
}

export interface FuzzFailure {
  request: { method: string; path: string; headers: Record<string, string>; body?: string; mutation: Mutation };
  status: number;
  problem: string;
}

export interface FuzzReport {
  cases: number;
  /** HTTP status → count. */
  histogram: Record<string, number>;
  byMutation: Record<string, number>;
  failures: FuzzFailure[];
  seed: number;
}

export interface FuzzOptions {
  baseUrl: string;
  cases: number;
  seed?: number;
  /** Sent as Authorization: Bearer on every request (except when the mutation breaks that header). */
  token?: string;
  /** A viewer-bound key (`…@player:<id>`) sent instead of `token` on every fifth case: read-only, filtered reads. */
  viewerToken?: string;
  routes?: RouteSpec[];
  /** Progress callback every 1,000 cases. */
  onProgress?: (done: number) => void;
}

const MUTATIONS: Array<{ weight: number; arbitrary: fc.Arbitrary<Mutation> }> = [
  { weight: 3, arbitrary: fc.constant('valid') },
  { weight: 5, arbitrary: fc.constant('field-hostile') },
  { weight: 2, arbitrary: fc.constant('field-missing') },
  { weight: 2, arbitrary: fc.constant('field-extra') },
  { weight: 2, arbitrary: fc.constant('body-hostile') },
  { weight: 2, arbitrary: fc.constant('raw-body') },
  { weight: 1, arbitrary: fc.constant('content-type') },
  { weight: 2, arbitrary: fc.constant('param-hostile') },
  { weight: 2, arbitrary: fc.constant('query-hostile') },
  { weight: 2, arbitrary: fc.constant('header-hostile') },
  { weight: 1, arbitrary: fc.constant('method') },
];

interface CaseSeed {
  route: RouteSpec;
  params: Record<string, string>;
  body: unknown;
  query: Record<string, string>;
  mutation: Mutation;
  pick: number;
  value: unknown;
  key: string;
  id: string;
  raw: string | Buffer;
  contentType: string | null;
  header: string;
  headerValue: string;
  method: string;
}

/** Query keys some route reads, so a hostile value lands where a parser looks. */
const QUERY_KEYS = [
  'limit',
  'after',
  'minVersion',
  'waitMs',
  'budget',
  'format',
  'stream',
  'scope',
  'include',
  'agent',
  'tick',
  'digestVersion',
  'q',
  'in',
  'role',
  'status',
  'account',
  'agentId',
  'viewer',
  'query',
  'locationId',
  'subjectId',
  'before',
  'explain',
];

const paramNames = (path: string) => [...path.matchAll(/:([a-z]+)/g)].map((m) => m[1]);

function caseArbitrary(routes: RouteSpec[]): fc.Arbitrary<CaseSeed> {
  return fc.constantFrom(...routes).chain((route) => {
    const params: Record<string, fc.Arbitrary<string>> = {};
    for (const name of paramNames(route.path)) {
      params[name] =
        route.params?.[name] ??
        (name === 'cid'
          ? fc.oneof(
              { weight: 9, arbitrary: fc.constant(WORLD.campaign) },
              { weight: 1, arbitrary: fc.constantFrom('nope', 'fz2') },
            )
          : fc.constant('x'));
    }
    return fc.record({
      route: fc.constant(route),
      params: fc.record(params),
      body: route.body ?? fc.constant(undefined),
      query: route.query ?? fc.constant({}),
      mutation: fc.oneof(...MUTATIONS),
      pick: fc.nat(),
      value: hostileValue,
      key: nastyKey,
      id: hostileId,
      raw: rawBody,
      contentType: hostileContentType,
      header: fc.constantFrom(
        'if-match',
        'idempotency-key',
        'authorization',
        'x-request-id',
        'accept',
        'content-encoding',
        'transfer-encoding-ish',
      ),
      headerValue: hostileHeaderValue,
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    });
  });
}

/** Every (container, key) slot of a JSON value, for field replacement/removal. */
function slots(
  value: unknown,
  out: Array<{ parent: any; key: string | number }> = [],
): Array<{ parent: any; key: string | number }> {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push({ parent: value, key: i });
      slots(v, out);
    });
  else if (value && typeof value === 'object' && !(value instanceof RawJson))
    for (const k of Object.keys(value)) {
      out.push({ parent: value, key: k });
      slots((value as any)[k], out);
    }
  return out;
}

function objects(value: unknown, out: any[] = []): any[] {
  if (Array.isArray(value)) value.forEach((v) => objects(v, out));
  else if (value && typeof value === 'object' && !(value instanceof RawJson)) {
    out.push(value);
    for (const v of Object.values(value)) objects(v, out);
  }
  return out;
}

/** Turns a generated seed into the concrete HTTP request. */
export function buildRequest(c: CaseSeed, token?: string): FuzzRequest {
  const body = c.body === undefined ? undefined : structuredClone(c.body);
  const params = { ...c.params };
  const query: Array<[string, string]> = Object.entries(c.query);
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let method: string = c.route.method;
  let payload: unknown = body;
  let raw: string | Buffer | undefined;
  let contentType: string | null = body === undefined ? null : 'application/json';

  switch (c.mutation) {
    case 'field-hostile': {
      const s = slots(payload);
      if (s.length) {
        const slot = s[c.pick % s.length];
        slot.parent[slot.key] = c.value;
      } else payload = c.value;
      break;
    }
    case 'field-missing': {
      const s = slots(payload).filter((x) => !Array.isArray(x.parent));
      if (s.length) {
        const slot = s[c.pick % s.length];
        delete slot.parent[slot.key];
      } else payload = {};
      break;
    }
    case 'field-extra': {
      const o = objects(payload);
      const target = o.length ? o[c.pick % o.length] : (payload = {});
      Object.defineProperty(target, c.key, { value: c.value, enumerable: true, configurable: true, writable: true });
      break;
    }
    case 'body-hostile':
      payload = c.value;
      contentType = 'application/json';
      break;
    case 'raw-body':
      raw = c.raw;
      contentType = c.pick % 4 === 0 ? 'text/plain' : 'application/json';
      break;
    case 'content-type':
      contentType = c.contentType;
      if (payload === undefined) payload = { name: 'x' };
      break;
    case 'param-hostile': {
      const names = Object.keys(params);
      if (names.length) params[names[c.pick % names.length]] = c.id;
      else query.push(['id', c.id]);
      break;
    }
    case 'query-hostile': {
      const keys = Object.keys(c.query);
      const which = c.pick % 4;
      const v = typeof c.value === 'string' ? c.value : serialize(c.value);
      if (which === 0 && keys.length)
        query.push([keys[c.pick % keys.length], v]); // duplicate key
      else if (which === 1 && keys.length)
        query.splice(
          0,
          query.length,
          ...query.map(([k, old]): [string, string] => (k === keys[c.pick % keys.length] ? [k, v] : [k, old])),
        );
      else if (which === 2) query.push([c.key, v]);
      else query.push([QUERY_KEYS[c.pick % QUERY_KEYS.length], v]);
      break;
    }
    case 'header-hostile':
      headers[c.header] = c.headerValue;
      break;
    case 'method':
      method = c.method;
      // DELETE /v1/campaigns/:cid is a real operation (§10): on the world campaign it would delete what every later
      // case relies on. Another unexpected method tests the same routing.
      if (method === 'DELETE' && c.route.path === '/v1/campaigns/:cid') method = 'PATCH';
      break;
    default:
      break;
  }

  const path = c.route.path.replace(/:([a-z]+)/g, (_m, name: string) =>
    percentEncode(params[name]).replace(/%25/g, c.mutation === 'param-hostile' && c.pick % 3 === 0 ? '%' : '%25'),
  );
  const qs = query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
  if (raw === undefined && payload !== undefined && method !== 'GET' && method !== 'HEAD') raw = serialize(payload);
  if (method === 'GET' || method === 'HEAD') raw = c.mutation === 'raw-body' ? raw : undefined;
  if (raw !== undefined && contentType) headers['content-type'] = contentType;
  if (headers['idempotency-key'] === undefined && method !== 'GET' && method !== 'HEAD' && c.pick % 2 === 0)
    headers['idempotency-key'] = `fz-${c.pick}-${Math.abs(hash(String(raw)))}`;
  const campaign = params.cid === WORLD.campaign && c.route.path.includes(':cid') ? WORLD.campaign : undefined;
  return { method, path: qs ? `${path}?${qs}` : path, headers, body: raw, mutation: c.mutation, campaign };
}

/** encodeURIComponent that also carries lone surrogates (as WTF-8 bytes) instead of throwing. */
export function percentEncode(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i += Math.max(1, Math.floor(s.length / 64))) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Longer than the service's REQUEST_TIMEOUT_MS (30 s), so a slow body gets its 408 first. */
const ANSWER_TIMEOUT_MS = 45_000;

/** One raw HTTP/1.1 exchange (node:http: methods, headers and bytes exactly as given). */
export function send(
  baseUrl: string,
  r: { method: string; path: string; headers: Record<string, string>; body?: string | Buffer },
): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers: {
          ...r.headers,
          ...(r.body !== undefined ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}),
        },
        agent,
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        // A live stream (SSE) never ends by itself: its status and headers are the answer.
        if (contentType.startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, contentType, text: '' });
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // A request the service never answers is a finding, not a reason for the run to wait forever.
    req.setTimeout(ANSWER_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms: ${r.method} ${r.path.slice(0, 200)}`)),
    );
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

/** What must hold for every answer: no 5xx; every 4xx is problem+json with a code and the same status. */
export function checkAnswer(method: string, a: Answer): string | null {
  if (a.status >= 500 || a.status < 100) return `status ${a.status}`;
  if (a.status < 400) return null;
  if (method === 'HEAD') return null;
  if (!a.contentType.startsWith('application/problem+json'))
    return `4xx with content-type "${a.contentType}": ${a.text.slice(0, 200)}`;
  let p: any;
  try {
    p = JSON.parse(a.text);
  } catch {
    return `problem body is not JSON: ${a.text.slice(0, 200)}`;
  }
  if (typeof p?.code !== 'string' || p.code.length === 0) return `problem without a code: ${a.text.slice(0, 200)}`;
  if (p.status !== a.status) return `problem status ${p.status} differs from HTTP ${a.status}`;
  return null;
}

const preview = (b: string | Buffer | undefined) =>
  b === undefined ? undefined : (typeof b === 'string' ? b : b.toString('latin1')).slice(0, 300);

/** Seeds the world, then sends `cases` broken requests and checks each answer (and the campaign version). */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const seed = o.seed ?? Date.now() % 2_147_483_647;
  const auth: Record<string, string> = o.token ? { authorization: `Bearer ${o.token}` } : {};
  const jsonCall = async (method: string, path: string, body?: unknown) =>
    (
      await send(o.baseUrl, {
        method,
        path,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).status;
  await seedFuzzWorld(jsonCall);
  const versionOf = async (cid: string) => {
    const a = await send(o.baseUrl, { method: 'GET', path: `/v1/campaigns/${cid}`, headers: auth });
    if (a.status !== 200) throw new Error(`GET campaign ${cid} → ${a.status} ${a.text.slice(0, 200)}`);
    return JSON.parse(a.text).version as number;
  };
  let version = await versionOf(WORLD.campaign);

  const report: FuzzReport = { cases: 0, histogram: {}, byMutation: {}, failures: [], seed };
  const arb = caseArbitrary(o.routes ?? ROUTES);
  const batch = 100;
  for (let start = 0; start < o.cases; start += batch) {
    const seeds = fc.sample(arb, { numRuns: Math.min(batch, o.cases - start), seed: seed + start });
    for (const c of seeds) {
      const r = buildRequest(c, o.viewerToken && report.cases % 5 === 4 ? o.viewerToken : o.token);
      let problem: string | null;
      let status = 0;
      try {
        const a = await send(o.baseUrl, r);
        status = a.status;
        problem = checkAnswer(r.method, a);
      } catch (err) {
        problem = `transport error: ${(err as Error).message}`;
      }
      if (r.campaign) {
        const now = await versionOf(r.campaign);
        if (status >= 400 && now !== version)
          problem = `${problem ? `${problem}; ` : ''}rejected with ${status} but the campaign version moved ${version} → ${now}`;
        version = now;
      }
      report.cases++;
      report.histogram[status] = (report.histogram[status] ?? 0) + 1;
      report.byMutation[r.mutation] = (report.byMutation[r.mutation] ?? 0) + 1;
      if (problem)
        report.failures.push({
          request: {
            method: r.method,
            path: r.path.slice(0, 300),
            headers: r.headers,
            body: preview(r.body),
            mutation: r.mutation,
          },
          status,
          problem,
        });
      if (o.onProgress && report.cases % 1000 === 0) o.onProgress(report.cases);
    }
  }
  return report;
}

/** One line per status, e.g. `200: 812`. */
export function formatHistogram(h: Record<string, number>): string {
  return Object.entries(h)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `  ${s}: ${n}`)
    .join('\n');
}
