import { Everything, normalize, readEverything, ReadOptions } from './read-everything';
import { HttpResult, TestApp } from './test-app';

/**
 * DESIGN §15 helpers: an export's text, an import of a text, and every read of a campaign — `readEverything` (the
 * fork suite's) plus what a fork does not carry and an import does: the usage ledger and the game-state snapshots.
 */

export const NDJSON = 'application/x-ndjson';

export interface Portable extends Everything {
  usage: unknown;
  memoryUsage: Record<string, unknown>;
  snapshots: Record<string, unknown>;
}

/** A snapshot, a stale one, a tool rule and an account that only a snapshot made: the cache an import restores. */
export async function addGameState(t: TestApp, cid: string, headers: Record<string, string> = {}): Promise<void> {
  const put = async (path: string, body: unknown, method = 'PUT') => {
    const r = await t.http(method, `/v1/campaigns/${cid}${path}`, body, headers);
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
  };
  await put('/accounts/bo-acc/login', { agentId: 'agent-bo' }, 'POST');
  await put('/accounts/bo-acc/snapshots/get_status', { content: { credits: 120, ship: { hull: 80 } }, tick: 7 });
  await put('/accounts/bo-acc/snapshots/get_cargo', { content: { ore: 3 }, tick: 8 });
  await put('/accounts/bo-acc/actions', { action: 'mine', tick: 9 }, 'POST');
  await put('/accounts/scout-acc/snapshots/get_map', { content: { systems: ['Sol', 'Vega'] }, tick: 5 });
  await put('/snapshot-tools/get_status', { title: 'Status', fields: ['credits'], maxAgeTicks: 30 });
}

export async function exportText(t: TestApp, cid: string, query = '', headers: Record<string, string> = {}) {
  const r = await t.http('GET', `/v1/campaigns/${encodeURIComponent(cid)}/export${query}`, undefined, headers);
  if (r.status !== 200) throw new Error(`export ${cid}${query} → ${r.status} ${r.text.slice(0, 300)}`);
  return r.text;
}

export function importText(t: TestApp, text: string, id?: string, headers: Record<string, string> = {}) {
  const q = id === undefined ? '' : `?id=${encodeURIComponent(id)}`;
  return t.http('POST', `/v1/campaigns/import${q}`, text, { 'content-type': NDJSON, ...headers });
}

/** The lines of an export as objects. */
export const linesOf = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

export const textOf = (lines: unknown[]): string => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

export async function readPortable(t: TestApp, cid: string, o: ReadOptions = {}): Promise<Portable> {
  const base = `/v1/campaigns/${encodeURIComponent(cid)}`;
  const get = async (path: string): Promise<HttpResult['body']> => {
    const r = await t.http('GET', `${base}${path}`, undefined, o.headers);
    if (r.status !== 200) throw new Error(`GET ${base}${path} → ${r.status} ${r.text.slice(0, 300)}`);
    return r.body;
  };
  const everything = await readEverything(t, cid, o);
  const memoryUsage: Record<string, unknown> = {};
  // A memory of an as-of read may have been deleted since: its calls are read on the current campaign only.
  if (o.asOf === undefined)
    for (const m of everything.memories.all)
      memoryUsage[m.id] = await get(`/memories/${encodeURIComponent(m.id)}/usage`);
  const snapshots: Record<string, unknown> = {};
  if (o.asOf === undefined)
    for (const a of (everything.accounts as { items: { account: string }[] }).items) {
      const list = await get(`/accounts/${encodeURIComponent(a.account)}/snapshots`);
      snapshots[a.account] = list;
      for (const s of list.items as { tool: string }[])
        snapshots[`${a.account}/${s.tool}`] = await get(`/accounts/${a.account}/snapshots/${s.tool}`);
    }
  return { ...everything, usage: await get('/usage'), memoryUsage, snapshots };
}

/** What may differ between a campaign and its import: the id and name (as for a fork), and the usage report's id. */
export function normalizePortable(p: Portable): Portable {
  const copy = { ...(normalize(p) as Portable), usage: structuredClone(p.usage) };
  delete (copy.usage as Record<string, unknown>).campaignId;
  return copy;
}

/** Search compared by the entries returned, not by score: between engines the scores are each engine's own (§15). */
export function unscored<T extends Everything>(e: T): T {
  const copy = structuredClone(e);
  for (const r of Object.values(copy.search) as { items: { score?: number; snippet?: string }[] }[])
    for (const hit of r.items) {
      delete hit.score;
      delete hit.snippet;
    }
  return copy;
}
