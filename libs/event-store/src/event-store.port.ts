export { WrongExpectedVersionError } from './errors';

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
  /** This event's own time instead of the append's (an import keeps each event's, DESIGN §15). */
  recordedAt?: string;
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
  /** Only on reads with `withTrigger` (an export): the trigger version the event was appended with, if any. */
  triggerVersion?: number;
}

export interface ReadOptions {
  /** Exclusive lower bound (stream version or global position). */
  after?: number;
  /** Inclusive upper bound. */
  until?: number;
  limit?: number;
  /** Only events of these types (a projection that replays part of a stream). */
  types?: string[];
  /** Also return each event's trigger version (DESIGN §15: an export carries it; no other read needs it). */
  withTrigger?: boolean;
}

/** One stream's prefix copied under another id (DESIGN §10 fork). */
export interface StreamCopy {
  from: string;
  to: string;
  /** Last version copied. */
  until: number;
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
  /** Inside `tx` when given (a timeline operation reads what it is about to copy). */
  readStream(streamId: string, options?: ReadOptions, tx?: Tx): Promise<StoredEvent[]>;
  /** Every stream in global order; inside `tx` when given (a rebuild reads in its own transaction). */
  readAll(options?: ReadOptions, tx?: Tx): Promise<StoredEvent[]>;
  /** Current version of a stream, 0 when it does not exist. */
  streamVersion(streamId: string, tx?: Tx): Promise<number>;
  /** Current versions of several streams from one read (one moment), in the order asked. */
  streamVersions(streamIds: string[]): Promise<number[]>;
  /** The stream's version as of a global position: its highest version at or below it (0 = none). */
  streamVersionAt(streamId: string, position: number): Promise<number>;
  /**
   * Copies the prefixes in ONE statement, in the order of their global positions, so copied streams keep
   * their interleaving (a rebuild replays in position order); data, metadata and recordedAt unchanged.
   * The targets must not exist. Returns the number of events copied.
   */
  copyStreams(copies: StreamCopy[], tx?: Tx): Promise<number>;
  /** Removes the stream's events after version `after` (a rewind); returns how many. */
  truncateStream(streamId: string, after: number, tx?: Tx): Promise<number>;
  /** Removes the whole stream (a campaign deleted); returns how many events. */
  deleteStream(streamId: string, tx?: Tx): Promise<number>;
  /**
   * §10: the stream's version as of game version `triggerVersion`, its highest version whose event was appended with
   * a trigger ≤ it (0 = none). A memory stream is ordered by trigger, so this is always a prefix of it.
   */
  versionAtTrigger(streamId: string, triggerVersion: number, tx?: Tx): Promise<number>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

/** Stream ids: one game stream and one memory stream per campaign (DESIGN §1). */
export const gameStream = (campaignId: string) => `campaign-${campaignId}`;
export const memoryStream = (campaignId: string) => `memory-${campaignId}`;
