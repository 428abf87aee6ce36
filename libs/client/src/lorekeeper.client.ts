import {
  ClientOptions,
  WriteOptions,
  AsOf,
  CampaignListItem,
  MemoryHistoryItem,
  MessageInput,
  Query,
  PlayerInput,
  FactInput,
  SnapshotInput,
  SnapshotToolInput,
} from './client.types';
import { LorekeeperError } from './errors';
import { SseParser, StreamEvent } from './sse';

/** Typed client for the Lorekeeper REST API (v1). */
export class LorekeeperClient {
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.fetcher = options.fetch ?? fetch;
  }

  /** One request; JSON in, JSON (or text) out; problem+json becomes a LorekeeperError. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped callers get the parsed JSON as is
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    query: Query = {},
    write: WriteOptions = {},
  ): Promise<T> {
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (write.idempotencyKey) headers['idempotency-key'] = write.idempotencyKey;
    if (write.ifMatch !== undefined) headers['if-match'] = String(write.ifMatch);
    const res = await this.fetcher(`${this.options.baseUrl.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined;
    if (!res.ok)
      throw new LorekeeperError(res.status, String(json?.code ?? `HTTP_${res.status}`), json ?? { detail: text });
    return (json ?? text) as T;
  }

  private c(campaignId: string, rest = ''): string {
    return `/v1/campaigns/${encodeURIComponent(campaignId)}${rest}`;
  }

  createCampaign(body: { id?: string; name: string; perRoleMemory?: boolean }, w?: WriteOptions) {
    return this.request('POST', '/v1/campaigns', body, {}, w);
  }
  getCampaign(campaignId: string, query: AsOf = {}) {
    return this.request('GET', this.c(campaignId), undefined, query);
  }
  /** The campaigns this key may see, by id, `limit` after the id `after`. */
  listCampaigns(query: { limit?: number; after?: string } = {}): Promise<{ items: CampaignListItem[] }> {
    return this.request('GET', '/v1/campaigns', undefined, query);
  }
  /** Deletes a campaign and everything of it (its forks stay); a second delete is 404. */
  async deleteCampaign(campaignId: string, w?: WriteOptions): Promise<void> {
    await this.request('DELETE', this.c(campaignId), undefined, {}, w);
  }

  // Timelines (DESIGN §10, docs/timelines.md).
  /** A new campaign that is this one as of `atVersion` (default: now); no model call. */
  fork(campaignId: string, body: { id?: string; name?: string; atVersion?: number } = {}, w?: WriteOptions) {
    return this.request('POST', this.c(campaignId, '/fork'), body, {}, w);
  }
  /** Back to `toVersion` in place (timeline + 1); `keepAs` first forks the whole campaign under that id. */
  rewind(
    campaignId: string,
    body: { toVersion: number; keepAs?: string },
    w?: WriteOptions,
  ): Promise<{ version: number; timeline: number; discarded: { game: number; memory: number } }> {
    return this.request('POST', this.c(campaignId, '/rewind'), body, {}, w);
  }
  /** Retracts messages (swipe, retcon): all or nothing; memories built from them are revised by the worker. */
  retractMessages(
    campaignId: string,
    indexes: number[],
    o: { reason?: string } = {},
    w?: WriteOptions,
  ): Promise<{ version: number; timeline: number }> {
    return this.request('POST', this.c(campaignId, '/messages/retract'), { indexes, ...o }, {}, w);
  }
  /** Rewrites a memory: served as written from now on, `origin: dm`, locked against revision. */
  correctMemory(campaignId: string, memoryId: string, summary: string, w?: WriteOptions) {
    return this.request('PUT', this.c(campaignId, `/memories/${encodeURIComponent(memoryId)}`), { summary }, {}, w);
  }
  /** Deletes a memory: never served again. */
  async deleteMemory(campaignId: string, memoryId: string, w?: WriteOptions): Promise<void> {
    await this.request('DELETE', this.c(campaignId, `/memories/${encodeURIComponent(memoryId)}`), undefined, {}, w);
  }
  /** A memory's wordings and statuses, oldest first. */
  memoryHistory(campaignId: string, memoryId: string, query: AsOf = {}): Promise<{ items: MemoryHistoryItem[] }> {
    const path = `/memories/${encodeURIComponent(memoryId)}/history`;
    return this.request('GET', this.c(campaignId, path), undefined, query);
  }
  putLocation(campaignId: string, locationId: string, body: { name: string; dangerLevel?: string }, w?: WriteOptions) {
    return this.request('PUT', this.c(campaignId, `/locations/${encodeURIComponent(locationId)}`), body, {}, w);
  }
  putNpc(
    campaignId: string,
    npcId: string,
    body: { name: string; aliases?: string[]; locationId?: string | null },
    w?: WriteOptions,
  ) {
    return this.request('PUT', this.c(campaignId, `/npcs/${encodeURIComponent(npcId)}`), body, {}, w);
  }
  putQuest(
    campaignId: string,
    questId: string,
    body: { name: string; objectives: { id: string; name: string }[] },
    w?: WriteOptions,
  ) {
    return this.request('PUT', this.c(campaignId, `/quests/${encodeURIComponent(questId)}`), body, {}, w);
  }
  recordMessages(
    campaignId: string,
    messages: MessageInput[],
    w?: WriteOptions,
  ): Promise<{ indexes: number[]; version: number }> {
    return this.request('POST', this.c(campaignId, '/messages'), { messages }, {}, w);
  }
  listMessages(
    campaignId: string,
    query: { after?: number; limit?: number; locationId?: string; includeRetracted?: boolean } & AsOf = {},
  ) {
    return this.request('GET', this.c(campaignId, '/messages'), undefined, query);
  }
  /** POST …/commands/<name> → {version}. */
  command(
    campaignId: string,
    name: string,
    body: Record<string, unknown> = {},
    w?: WriteOptions,
  ): Promise<{ version: number }> {
    return this.request('POST', this.c(campaignId, `/commands/${name}`), body, {}, w);
  }
  /** `more`: §8 split parties (`players`: only they move) and story time. */
  changeLocation(
    campaignId: string,
    toLocationId: string,
    w?: WriteOptions,
    more: { players?: string[]; storyTime?: string } = {},
  ) {
    return this.command(campaignId, 'change-location', { toLocationId, ...more }, w);
  }
  completeObjective(campaignId: string, questId: string, objectiveId: string, w?: WriteOptions) {
    return this.command(campaignId, 'complete-objective', { questId, objectiveId }, w);
  }
  completeQuest(campaignId: string, questId: string, w?: WriteOptions) {
    return this.command(campaignId, 'complete-quest', { questId }, w);
  }
  progressAct(campaignId: string, actId: string, w?: WriteOptions) {
    return this.command(campaignId, 'progress-act', { actId }, w);
  }
  updateLocationState(
    campaignId: string,
    body: { locationId: string; dangerLevel?: string; completeEncounter?: string },
    w?: WriteOptions,
  ) {
    return this.command(campaignId, 'update-location-state', body, w);
  }
  endRound(campaignId: string, w?: WriteOptions, more: { storyTime?: string } = {}) {
    return this.command(campaignId, 'end-round', more, w);
  }
  memories(
    campaignId: string,
    query: { scope?: string; subjectId?: string; limit?: number; before?: string } & AsOf = {},
  ) {
    return this.request('GET', this.c(campaignId, '/memories'), undefined, query);
  }
  events(campaignId: string, query: { stream?: 'game' | 'memory'; after?: number; limit?: number } & AsOf = {}) {
    return this.request('GET', this.c(campaignId, '/events'), undefined, query);
  }
  /** Ranked full-text search (DESIGN §7 query language). */
  search(
    campaignId: string,
    query: {
      q: string;
      in?: 'messages' | 'reasoning' | 'memories';
      limit?: number;
      role?: string;
      locationId?: string;
    } & AsOf,
  ) {
    return this.request('GET', this.c(campaignId, '/search'), undefined, query);
  }
  postBroadcast(body: { content: string; from: string }, w?: WriteOptions) {
    return this.request('POST', '/v1/broadcasts', body, {}, w);
  }
  broadcasts(query: { q?: string; limit?: number } = {}) {
    return this.request('GET', '/v1/broadcasts', undefined, query);
  }
  /** JSON context (format=json); `asOf` in the query reads it as the campaign stood at that version. */
  context(campaignId: string, query: Query = {}) {
    return this.request('GET', this.c(campaignId, '/context'), undefined, { ...query, format: 'json' });
  }
  /** Prompt-ready text context (format=text). */
  contextText(campaignId: string, query: Query = {}): Promise<string> {
    return this.request('GET', this.c(campaignId, '/context'), undefined, { ...query, format: 'text' });
  }

  // Layered context, world state and game state (DESIGN §5, §6, §8).
  /** Partial (§8): any of perRoleMemory and clock. */
  changeSettings(
    campaignId: string,
    body: { perRoleMemory?: boolean; clock?: 'story' | 'wall' | 'none' },
    w?: WriteOptions,
  ) {
    return this.request('PUT', this.c(campaignId, '/settings'), body, {}, w);
  }
  putPlayer(campaignId: string, playerId: string, body: PlayerInput, w?: WriteOptions) {
    return this.request('PUT', this.c(campaignId, `/players/${encodeURIComponent(playerId)}`), body, {}, w);
  }
  players(campaignId: string) {
    return this.request('GET', this.c(campaignId, '/players'));
  }
  getBible(campaignId: string, query: AsOf = {}) {
    return this.request('GET', this.c(campaignId, '/bible'), undefined, query);
  }
  putBible(campaignId: string, body: { text: string; dmOnly?: string }, w?: WriteOptions) {
    return this.request('PUT', this.c(campaignId, '/bible'), body, {}, w);
  }
  glossary(campaignId: string, query: AsOf = {}) {
    return this.request('GET', this.c(campaignId, '/glossary'), undefined, query);
  }
  setGlossaryTerm(campaignId: string, term: string, definition: string, w?: WriteOptions) {
    return this.request('PUT', this.c(campaignId, `/glossary/${encodeURIComponent(term)}`), { definition }, {}, w);
  }
  hideGlossaryTerm(campaignId: string, term: string, w?: WriteOptions) {
    return this.request('DELETE', this.c(campaignId, `/glossary/${encodeURIComponent(term)}`), undefined, {}, w);
  }
  assertFact(campaignId: string, type: string, key: string, body: FactInput, w?: WriteOptions) {
    const path = `/facts/${encodeURIComponent(type)}/${encodeURIComponent(key)}`;
    return this.request('PUT', this.c(campaignId, path), body, {}, w);
  }
  resolveFact(campaignId: string, type: string, key: string, w?: WriteOptions) {
    const path = `/facts/${encodeURIComponent(type)}/${encodeURIComponent(key)}/resolve`;
    return this.request('POST', this.c(campaignId, path), {}, {}, w);
  }
  facts(campaignId: string, query: { status?: 'active' | 'resolved' | 'expired' | 'all' } & AsOf = {}) {
    return this.request('GET', this.c(campaignId, '/facts'), undefined, query);
  }
  digest(campaignId: string, query: AsOf = {}) {
    return this.request('GET', this.c(campaignId, '/digest'), undefined, query);
  }
  putSnapshot(campaignId: string, account: string, tool: string, body: SnapshotInput) {
    return this.request('PUT', this.c(campaignId, `${this.acc(account)}/snapshots/${encodeURIComponent(tool)}`), body);
  }
  snapshots(campaignId: string, account: string, query: { tick?: number } = {}) {
    return this.request('GET', this.c(campaignId, `${this.acc(account)}/snapshots`), undefined, query);
  }
  snapshot(campaignId: string, account: string, tool: string) {
    return this.request('GET', this.c(campaignId, `${this.acc(account)}/snapshots/${encodeURIComponent(tool)}`));
  }
  reportAction(campaignId: string, account: string, body: { action: string; tick?: number }) {
    return this.request('POST', this.c(campaignId, `${this.acc(account)}/actions`), body);
  }
  login(campaignId: string, account: string, agentId: string, w?: WriteOptions) {
    return this.request('POST', this.c(campaignId, `${this.acc(account)}/login`), { agentId }, {}, w);
  }
  logout(campaignId: string, account: string, w?: WriteOptions) {
    return this.request('POST', this.c(campaignId, `${this.acc(account)}/logout`), {}, {}, w);
  }
  accounts(campaignId: string) {
    return this.request('GET', this.c(campaignId, '/accounts'));
  }
  putSnapshotTool(campaignId: string, tool: string, body: SnapshotToolInput) {
    return this.request('PUT', this.c(campaignId, `/snapshot-tools/${encodeURIComponent(tool)}`), body);
  }

  /**
   * GET …/stream as an async iterator of events in commit order, after the event id `after` (omitted:
   * from the start). It ends when the server ends the stream (a `cutoff` or `deleted` notice comes
   * last); resume with `after` = the last `id` seen. Stop early with `signal` or `break`.
   */
  async *stream(campaignId: string, o: { after?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (o.after !== undefined) headers['last-event-id'] = o.after;
    const res = await this.fetcher(`${this.options.baseUrl.replace(/\/$/, '')}${this.c(campaignId, '/stream')}`, {
      headers,
      signal: o.signal,
    });
    if (!res.ok || !res.body) {
      const text = await res.text();
      const json = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined;
      throw new LorekeeperError(res.status, String(json?.code ?? `HTTP_${res.status}`), json ?? { detail: text });
    }
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield* parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  private acc(account: string): string {
    return `/accounts/${encodeURIComponent(account)}`;
  }
}
