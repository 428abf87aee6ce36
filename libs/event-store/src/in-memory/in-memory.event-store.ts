import { EventStore, NewEvent, ReadOptions, StoredEvent, StreamCopy } from '../event-store.port';
import { WrongExpectedVersionError } from '../event-store.port';

/** Unit-test fake; passes the same contract suite as the TypeORM adapter. */
export class InMemoryEventStore implements EventStore {
  private all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  /** Last position handed out: positions are never reused, even after a truncation. */
  private position = 0;
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
      position: this.position + i + 1,
      streamId,
      version: expectedVersion + i + 1,
      type: e.type,
      data: structuredClone(e.data),
      metadata: structuredClone(e.metadata ?? {}),
      recordedAt: e.recordedAt ?? recordedAt,
    }));
    this.position += stored.length;
    events.forEach((e, i) => {
      if (e.triggerVersion !== undefined) this.triggers.set(stored[i].position, e.triggerVersion);
    });
    this.all.push(...stored);
    this.streams.set(streamId, [...stream, ...stored]);
    return structuredClone(stored);
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    const types = options.types && new Set(options.types);
    const stream = this.streams.get(streamId) ?? [];
    const read = window(types ? stream.filter((e) => types.has(e.type)) : stream, (e) => e.version, options);
    if (!options.withTrigger) return read;
    return read.map((e) => {
      const trigger = this.triggers.get(e.position);
      return trigger === undefined ? e : { ...e, triggerVersion: trigger };
    });
  }

  async copyStreams(copies: StreamCopy[]): Promise<number> {
    const target = new Map(copies.map((c) => [c.from, c]));
    const picked = this.all.filter((e) => {
      const c = target.get(e.streamId);
      return c !== undefined && e.version <= c.until;
    });
    const copied = picked.map((e, i) => ({
      ...structuredClone(e),
      streamId: target.get(e.streamId)!.to,
      position: this.position + i + 1,
    }));
    picked.forEach((e, i) => {
      const trigger = this.triggers.get(e.position);
      if (trigger !== undefined) this.triggers.set(copied[i].position, trigger);
    });
    this.position += copied.length;
    this.all.push(...copied);
    for (const e of copied) this.streams.set(e.streamId, [...(this.streams.get(e.streamId) ?? []), e]);
    return copied.length;
  }

  async truncateStream(streamId: string, after: number): Promise<number> {
    const stream = this.streams.get(streamId) ?? [];
    const kept = stream.filter((e) => e.version <= after);
    if (kept.length) this.streams.set(streamId, kept);
    else this.streams.delete(streamId);
    this.all = this.all.filter((e) => e.streamId !== streamId || e.version <= after);
    return stream.length - kept.length;
  }

  async deleteStream(streamId: string): Promise<number> {
    return this.truncateStream(streamId, 0);
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
