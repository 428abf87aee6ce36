// The client's errors (one file per lib, issue 32).

/** A problem+json answer from Lorekeeper. */
export class LorekeeperError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly problem: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${String(problem.detail ?? '')}`);
    this.name = 'LorekeeperError';
  }
}
