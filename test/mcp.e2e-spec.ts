import { LorekeeperClient } from '@app/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createLorekeeperMcpServer } from '../apps/mcp-server/src/lorekeeper.mcp';
import { startTestApp, TestApp } from './support/test-app';

describe('MCP server (SDK client → MCP server → HTTP service)', () => {
  let t: TestApp;
  let mcp: Client;

  beforeAll(async () => {
    t = await startTestApp();
    const server = createLorekeeperMcpServer(new LorekeeperClient({ baseUrl: t.url }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    mcp = new Client({ name: 'test', version: '1.0.0' });
    await mcp.connect(clientSide);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const res: any = await mcp.callTool({ name, arguments: args });
    return { text: res.content[0].text as string, isError: !!res.isError };
  };

  it('lists the campaign tools', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      expect.arrayContaining(['change_location', 'complete_objective', 'get_context', 'progress_act', 'record_messages', 'search_broadcasts', 'search_memories', 'search_messages', 'search_reasoning', 'update_location_state']),
    );
  });

  it('records messages, moves, and reads memory back through the tools', async () => {
    const client = new LorekeeperClient({ baseUrl: t.url });
    await client.createCampaign({ id: 'mcp1', name: 'MCP' });
    await client.putLocation('mcp1', 'inn', { name: 'Blue Inn' });
    await client.putLocation('mcp1', 'road', { name: 'North Road' });
    await client.putQuest('mcp1', 'q', { name: 'Escort', objectives: [{ id: 'o', name: 'Reach the road' }] });
    expect((await call('change_location', { campaignId: 'mcp1', toLocationId: 'inn' })).isError).toBe(false);
    const rec = await call('record_messages', { campaignId: 'mcp1', messages: [{ role: 'player', speaker: 'Kael', content: 'Kael buys 2 horses for 40 gold.' }] });
    expect(JSON.parse(rec.text).indexes).toEqual([0]);
    await call('complete_objective', { campaignId: 'mcp1', questId: 'q', objectiveId: 'o' });
    const moved = JSON.parse((await call('change_location', { campaignId: 'mcp1', toLocationId: 'road' })).text);
    await client.context('mcp1', { minVersion: moved.version, waitMs: 10000 });
    const memories = JSON.parse((await call('search_memories', { campaignId: 'mcp1', scope: 'location', subjectId: 'inn' })).text);
    expect(memories.items).toHaveLength(1);
    expect(memories.items[0].summary).toContain('40 gold');
    const ctx = await call('get_context', { campaignId: 'mcp1' });
    expect(ctx.text).toContain('## World Memory');
    expect(ctx.text).toContain('40 gold');
  });

  it('reaches what fell out of the window: search_messages, search_reasoning, search_broadcasts', async () => {
    const client = new LorekeeperClient({ baseUrl: t.url });
    await client.createCampaign({ id: 'mcp2', name: 'Search' });
    await client.recordMessages('mcp2', [
      { role: 'assistant', content: 'Mining the belt for iron ore.', reasoning: 'Iron ore sells high at Vega station.' },
      { role: 'player', content: 'Nothing about metals here.' },
    ]);
    const messages = JSON.parse((await call('search_messages', { campaignId: 'mcp2', q: 'iron ore' })).text);
    expect(messages.items.map((i: { ref: number }) => i.ref)).toEqual([0]);
    const reasoning = JSON.parse((await call('search_reasoning', { campaignId: 'mcp2', q: 'vega' })).text);
    expect(reasoning.items).toHaveLength(1);
    expect(reasoning.items[0].kind).toBe('reasoning');
    await client.postBroadcast({ content: 'Pirates spotted near Vega', from: 'scout-1' });
    const broadcasts = JSON.parse((await call('search_broadcasts', { q: 'pirates' })).text);
    expect(broadcasts.items[0].snippet).toContain('Pirates');
    const bad = await call('search_messages', { campaignId: 'mcp2', q: '"unclosed' });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.text).code).toBe('INVALID_QUERY');
  });

  it('reports API problems as tool errors with the problem code', async () => {
    const res = await call('change_location', { campaignId: 'nope', toLocationId: 'x' });
    expect(res.isError).toBe(true);
    expect(JSON.parse(res.text).code).toBe('CAMPAIGN_NOT_FOUND');
  });
});
