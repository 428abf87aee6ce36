import { request as httpRequest } from 'node:http';

/**
 * DESIGN §8 "Decided on the route, not on the URL text": the spellings of one path that must all reach the same
 * route and decision (issue 28: `%65vents` reached the event log with a player's key).
 */
/** A concrete path for a route pattern: each `:param` from `params`, else `x1`. */
const concrete = (url: string, params: Record<string, string>) =>
  url.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? 'x1');

const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16);
  return '%' + (upper ? h.toUpperCase() : h.toLowerCase());
};

/** Indexes of the path's static segments (those the router compares letter by letter). */
const staticSegments = (pattern: string) =>
  pattern
    .split('/')
    .map((s, i) => (s !== '' && !s.startsWith(':') && /[a-z]/i.test(s) ? i : -1))
    .filter((i) => i >= 0);

/** Every spelling of a path that must reach the same decision: the list. */
export function spellings(pattern: string, params: Record<string, string> = {}): [string, string][] {
  const path = concrete(pattern, params);
  const segs = path.split('/');
  const statics = staticSegments(pattern);
  const last = statics.at(-1);
  const map = (f: (s: string, i: number) => string) => segs.map(f).join('/');
  const all: [string, string][] = [
    ['plain', path],
    // the first letter of every static segment, lower-case hex (%65vents)
    ['encoded-lower', map((s, i) => (statics.includes(i) ? s.replace(/[a-z]/i, (c) => hex(c, false)) : s))],
    // every letter of the last static segment, upper-case hex (%6D%45…)
    ['encoded-upper', map((s, i) => (i === last ? s.replace(/[a-z]/gi, (c) => hex(c, true)) : s))],
    ['doubled-slashes', path.replace(/\//g, '//')],
    ['trailing-slash', path === '/' ? '//' : path + '/'],
    ['dot-segments', path === '/' ? '/./' : segs.slice(0, -1).join('/') + '/./' + segs.at(-1)],
    ['dot-dot-segments', segs.slice(0, -1).join('/') + '/zz/%2e%2E/' + segs.at(-1)],
    ['semicolon-params', map((s, i) => (i === segs.length - 1 || i === last ? s + ';jsessionid=1' : s))],
  ];
  return all.filter(([, p], i) => i === 0 || p !== path);
}

export interface RawAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A raw request: the path goes out exactly as written (fetch would resolve dot segments first). */
export function raw(base: string, method: string, path: string, token?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const req = httpRequest({ hostname, port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
