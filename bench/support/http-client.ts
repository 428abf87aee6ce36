/** A minimal JSON client for driving a server in benchmarks; any non-2xx is an error (a broken run, not a number). */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  async send(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await fetch(`${this.baseUrl}${path}`, init);
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  }

  get = async (path: string): Promise<any> => (await this.send('GET', path)).json;
  text = async (path: string): Promise<string> => (await this.send('GET', path)).text;
  post = async (path: string, body: unknown = {}): Promise<any> => (await this.send('POST', path, body)).json;
  put = async (path: string, body: unknown): Promise<any> => (await this.send('PUT', path, body)).json;

  /** Waits until the memory worker has processed the campaign's current version. */
  async settled(campaignId: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const c = await this.get(`/v1/campaigns/${campaignId}`);
      if (c.processedVersion >= c.version) return;
      if (Date.now() > deadline)
        throw new Error(
          `campaign ${campaignId}: worker at ${c.processedVersion} of ${c.version} after ${timeoutMs} ms`,
        );
      const wait = Math.min(30_000, Math.max(1, deadline - Date.now()));
      await this.send('GET', `/v1/campaigns/${campaignId}/context?minVersion=${c.version}&waitMs=${wait}`);
    }
  }
}

/** Times one GET in ms (body read included). */
export async function timedGet(url: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const buf = await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status, bytes: buf.byteLength };
}
