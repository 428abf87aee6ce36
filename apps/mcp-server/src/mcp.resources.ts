import { LorekeeperClient } from '@app/client';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ServiceCall, ServiceOptions } from './service-call';

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
export function registerResources(server: McpServer, options: ServiceOptions): void {
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
