import { LorekeeperClient, WriteOptions } from '@app/client';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { input, output } from './mcp.schemas';
import { ServiceCall, ServiceOptions } from './service-call';

type Shape = z.ZodRawShape;
type Structured = Record<string, unknown>;
type Args<I extends Shape> = z.output<z.ZodObject<I>>;

const KIND: Record<'read' | 'write' | 'upsert' | 'destructive', ToolAnnotations> = {
  read: { readOnlyHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  upsert: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

interface ToolSpec<I extends Shape> {
  title: string;
  description: string;
  input: I;
  output: z.ZodObject;
  kind: keyof typeof KIND;
  run(client: LorekeeperClient, args: Args<I>): Promise<unknown>;
  /** The text block when it should not simply be the JSON (the prompt-ready context). */
  text?(out: Structured): string;
}

/** Splits the Idempotency-Key / If-Match arguments off a write's body. */
function writeOf<T extends WriteOptions>(args: T): [WriteOptions, Omit<T, keyof WriteOptions>] {
  const { idempotencyKey, ifMatch, ...rest } = args;
  return [{ idempotencyKey, ifMatch }, rest];
}

/**
 * Lorekeeper's tools and resources for agent runtimes; every call goes through the HTTP API with the key
 * the server was given, so a viewer-bound key reads only its character's view (DESIGN §8).
 */
export function createLorekeeperMcpServer(options: ServiceOptions): McpServer {
  const server = new McpServer(
    { name: 'lorekeeper', version: '0.1.0' },
    {
      instructions:
        'Lorekeeper remembers a game for you. Find campaigns with list_campaigns; set up with create_campaign, ' +
        'put_location, put_npc, put_player, put_quest, put_bible; record every turn with record_messages ' +
        '(visibility private + audience for whispers); report story changes with the commands ' +
        '(change_location, complete_objective, end_round, …); ' +
        'read get_context before each turn and search_* for what fell out of it. Undo with retract_messages (a ' +
        'swiped reply), rewind_campaign (back to a version) or fork_campaign (a what-if branch); fix a memory with ' +
        'correct_memory.',
    },
  );

  const tool = <I extends Shape>(name: string, spec: ToolSpec<I>): void => {
    const handler = async (args: Args<I>): Promise<CallToolResult> => {
      const call = new ServiceCall(options);
      try {
        const out = toStructured(await spec.run(call.client, args));
        return { content: [{ type: 'text', text: spec.text?.(out) ?? JSON.stringify(out) }], structuredContent: out };
      } catch (err) {
        return { content: [{ type: 'text', text: call.describe(err) }], isError: true };
      }
    };
    server.registerTool(
      name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: z.strictObject(spec.input),
        outputSchema: spec.output,
        annotations: KIND[spec.kind],
      },
      // The SDK's callback type cannot follow the generic shape; the schema above is what it validates against.
      handler as never,
    );
  };

  for (const table of [SETUP_TOOLS, PLAY_TOOLS, STATE_TOOLS, READ_TOOLS, TIMELINE_TOOLS]) {
    for (const [name, s] of Object.entries(table)) tool(name, s);
  }
  registerResources(server, options);
  return server;
}

/** A tool table: name → spec, in the order tools/list shows them. */
type ToolTable = Record<string, ToolSpec<Shape>>;

/** Keeps each entry's argument type while the table holds them side by side. */
const spec = <I extends Shape>(s: ToolSpec<I>): ToolSpec<Shape> => s as unknown as ToolSpec<Shape>;

function toStructured(value: unknown): Structured {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Structured) : { value };
}

