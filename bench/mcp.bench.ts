import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchOptions, Figures } from './support/bench-suite';
import { repoRoot } from './support/paths';
import { median, round } from './support/stats';

/** The built MCP server entry point, as docs/mcp.md tells clients to start it. */
export const mcpEntry = (): string => join(repoRoot(), 'dist/apps/mcp-server/src/main.js');

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/**
 * Issue 22: an MCP client (the official SDK over stdio, as Claude Desktop/Code do it) spawns the built server;
 * connected = the initialize handshake done; then the first tools/list (JSON Schemas of every tool).
 */
export async function runMcpBench(options: BenchOptions): Promise<Figures> {
  const runs = options.quick ? 3 : 10;
  const connectMs: number[] = [];
  const toolsMs: number[] = [];
  const rss: number[] = [];
  let tools = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mcpEntry()],
      env: { PATH: process.env.PATH ?? '', LOREKEEPER_URL: 'http://127.0.0.1:9' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    try {
      await client.connect(transport);
      connectMs.push(performance.now() - started);
      tools = (await client.listTools()).tools.length;
      toolsMs.push(performance.now() - started);
      if (transport.pid) rss.push(rssMb(transport.pid));
    } finally {
      await client.close();
    }
  }
  return {
    'spawn → connected (ms, median)': round(median(connectMs)),
    'spawn → connected (ms, max)': round(Math.max(...connectMs)),
    'spawn → first tools/list (ms, median)': round(median(toolsMs)),
    'MCP server RSS after tools/list (MB, median)': round(median(rss), 1),
    tools,
    notes: [`${runs} spawns of node ${mcpEntry().slice(repoRoot().length + 1)}; target: connected in ≤ 2,000 ms`],
  };
}
