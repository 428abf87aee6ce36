import { LorekeeperClient, WriteOptions } from '@app/client';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// What a tool of the MCP server is: a spec (title, description, input and output schemas, kind, what it calls),
// gathered by group in the tables of tools/*.tools.ts, registered by lorekeeper.mcp.ts.

export type Shape = z.ZodRawShape;
export type Structured = Record<string, unknown>;
export type Args<I extends Shape> = z.output<z.ZodObject<I>>;

export const KIND: Record<'read' | 'write' | 'upsert' | 'destructive', ToolAnnotations> = {
  read: { readOnlyHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  upsert: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

export interface ToolSpec<I extends Shape> {
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
export function writeOf<T extends WriteOptions>(args: T): [WriteOptions, Omit<T, keyof WriteOptions>] {
  const { idempotencyKey, ifMatch, ...rest } = args;
  return [{ idempotencyKey, ifMatch }, rest];
}

/** A tool table: name → spec, in the order tools/list shows them. */
export type ToolTable = Record<string, ToolSpec<Shape>>;

/** Keeps each entry's argument type while the table holds them side by side. */
export const spec = <I extends Shape>(s: ToolSpec<I>): ToolSpec<Shape> => s as unknown as ToolSpec<Shape>;