const SETUP_TOOLS: ToolTable = {
  create_campaign: spec({
    title: 'Create a campaign',
    description: 'Create a campaign. The party starts nowhere: the first change_location places it.',
    input: input.createCampaign,
    output: output.campaign,
    kind: 'write',
    run: (c, a) => {
      const [w, body] = writeOf(a);
      return c.createCampaign(body, w);
    },
  }),
  list_campaigns: spec({
    title: 'List campaigns',
    description:
      'The campaigns this key may see, by id (name, version, the campaign a fork came from). Page with after = ' +
      'the last id of the previous page.',
    input: input.listCampaigns,
    output: output.campaigns,
    kind: 'read',
    run: (c, a) => c.listCampaigns(a),
  }),
  delete_campaign: spec({
    title: 'Delete a campaign',
    description:
      'Delete a campaign and everything of it: messages, memories, world, game state. Its forks stay. ' +
      'Cannot be undone; a second delete is CAMPAIGN_NOT_FOUND.',
    input: input.deleteCampaign,
    output: output.deletedCampaign,
    kind: 'destructive',
    run: async (c, a) => {
      const [w, { campaignId }] = writeOf(a);
      await c.deleteCampaign(campaignId, w);
      return { deleted: true, campaignId };
    },
  }),
  get_campaign: spec({
    title: 'Campaign state',
    description: 'Campaign state: version, current location and act, locations, NPCs, quests, memory cursors.',
    input: input.campaign,
    output: output.campaign,
    kind: 'read',
    run: (c, a) => c.getCampaign(a.campaignId),
  }),
  change_settings: spec({
    title: 'Change campaign settings',
    description: 'Turn per-player rolling summaries (perRoleMemory) on or off, or set how contexts date lines (clock).',
    input: input.settings,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.changeSettings(campaignId, body, w);
    },
  }),
  put_location: spec({
    title: 'Register or update a location',
    description: 'Register or update a location (name, danger level).',
    input: input.location,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, locationId, ...body }] = writeOf(a);
      return c.putLocation(campaignId, locationId, body, w);
    },
  }),
  put_npc: spec({
    title: 'Register or update an NPC',
    description: 'Register or update an NPC (name, aliases, where it is; moving it is an update).',
    input: input.npc,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, npcId, ...body }] = writeOf(a);
      return c.putNpc(campaignId, npcId, body, w);
    },
  }),
  put_player: spec({
    title: 'Register or update a player character',
    description: 'Register or update a player character (name, aliases, HUD stats). Players travel with the party.',
    input: input.player,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, playerId, ...body }] = writeOf(a);
      return c.putPlayer(campaignId, playerId, body, w);
    },
  }),
  list_players: spec({
    title: 'Player characters',
    description: 'The campaign’s player characters with their HUD lines.',
    input: input.campaign,
    output: output.players,
    kind: 'read',
    run: (c, a) => c.players(a.campaignId),
  }),
  put_quest: spec({
    title: 'Register or update a quest',
    description: 'Register or update a quest and its objectives.',
    input: input.quest,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, questId, ...body }] = writeOf(a);
      return c.putQuest(campaignId, questId, body, w);
    },
  }),
  put_bible: spec({
    title: 'Set the campaign bible',
    description: 'Set the campaign bible: `text` every agent sees, `dmOnly` only the dm. Never trimmed.',
    input: input.bible,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.putBible(campaignId, body, w);
    },
  }),
  get_bible: spec({
    title: 'Campaign bible',
    description: 'The campaign bible (a viewer-bound key sees its public part only).',
    input: input.campaign,
    output: output.bible,
    kind: 'read',
    run: (c, a) => c.getBible(a.campaignId),
  }),
};

/** A story command (POST /campaigns/:id/<path>): every one answers with the new version. */
function command<I extends Shape>(path: string, title: string, description: string, shape: I): ToolSpec<Shape> {
  return spec({
    title,
    description,
    input: shape,
    output: output.versioned,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a as WriteOptions & { campaignId: string });
      return c.command(campaignId, path, body, w);
    },
  });
}

