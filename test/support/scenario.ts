import { TestApp } from './test-app';

/** Small fluent helpers for scripted campaigns over HTTP; each asserts the 2xx it expects. */
export function scenario(t: TestApp, campaignId: string) {
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await t.http(method, `/v1/campaigns/${campaignId}${path}`, body, headers);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  };
  return {
    create: (name = 'Test campaign', extra: Record<string, unknown> = {}) =>
      t.http('POST', '/v1/campaigns', { id: campaignId, name, ...extra }).then((r) => {
        if (r.status !== 201) throw new Error(`create → ${r.status} ${r.text}`);
        return r.body;
      }),
    location: (id: string, name: string, dangerLevel?: string) =>
      ok('PUT', `/locations/${id}`, { name, ...(dangerLevel ? { dangerLevel } : {}) }),
    npc: (id: string, name: string, locationId: string | null, aliases?: string[]) =>
      ok('PUT', `/npcs/${id}`, { name, locationId, ...(aliases ? { aliases } : {}) }),
    quest: (id: string, name: string, objectives: { id: string; name: string }[]) =>
      ok('PUT', `/quests/${id}`, { name, objectives }),
    say: (...messages: Record<string, unknown>[]) => ok('POST', '/messages', { messages }),
    move: (toLocationId: string) => ok('POST', '/commands/change-location', { toLocationId }),
    command: (name: string, body: unknown = {}) => ok('POST', `/commands/${name}`, body),
    campaign: () => ok('GET', ''),
    memories: (query = '') => ok('GET', `/memories${query}`),
    /** Waits until the worker has processed everything up to the current version. */
    settled: async () => {
      const c = await ok('GET', '');
      return ok('GET', `/context?minVersion=${c.version}&waitMs=10000`);
    },
    context: (query = '') => t.http('GET', `/v1/campaigns/${campaignId}/context${query}`),
  };
}
