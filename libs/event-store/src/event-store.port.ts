/** Metadata on every event envelope (DESIGN §2). */
export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  idempotencyKey?: string;
  [key: string]: unknown;
}

export interface NewEvent<T = object> {
  type: string;
  data: T;
  metadata?: EventMetadata;
  /** A memory event's trigger: the game version the worker was handling (§10 `versionAtTrigger`). */
  triggerVersion?: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is JSON a fold narrows by type
export interface StoredEvent<T = Record<string, any>> {
  /** Global position across all streams, strictly increasing. */
  position: number;
  streamId: string;
  /** 1-based version inside its stream. */
  version: number;
  type: string;
  data: T;
  metadata: EventMetadata;
  recordedAt: string;
}

export interface ReadOptions {
  /** Exclusive lower bound (stream version or global position). */
  after?: number;
  /** Inclusive upper bound. */
  until?: number;
  limit?: number;
}

/**
 * Opaque handle of the transaction an append joins, so that events and inline projections
 * commit together. The TypeORM adapter takes an EntityManager; the in-memory fake ignores it.
 */
export type Tx = unknown;

/** Append-only log of every fact. */
export interface EventStore {
  /** Appends after `expectedVersion` (0 = new stream); throws WrongExpectedVersionError on a race. */
  append(
    streamId: string,
    expectedVersion: number,
    events: NewEvent[],
    recordedAt: string,
    tx?: Tx,
  ): Promise<StoredEvent[]>;
  readStream(streamId: string, options?: ReadOptions): Promise<StoredEvent[]>;
  /** Every stream in global order; inside `tx` when given (a rebuild reads in its own transaction). */
  readAll(options?: ReadOptions, tx?: Tx): Promise<StoredEvent[]>;
  /** Current version of a stream, 0 when it does not exist. */
  streamVersion(streamId: string, tx?: Tx): Promise<number>;
  /** Current versions of several streams from one read (one moment), in the order asked. */
  streamVersions(streamIds: string[]): Promise<number[]>;
  /** The stream's version as of a global position: its highest version at or below it (0 = none). */
  streamVersionAt(streamId: string, position: number): Promise<number>;
  /**
   * §10: the stream's version as of game version `triggerVersion`, its highest version whose event was appended with
   * a trigger ≤ it (0 = none). A memory stream is ordered by trigger, so this is always a prefix of it.
   */
  versionAtTrigger(streamId: string, triggerVersion: number, tx?: Tx): Promise<number>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

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

/** Stream ids: one game stream and one memory stream per campaign (DESIGN §1). */
export const gameStream = (campaignId: string) => `campaign-${campaignId}`;
export const memoryStream = (campaignId: string) => `memory-${campaignId}`;
