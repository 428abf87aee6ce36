import { AppConfig, FixedClock, loadConfig } from '@app/common';
import { Summarizer } from '@app/summarizer';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../apps/memory-service/src/bootstrap';
import { createTestSchema, schemaForPath, testDatabaseUrl } from './test-postgres';

export interface TestApp {
  app: NestFastifyApplication;
  url: string;
  config: AppConfig;
  /** The SQLite file; on PostgreSQL the key of the app's schema (pass it again to restart on the same data). */
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
  /**
   * Check each JSON answer against its documented schema (default on; benches turn it off: production never checks).
   */
  checkResponses?: boolean;
}

/** A temp SQLite database file, deleted by `cleanup`. */
export function tempDb(): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-test-'));
  return { path: join(dir, 'lorekeeper.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * PostgreSQL schemas of this test file (TEST_DATABASE_URL): one per dbPath, so a restart on the same
 * dbPath finds its data; each is dropped once the file's tests are done and its apps are closed.
 */
const schemas = new Map<string, { open: number; drop(): Promise<void> }>();
let fileDone = false;
if (typeof afterAll === 'function') {
  afterAll(async () => {
    fileDone = true;
    for (const [name, s] of schemas) if (s.open === 0) await s.drop().then(() => schemas.delete(name));
  });
}

/**
 * Boots the real app (Nest on Fastify, migrations) on a random loopback port: on a temp SQLite file,
 * or — when TEST_DATABASE_URL is set (scripts/with-postgres.sh) — on a fresh PostgreSQL schema.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.dbPath ? null : tempDb();
  const dbPath = options.dbPath ?? db!.path;
  const pg = options.env?.DATABASE_URL ? undefined : testDatabaseUrl();
  let databaseUrl = `sqlite:${dbPath}`;
  let schema: { open: number; drop(): Promise<void> } | undefined;
  if (pg) {
    const created = await createTestSchema(pg, schemaForPath(dbPath));
    schema = schemas.get(created.name) ?? { open: 0, drop: created.drop };
    schemas.set(created.name, schema);
    schema.open++;
    databaseUrl = created.url;
  }
  const logs = options.logs;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: logs ? 'info' : 'silent',
    SUMMARIZER: 'local',
    ...options.env,
  });
  const logDestination = logs ? { write: (line: string) => void logs.push(line) } : undefined;
  const app = await createApp(
    config,
    {
      summarizer: options.summarizer,
      clock: options.clock,
      logDestination,
      checkResponses: options.checkResponses ?? true,
    },
    logs ? undefined : false,
  ).catch((err) => {
    if (schema) schema.open--;
    throw err;
  });
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
      if (schema && --schema.open === 0 && fileDone) await schema.drop();
    },
  };
}

export async function request(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
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
