import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { registerResources } from './mcp.resources';
import { ServiceCall, ServiceOptions } from './service-call';
import { Args, KIND, Shape, Structured, ToolSpec } from './tool-spec';
import { PLAY_TOOLS } from './tools/play.tools';
import { READ_TOOLS } from './tools/read.tools';
import { SETUP_TOOLS } from './tools/setup.tools';
import { STATE_TOOLS } from './tools/state.tools';
import { TIMELINE_TOOLS } from './tools/timeline.tools';

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

function toStructured(value: unknown): Structured {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Structured) : { value };
}
