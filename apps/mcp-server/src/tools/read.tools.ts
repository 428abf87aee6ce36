import { LorekeeperClient } from '@app/client';
import { input, output } from '../mcp.schemas';
import { Args, Structured, ToolTable, spec } from '../tool-spec';

type ContextArgs = Args<typeof input.context>;

/** GET /context with every parameter; text (prompt-ready) unless format json. */
async function readContext(c: LorekeeperClient, args: ContextArgs): Promise<Structured> {
  const { campaignId, include, format, ...q } = args;
  const query = { ...q, include: include?.join(',') };
  if (format === 'json') return { format: 'json', ...(await c.context(campaignId, query)) };
  return { format: 'text', text: await c.contextText(campaignId, query) };
}

export const READ_TOOLS: ToolTable = {
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
