/** memory's error classes, in one file (docs/architecture.md, "A lib's error classes live in one file"). */

/** The claim was taken over (or expired): whatever the holder was doing must not commit. */
export class LeaseLostError extends Error {
  constructor(readonly campaignId: string) {
    super(`lease on campaign ${campaignId} was lost`);
    this.name = 'LeaseLostError';
  }
}

/** Thrown to abandon a trigger (shutdown): nothing of it is committed. */
export class Abandoned extends Error {}

/** A fence lost to another worker: stop, commit nothing. */
export class CheckpointMoved extends Error {}
