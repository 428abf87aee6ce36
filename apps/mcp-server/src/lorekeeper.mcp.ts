import { LorekeeperClient, LorekeeperError } from '@app/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/);

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/** Runs a client call and turns its answer (or problem) into an MCP tool result. */
async function answer(call: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = await call();
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  } catch (err) {
    const text = err instanceof LorekeeperError ? JSON.stringify(err.problem) : String((err as Error).message);
    return { content: [{ type: 'text', text }], isError: true };
  }
}

/** Lorekeeper's tools for agent runtimes; every call goes through the HTTP API. */
export function createLorekeeperMcpServer(client: LorekeeperClient): McpServer {
  const server = new McpServer({ name: 'lorekeeper', version: '0.1.0' });

  server.registerTool(
    'get_context',
    {
      description: 'Prompt-ready memory context for a campaign (text). Optional agent/viewer/query/budget as in GET /context.',
      inputSchema: {
        campaignId: id,
        agent: z.enum(['narrative', 'dm', 'player', 'npc', 'agent']).optional(),
        viewer: id.optional(),
        query: z.string().min(1).max(2000).optional(),
        budget: z.number().int().min(50).max(200000).optional(),
        limit: z.number().int().min(1).max(100).optional(),
      },
    },
    ({ campaignId, ...q }) => answer(() => client.contextText(campaignId, q)),
  );

  server.registerTool(
    'search_memories',
    {
      description: 'List memories of a campaign, newest first, by scope (location|npc|world) and subject id.',
      inputSchema: { campaignId: id, scope: z.enum(['location', 'npc', 'world']).optional(), subjectId: id.optional(), limit: z.number().int().min(1).max(100).optional() },
    },
    ({ campaignId, ...q }) => answer(() => client.memories(campaignId, q)),
  );

  server.registerTool(
    'record_messages',
    {
      description: 'Record 1–500 messages (role, content, optional speaker/locationId/npcIds) in a campaign.',
      inputSchema: {
        campaignId: id,
        messages: z
          .array(
            z.object({
              role: z.enum(['player', 'dm', 'npc', 'narrator', 'system', 'assistant', 'tool']),
              content: z.string().max(16000),
              speaker: z.string().max(200).optional(),
              locationId: id.optional(),
              npcIds: z.array(id).optional(),
            }),
          )
          .min(1)
          .max(500),
      },
    },
    ({ campaignId, messages }) => answer(() => client.recordMessages(campaignId, messages)),
  );

  server.registerTool('change_location', { description: 'Move the party; leaving a location records its memories.', inputSchema: { campaignId: id, toLocationId: id } }, ({ campaignId, toLocationId }) =>
    answer(() => client.changeLocation(campaignId, toLocationId)),
  );
  server.registerTool('complete_objective', { description: 'Complete a quest objective (world memory).', inputSchema: { campaignId: id, questId: id, objectiveId: id } }, ({ campaignId, questId, objectiveId }) =>
    answer(() => client.completeObjective(campaignId, questId, objectiveId)),
  );
  server.registerTool('progress_act', { description: 'Move the story to a new act (world memory).', inputSchema: { campaignId: id, actId: id } }, ({ campaignId, actId }) =>
    answer(() => client.progressAct(campaignId, actId)),
  );
  server.registerTool(
    'update_location_state',
    {
      description: 'Change a location danger level and/or complete an encounter (CLEARED and encounters record world memories).',
      inputSchema: { campaignId: id, locationId: id, dangerLevel: z.enum(['SAFE', 'LOW', 'MODERATE', 'HIGH', 'EXTREME', 'CLEARED']).optional(), completeEncounter: id.optional() },
    },
    ({ campaignId, ...body }) => answer(() => client.updateLocationState(campaignId, body)),
  );
  const searchInput = {
    campaignId: id,
    q: z.string().min(1).max(256).describe('words, "a phrase", prefix*, OR, NOT'),
    limit: z.number().int().min(1).max(100).optional(),
  };
  server.registerTool(
    'search_messages',
    { description: 'Find older messages that fell out of your context window (ranked full-text search).', inputSchema: { ...searchInput, role: z.string().optional(), locationId: id.optional() } },
    ({ campaignId, ...q }) => answer(() => client.search(campaignId, { ...q, in: 'messages' })),
  );
  server.registerTool('search_reasoning', { description: 'Search the reasoning text recorded with earlier messages.', inputSchema: searchInput }, ({ campaignId, ...q }) =>
    answer(() => client.search(campaignId, { ...q, in: 'reasoning' })),
  );
  server.registerTool(
    'search_broadcasts',
    { description: 'Search agent-to-agent broadcasts (newest first without q).', inputSchema: { q: z.string().min(1).max(256).optional(), limit: z.number().int().min(1).max(100).optional() } },
    (q) => answer(() => client.broadcasts(q)),
  );
  return server;
}
