import { EventStore, NewEvent, ReadOptions, StoredEvent, WrongExpectedVersionError } from '../event-store.port';

/** Unit-test fake; passes the same contract suite as the TypeORM adapter. */
export class InMemoryEventStore implements EventStore {
  private readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  /** Trigger versions by global position (StoredEvent does not carry them). */
  private readonly triggers = new Map<number, number>();

  async append(
    streamId: string,
    expectedVersion: number,
    events: NewEvent[],
    recordedAt: string,
  ): Promise<StoredEvent[]> {
    const stream = this.streams.get(streamId) ?? [];
    if (stream.length !== expectedVersion)
      throw new WrongExpectedVersionError(streamId, expectedVersion, stream.length);
    const stored = events.map((e, i) => ({
      position: this.all.length + i + 1,
      streamId,
      version: expectedVersion + i + 1,
      type: e.type,
      data: structuredClone(e.data),
      metadata: structuredClone(e.metadata ?? {}),
      recordedAt,
    }));
    events.forEach((e, i) => {
      if (e.triggerVersion !== undefined) this.triggers.set(stored[i].position, e.triggerVersion);
    });
    this.all.push(...stored);
    this.streams.set(streamId, [...stream, ...stored]);
    return structuredClone(stored);
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    return window(this.streams.get(streamId) ?? [], (e) => e.version, options);
  }

  async readAll(options: ReadOptions = {}): Promise<StoredEvent[]> {
    return window(this.all, (e) => e.position, options);
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.streams.get(streamId)?.length ?? 0;
  }

  async streamVersions(streamIds: string[]): Promise<number[]> {
    return streamIds.map((id) => this.streams.get(id)?.length ?? 0);
  }

  async versionAtTrigger(streamId: string, triggerVersion: number): Promise<number> {
    const within = (this.streams.get(streamId) ?? []).filter(
      (e) => (this.triggers.get(e.position) ?? Infinity) <= triggerVersion,
    );
    return within.reduce((v, e) => Math.max(v, e.version), 0);
  }

  async streamVersionAt(streamId: string, position: number): Promise<number> {
    return (this.streams.get(streamId) ?? []).filter((e) => e.position <= position).length;
  }
}

function window(events: StoredEvent[], key: (e: StoredEvent) => number, o: ReadOptions): StoredEvent[] {
  const after = o.after ?? 0;
  const until = o.until ?? Number.MAX_SAFE_INTEGER;
  const picked = events.filter((e) => key(e) > after && key(e) <= until);
  return structuredClone(o.limit === undefined ? picked : picked.slice(0, o.limit));
}
