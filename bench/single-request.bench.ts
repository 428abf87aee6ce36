import { TestApp } from '../test/support/test-app';
import { HealthProbe } from './support/health-probe';
import { round } from './support/stats';
import { rng, storyLine } from './support/story-text';

/** §13: a single request up to the documented limits blocks others at most this long. */
export const BLOCK_TARGET_MS = 50;

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A message of story prose about `chars` long. */
function line(seed: number, chars: number): string {
  const next = rng(seed);
  let text = '';
  while (text.length < chars) text += `${storyLine(next, 'Mira', 'the Old Mine')} `;
  return text.slice(0, chars).trim();
}
const batch = (from: number, n: number, chars: number) => ({
  messages: Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? 'npc' : 'player',
    speaker: i % 2 ? 'Mira' : 'Aria',
    content: line(from + i, chars),
  })),
});

/**
 * The requests of §13's list, each alone: how long /health, polled from another process, waited while it ran. A
 * refused request must still be refused (its status is checked), a valid one accepted.
 */
export async function singleRequestBlocking(t: TestApp, cid = 'single'): Promise<Record<string, unknown>[]> {
  const send = async (method: string, path: string, body: string | object, expect: number) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: JSON_HEADERS,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status !== expect) throw new Error(`${method} ${path} → ${res.status}, expected ${expect}`);
  };
  await send('POST', '/v1/campaigns', { id: cid, name: cid }, 201);
  // 5,000 messages to fork (500 a request, 1,900 characters each: under the 1 MiB body).
  for (let i = 0; i < 9; i++) await send('POST', `/v1/campaigns/${cid}/messages`, batch(i * 500, 500, 1_900), 201);
  const probe = new HealthProbe(`${t.url}/health`);
  try {
    await probe.ready();
    // Bodies are serialized before the clock starts: this client shares the service's process and event loop.
    const post = JSON.stringify(batch(9_000, 500, 1_900));
    const nested = `{"messages":${'['.repeat(1_000_000 - 20)}`;
    const sectors = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`s${i}`, { hp: i }]));
    const merge = JSON.stringify({ content: { sectors }, merge: true });
    const cases: [string, () => Promise<void>][] = [
      [
        'valid 500-message post (1,900 characters each)',
        () => send('POST', `/v1/campaigns/${cid}/messages`, post, 201),
      ],
      ['refused 1 MB nested body', () => send('POST', `/v1/campaigns/${cid}/messages`, nested, 400)],
      [
        'refused 20,000-key merge',
        () => send('PUT', `/v1/campaigns/${cid}/accounts/acc/snapshots/get_map`, merge, 413),
      ],
      ['fork of 5,000 messages', () => send('POST', `/v1/campaigns/${cid}/fork`, { id: `${cid}-fork` }, 201)],
    ];
    const rows: Record<string, unknown>[] = [];
    for (const [request, work] of cases) {
      await probe.ready();
      const { workMs, maxMs, probes } = await probe.during(work);
      rows.push({
        request,
        'request ms': round(workMs),
        '/health max ms': round(maxMs),
        probes,
        'target ms': BLOCK_TARGET_MS,
      });
    }
    return rows;
  } finally {
    probe.stop();
  }
}
