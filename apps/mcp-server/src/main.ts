#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createLorekeeperMcpServer } from './lorekeeper.mcp';
import { DEFAULT_TIMEOUT_MS } from './service-call';

/**
 * The MCP stdio server (docs/mcp.md): it talks to a running Lorekeeper over HTTP at LOREKEEPER_URL and
 * sends LOREKEEPER_API_KEY on every call. It loads no part of the service, so it starts in well under a second.
 */
async function main(): Promise<void> {
  const timeout = process.env.LOREKEEPER_TIMEOUT_MS;
  const timeoutMs = timeout === undefined || timeout === '' ? DEFAULT_TIMEOUT_MS : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1000) {
    throw new Error('LOREKEEPER_TIMEOUT_MS must be an integer ≥ 1000');
  }
  const baseUrl = process.env.LOREKEEPER_URL || 'http://localhost:3000';
  if (!/^https?:\/\/[^\s]+$/i.test(baseUrl)) throw new Error(`LOREKEEPER_URL must be an http(s) URL, got "${baseUrl}"`);
  const server = createLorekeeperMcpServer({ baseUrl, apiKey: process.env.LOREKEEPER_API_KEY || undefined, timeoutMs });
  await server.connect(new StdioServerTransport());
}

main().catch((err) => {
  process.stderr.write(`lorekeeper mcp: ${(err as Error).message}\n`);
  process.exit(1);
});