const PLAY_TOOLS: ToolTable = {
  record_messages: spec({
    title: 'Record messages',
    description:
      'Record 1–500 messages, all or nothing. A whisper: visibility "private" with the hearers in `audience`; ' +
      'a dm note: visibility "dm". Tool-using agents: toolCalls on the assistant message, toolCallId on results.',
    input: input.recordMessages,
    output: output.recorded,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, messages }] = writeOf(a);
      return c.recordMessages(campaignId, messages, w);
    },
  }),
  list_messages: spec({
    title: 'Messages',
    description: 'Recorded messages after an index, oldest first, with their visibility and audience.',
    input: input.listMessages,
    output: output.messages,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.listMessages(campaignId, q),
  }),
  change_location: command(
    'change-location',
    'Move the party',
    'Move the party, or only the named players (a split party); the last player leaving a location records its memory.',
    input.changeLocation,
  ),
  complete_objective: command(
    'complete-objective',
    'Complete an objective',
    'Complete a quest objective (records a world memory).',
    input.completeObjective,
  ),
  complete_quest: command(
    'complete-quest',
    'Complete a quest',
    'Complete a quest (records a world memory).',
    input.completeQuest,
  ),
  progress_act: command(
    'progress-act',
    'Progress the act',
    'Move the story to a new act (records a world memory).',
    input.progressAct,
  ),
  update_location_state: command(
    'update-location-state',
    'Update a location',
    'Change a location’s danger level and/or complete an encounter (CLEARED and encounters record world memories).',
    input.updateLocationState,
  ),
  end_round: command(
    'end-round',
    'End the round',
    'End the current round (Recent Messages keep the last rounds in full).',
    input.endRound,
  ),
  post_broadcast: spec({
    title: 'Post a broadcast',
    description: 'Announce something to other agents (belongs to no campaign).',
    input: input.postBroadcast,
    output: output.broadcast,
    kind: 'write',
    run: (c, a) => {
      const [w, body] = writeOf(a);
      return c.postBroadcast(body, w);
    },
  }),
};

const STATE_TOOLS: ToolTable = {
  assert_fact: spec({
    title: 'Assert a fact',
    description:
      'Assert a world fact (upsert of type+key) for the World State digest; buff/debuff/alert/rumor/timer need a TTL.',
    input: input.assertFact,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, type, key, ...body }] = writeOf(a);
      return c.assertFact(campaignId, type, key, body, w);
    },
  }),
  resolve_fact: spec({
    title: 'Resolve a fact',
    description: 'Resolve a fact: it leaves the digest.',
    input: input.resolveFact,
    output: output.versioned,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, type, key }] = writeOf(a);
      return c.resolveFact(campaignId, type, key, w);
    },
  }),
  list_facts: spec({
    title: 'Facts',
    description: 'Facts by status: active (default), resolved, expired, all.',
    input: input.listFacts,
    output: output.facts,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.facts(campaignId, q),
  }),
  get_digest: spec({
    title: 'World State digest',
    description: 'The deterministic World State digest and its version (pass it to get_context as digestVersion).',
    input: input.campaign,
    output: output.digest,
    kind: 'read',
    run: (c, a) => c.digest(a.campaignId),
  }),
  store_snapshot: spec({
    title: 'Store a game-tool result',
    description: 'Store the latest result of a game tool for an account (merge: true deep-merges partial results).',
    input: input.storeSnapshot,
    output: output.snapshotStored,
    kind: 'upsert',
    run: (c, { campaignId, account, tool: name, ...body }) => c.putSnapshot(campaignId, account, name, body),
  }),
  get_snapshot: spec({
    title: 'A stored game-tool result',
    description: 'One stored tool result with its tick, staleness and per-field update ticks.',
    input: input.snapshot,
    output: output.snapshot,
    kind: 'read',
    run: (c, a) => c.snapshot(a.campaignId, a.account, a.tool),
  }),
  list_snapshots: spec({
    title: 'Stored game-tool results',
    description: 'The account’s stored tools with their age and staleness.',
    input: input.listSnapshots,
    output: output.snapshots,
    kind: 'read',
    run: (c, { campaignId, account, ...q }) => c.snapshots(campaignId, account, q),
  }),
  report_action: spec({
    title: 'Report a game action',
    description: 'Report a game action (travel, mine, buy, …); answers which stored tools it made stale.',
    input: input.reportAction,
    output: output.stale,
    kind: 'write',
    run: (c, { campaignId, account, ...body }) => c.reportAction(campaignId, account, body),
  }),
  login_account: spec({
    title: 'Log an agent in',
    description: 'Bind an agent to a game account (also registers it; the last login wins).',
    input: input.login,
    output: output.login,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, account, agentId }] = writeOf(a);
      return c.login(campaignId, account, agentId, w);
    },
  }),
  logout_account: spec({
    title: 'Log an account out',
    description: 'Log out: deletes this account’s snapshots and unbinds its agent; other accounts are untouched.',
    input: input.logout,
    output: output.logout,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, account }] = writeOf(a);
      return c.logout(campaignId, account, w);
    },
  }),
  configure_snapshot_tool: spec({
    title: 'Configure a game tool',
    description:
      'How a game tool shows in Current Game State: title, fields, the actions that make it stale, maxAgeTicks.',
    input: input.snapshotTool,
    output: output.snapshotTool,
    kind: 'upsert',
    run: (c, { campaignId, tool: name, ...body }) => c.putSnapshotTool(campaignId, name, body),
  }),
  list_glossary: spec({
    title: 'Glossary',
    description: 'The glossary of coined terms, alphabetical.',
    input: input.campaign,
    output: output.glossary,
    kind: 'read',
    run: (c, a) => c.glossary(a.campaignId),
  }),
  set_glossary_term: spec({
    title: 'Define a glossary term',
    description: 'Set and lock a glossary term’s definition.',
    input: input.glossaryTerm,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, term, definition }] = writeOf(a);
      return c.setGlossaryTerm(campaignId, term, definition, w);
    },
  }),
  hide_glossary_term: spec({
    title: 'Hide a glossary term',
    description: 'Hide a glossary term; the worker never adds it again.',
    input: input.hideTerm,
    output: output.versioned,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, term }] = writeOf(a);
      return c.hideGlossaryTerm(campaignId, term, w);
    },
  }),
};

