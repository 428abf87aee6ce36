import { Worker } from 'node:worker_threads';

/** How often the WAL is folded into the database file. */
export const CHECKPOINT_EVERY_MS = 1_000;
/** How long `stop` waits for the last checkpoint before it ends the thread. */
const STOP_GRACE_MS = 5_000;

// The thread's own connection: a PASSIVE checkpoint never blocks the writer, and from here it never blocks the loop.
const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next tick tries again.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * §13: SQLite checkpoints in a thread of its own. With the default auto-checkpoint, the COMMIT that pushed the WAL past
 * 1,000 pages copied it into the database file on the event loop: 250 ms for a fork of 5,000 messages, during which no
 * request was answered. The service's connection turns auto-checkpoints off (`wal_autocheckpoint = 0`) and this thread
 * checkpoints every CHECKPOINT_EVERY_MS instead.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string, everyMs = CHECKPOINT_EVERY_MS) {
    this.worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { path, everyMs, driver: require.resolve('better-sqlite3') },
    });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A failed checkpointer leaves the WAL to grow until the next start, which checkpoints on open: log-free by design.
    this.worker.on('error', () => undefined);
    this.worker.unref();
  }

  /** Runs a last checkpoint and closes the thread's connection (before the service's own closes). */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timer = setTimeout(() => void this.worker.terminate(), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
