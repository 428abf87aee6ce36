/** Serialises async critical sections inside one process (SQLite has one writer anyway). */
export class AsyncMutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Lets the event loop run what waits (other requests' I/O, timers) before the caller goes on. */
export const giveBack = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
