import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  body?: unknown;
  /** Headers of every request (with `body`, content-type is added). */
  headers?: Record<string, string>;
  /** Paths (on `url`'s origin) each connection requests in turn instead of `url`'s own. */
  paths?: string[];
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  /** Successful (2xx) requests per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  ok: number;
  /** Non-2xx answers plus socket errors and timeouts. */
  failed: number;
}

/** One autocannon run (the load generator lives in this process; the server is a child process). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    headers: { ...spec.headers, ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }) },
    requests: spec.paths?.map((path) => ({ method: spec.method ?? 'GET', path })),
    connections: spec.connections,
    duration: spec.durationSec,
  });
  const ok = result['2xx'];
  return {
    rps: ok / Math.max(result.duration, 1e-9),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}
