// The event store's errors (one file per lib).

/** An append that expected another stream version (optimistic concurrency): the caller reads again and retries. */
export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: number,
    readonly actual: number | null,
  ) {
    super(`stream ${streamId}: expected version ${expected}, found ${actual ?? 'a concurrent append'}`);
    this.name = 'WrongExpectedVersionError';
  }
}