type ContextArgs = Args<typeof input.context>;

/** GET /context with every parameter; text (prompt-ready) unless format json. */
async function readContext(c: LorekeeperClient, args: ContextArgs): Promise<Structured> {
  const { campaignId, include, format, ...q } = args;
  const query = { ...q, include: include?.join(',') };
  if (format === 'json') return { format: 'json', ...(await c.context(campaignId, query)) };
  return { format: 'text', text: await c.contextText(campaignId, query) };
}

const READ_TOOLS: ToolTable = {
  get_context: spec({
    title: 'Context for the next turn',
    description:
      'Prompt-ready memory context. agent dm: everything incl. secrets; player/npc + viewer: only what that ' +
      'character witnessed; agent: game state for tool-using agents. budget caps tokens (dropped items are reported).',
    input: input.context,
    output: output.context,
    kind: 'read',
    run: readContext,
    text: (out) => (typeof out.text === 'string' ? out.text : JSON.stringify(out)),
  }),
  list_memories: spec({
    title: 'Memories',
    description: 'Memories newest first, by scope (location, npc, world) and subject id.',
    input: input.listMemories,
    output: output.memories,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.memories(campaignId, q),
  }),
  search_messages: spec({
    title: 'Search messages',
    description: 'Find older messages that fell out of your context (ranked full-text search).',
    input: input.searchMessages,
    output: output.hits,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.search(campaignId, { ...q, in: 'messages' }),
  }),
  search_reasoning: spec({
    title: 'Search reasoning',
    description: 'Search the reasoning recorded with earlier messages.',
    input: input.searchMessages,
    output: output.hits,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.search(campaignId, { ...q, in: 'reasoning' }),
  }),
  search_memories: spec({
    title: 'Search memories',
    description: 'Ranked full-text search over the campaign’s memories (list_memories lists them by scope).',
    input: input.searchMemories,
    output: output.hits,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.search(campaignId, { ...q, in: 'memories' }),
  }),
  search_broadcasts: spec({
    title: 'Search broadcasts',
    description: 'Search agent-to-agent broadcasts (newest first without q).',
    input: input.searchBroadcasts,
    output: output.hits,
    kind: 'read',
    run: (c, q) => c.broadcasts(q),
  }),
};

