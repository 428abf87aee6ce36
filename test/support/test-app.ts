import { AppConfig, FixedClock, loadConfig } from '@app/common';
import { Summarizer } from '@app/summarizer';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../apps/memory-service/src/bootstrap';

export interface TestApp {
  app: NestFastifyApplication;
  url: string;
  config: AppConfig;
  dbPath: string;
  /** Real HTTP request against the listening server. */
  http(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  close(): Promise<void>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  summarizer?: Summarizer;
  clock?: FixedClock;
  /** Reuse a database file (restart tests). */
  dbPath?: string;
  /** Capture JSON log lines (enables logging at LOG_LEVEL, default info). */
  logs?: string[];
}

/** A temp SQLite database file, deleted by `cleanup`. */
export function tempDb(): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-test-'));
  return { path: join(dir, 'lorekeeper.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Boots the real app (Nest on Fastify, SQLite file, migrations) on a random loopback port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.dbPath ? null : tempDb();
  const dbPath = options.dbPath ?? db!.path;
  const logs = options.logs;
  const config = loadConfig({ DATABASE_URL: `sqlite:${dbPath}`, LOG_LEVEL: logs ? 'info' : 'silent', SUMMARIZER: 'local', ...options.env });
  const logDestination = logs ? { write: (line: string) => void logs.push(line) } : undefined;
  const app = await createApp(config, { summarizer: options.summarizer, clock: options.clock, logDestination }, logs ? undefined : false);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    url,
    config,
    dbPath,
    http: (method, path, body, headers) => request(url, method, path, body, headers),
    close: async () => {
      await app.close();
    },
  };
}

export async function request(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text.length ? JSON.parse(text) : undefined;
  } catch {
    /* text/plain */
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
