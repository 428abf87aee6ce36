import { LorekeeperClient } from '@app/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createLorekeeperMcpServer } from './lorekeeper.mcp';

/** `npm run mcp`: an MCP stdio server that talks to a running Lorekeeper over HTTP (LOREKEEPER_URL). */
async function main(): Promise<void> {
  const client = new LorekeeperClient({ baseUrl: process.env.LOREKEEPER_URL ?? 'http://localhost:3000', apiKey: process.env.LOREKEEPER_API_KEY });
  const server = createLorekeeperMcpServer(client);
  await server.connect(new StdioServerTransport());
}

main().catch((err) => {
  process.stderr.write(`lorekeeper mcp: ${(err as Error).message}\n`);
  process.exit(1);
});
