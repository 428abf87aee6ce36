import { DataSource } from 'typeorm';

/** One lock per schema, so replicas (or tests) using other schemas of the same database don't wait on each other. */
const LOCK_KEY = `hashtext('lorekeeper.migrations.' || current_schema())`;

/**
 * Runs pending migrations. On PostgreSQL under a session advisory lock (DESIGN §9): replicas that
 * boot together take turns, and the later ones find nothing left to run.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  if (dataSource.options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  // The lock belongs to a session: take and drop it on one dedicated connection.
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${LOCK_KEY})`);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`);
    }
  } finally {
    await lock.release();
  }
}