/** Timelines (DESIGN §10): branch, undo, and the game master's word on memories. */
const TIMELINE_TOOLS: ToolTable = {
  fork_campaign: spec({
    title: 'Fork a campaign',
    description:
      'A new campaign that is this one as of atVersion (default now): same messages, memories, world. No model ' +
      'call; later writes to either never touch the other.',
    input: input.forkCampaign,
    output: output.campaign,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.fork(campaignId, body, w);
    },
  }),
  rewind_campaign: spec({
    title: 'Rewind a campaign',
    description:
      'Go back to toVersion in place: later events, messages and the memories built from them are discarded ' +
      '(keepAs keeps the whole campaign as a fork first). The timeline number goes up by one.',
    input: input.rewindCampaign,
    output: output.rewound,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.rewind(campaignId, body, w);
    },
  }),
  retract_messages: spec({
    title: 'Retract messages',
    description:
      'Swipe or retcon: the messages (all or none) and every memory built from them leave every read at once; ' +
      'the worker then rewrites those memories from what survives. Record the replacement with record_messages.',
    input: input.retractMessages,
    output: output.timelined,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, indexes, reason }] = writeOf(a);
      return c.retractMessages(campaignId, indexes, reason === undefined ? {} : { reason }, w);
    },
  }),
  correct_memory: spec({
    title: 'Correct a memory',
    description: 'Rewrite a memory: it reads as written from now on (origin dm) and the worker never revises it.',
    input: input.correctMemory,
    output: output.correctedMemory,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, memoryId, summary }] = writeOf(a);
      return c.correctMemory(campaignId, memoryId, summary, w);
    },
  }),
  delete_memory: spec({
    title: 'Delete a memory',
    description: 'Delete a memory: it is never served again (its history keeps it).',
    input: input.deleteMemory,
    output: output.deletedMemory,
    kind: 'destructive',
    run: async (c, a) => {
      const [w, { campaignId, memoryId }] = writeOf(a);
      await c.deleteMemory(campaignId, memoryId, w);
      return { deleted: true, memoryId };
    },
  }),
  memory_history: spec({
    title: 'Memory history',
    description: 'Every wording of a memory, oldest first: recorded, revised, corrected, withdrawn, deleted.',
    input: input.memoryHistory,
    output: output.memoryHistory,
    kind: 'read',
    run: (c, { campaignId, memoryId, ...q }) => c.memoryHistory(campaignId, memoryId, q),
  }),
};

/** Context resources: name, URI template, description. */
const CONTEXT_RESOURCES: [string, string, string][] = [
  ['campaign-context', 'lorekeeper://campaigns/{campaignId}/context', 'The campaign’s narrative context (text).'],
  [
    'campaign-agent-context',
    'lorekeeper://campaigns/{campaignId}/context/{agent}',
    'The context of an agent preset: narrative, dm or agent.',
  ],
  [
    'campaign-viewer-context',
    'lorekeeper://campaigns/{campaignId}/context/{agent}/{viewer}',
    'A player’s or NPC’s context: only what that character witnessed (agent player or npc).',
  ],
];

/** Resources: a campaign's context (text) and memories (JSON), addressed by path. */
function registerResources(server: McpServer, options: ServiceOptions): void {
  const read = async (uri: URL, mimeType: string, fetchIt: (c: LorekeeperClient) => Promise<unknown>) => {
    const call = new ServiceCall(options);
    try {
      const value = await fetchIt(call.client);
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return { contents: [{ uri: uri.href, mimeType, text }] };
    } catch (err) {
      throw new Error(call.describe(err), { cause: err });
    }
  };
  const str = (v: string | string[] | undefined): string => (Array.isArray(v) ? v[0] : (v ?? ''));
  const contextResource = (name: string, template: string, description: string) =>
    server.registerResource(
      name,
      new ResourceTemplate(template, { list: undefined }),
      { title: name, description, mimeType: 'text/plain' },
      (uri, v) => {
        const query = { agent: v.agent ? str(v.agent) : undefined, viewer: v.viewer ? str(v.viewer) : undefined };
        return read(uri, 'text/plain', (c) => c.contextText(str(v.campaignId), query));
      },
    );
  for (const [name, template, description] of CONTEXT_RESOURCES) contextResource(name, template, description);
  server.registerResource(
    'campaign-memories',
    new ResourceTemplate('lorekeeper://campaigns/{campaignId}/memories', { list: undefined }),
    {
      title: 'campaign-memories',
      description: 'The campaign’s memories, newest first (JSON).',
      mimeType: 'application/json',
    },
    (uri, v) => read(uri, 'application/json', (c) => c.memories(str(v.campaignId))),
  );
  server.registerResource(
    'campaign-subject-memories',
    new ResourceTemplate('lorekeeper://campaigns/{campaignId}/memories/{scope}/{subjectId}', { list: undefined }),
    {
      title: 'campaign-subject-memories',
      description: 'Memories of one location or NPC (scope location or npc), newest first (JSON).',
      mimeType: 'application/json',
    },
    (uri, v) => {
      const query = { scope: str(v.scope), subjectId: str(v.subjectId) };
      return read(uri, 'application/json', (c) => c.memories(str(v.campaignId), query));
    },
  );
}
