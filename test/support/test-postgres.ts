import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Set by scripts/with-postgres.sh: the suites then run against that PostgreSQL server. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/** The same server and database, with every table the app creates landing in `schema`. */
export function schemaUrl(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** A schema name for a test database file path, so that reusing a path reuses the schema. */
export function schemaForPath(path: string): string {
  return `lk_test_${createHash('sha1').update(path).digest('hex').slice(0, 16)}`;
}

export function uniqueSchemaName(prefix = 'lk_test'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** Runs one statement on its own short connection. */
export async function adminQuery(base: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new Client({ connectionString: base });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  name: string;
  /** DATABASE_URL for the app: the base URL with the schema as search_path. */
  url: string;
  drop(): Promise<void>;
}

/** Creates (if missing) a schema on the server; `drop` removes it with everything in it. */
export async function createTestSchema(base: string, name = uniqueSchemaName()): Promise<TestSchema> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`bad schema name ${name}`);
  // IF NOT EXISTS is not race-safe: two replicas booting together may both try; the loser's duplicate is fine.
  await adminQuery(base, `CREATE SCHEMA IF NOT EXISTS "${name}"`).catch((err: { code?: string }) => {
    if (err.code !== '23505' && err.code !== '42P06') throw err;
  });
  return {
    name,
    url: schemaUrl(base, name),
    drop: () => adminQuery(base, `DROP SCHEMA IF EXISTS "${name}" CASCADE`).then(() => undefined),
  };
}
