import { TimelineHistory } from '@app/campaign';
import { conflict, DomainError } from '@app/common';
import { Database, isUniqueViolation } from '@app/database';
import { EventStore, gameStream, memoryStream, NewEvent, WrongExpectedVersionError } from '@app/event-store';
import { CheckpointStore, StreamReplay } from '@app/memory';
import { SnapshotTransfer } from '@app/state';
import { LedgerEntry, UsageLedger } from '@app/summarizer';
import { EntityManager } from 'typeorm';
import { EventLine, ExportHeader, invalidExport, parseLine, RowLine } from './export-format';
import { NumberedLine } from './ndjson-lines';

/** Consecutive events of one stream appended and projected together, each with its own recordedAt (as a rebuild's). */
const BATCH = 500;

export interface ImportWriters {
  db: Database;
  store: EventStore;
  /** A replay through the projections the live service writes (indexers, witnesses, accounts, checkpoints…). */
  replay(): StreamReplay;
  ledger: UsageLedger;
  snapshots: SnapshotTransfer;
}

export interface ImportReply {
  id: string;
  version: number;
  memoryVersion: number;
}

interface Pending {
  stream: 'game' | 'memory';
  events: NewEvent[];
  firstLine: number;
}

/**
 * One campaign of a checked export (DESIGN §15), written in the caller's transaction: its rewinds, its events appended
 * as they were (data, metadata, trigger, recordedAt) and projected by the live projections as each batch is appended
 * (no model call: the memories are the events), then its rows and the worker's checkpoint.
 */
export class CampaignImport {
  private readonly replay: StreamReplay;
  private pending: Pending | null = null;
  private readonly usage: LedgerEntry[] = [];
  private version = { game: 0, memory: 0 };

  constructor(
    private readonly w: ImportWriters,
    private readonly m: EntityManager,
    private readonly header: ExportHeader,
    readonly id: string,
  ) {
    this.replay = w.replay();
  }

  /** 409 when the id is in use; then the rewind history, which the projector's first append reads its timeline from. */
  async begin(): Promise<void> {
    const { m, id } = this;
    const taken =
      (await TimelineHistory.taken(m, id)) ||
      (await this.w.store.streamVersion(gameStream(id), m)) > 0 ||
      (await this.w.store.streamVersion(memoryStream(id), m)) > 0;
    if (taken) throw conflict('CAMPAIGN_EXISTS', `campaign ${id} already exists`);
    await TimelineHistory.restore(m, id, this.header.rewinds);
  }

  async event(e: EventLine, line: number): Promise<void> {
    const p = this.pending;
    if (p && (p.stream !== e.stream || p.events.length >= BATCH)) await this.flush();
    this.pending ??= { stream: e.stream, events: [], firstLine: line };
    const { type, data, metadata, triggerVersion, recordedAt } = e;
    this.pending.events.push({ type, data, metadata, triggerVersion, recordedAt });
  }

  async row(r: RowLine): Promise<void> {
    await this.flush();
    const { m, id } = this;
    if (r.kind === 'usage') {
      const { kind: _kind, ...entry } = r;
      this.usage.push({ campaignId: id, ...entry });
      if (this.usage.length >= BATCH) await this.w.ledger.record(m, this.usage.splice(0));
    } else if (r.kind === 'account') await this.w.snapshots.restoreAccount(m, id, r);
    else if (r.kind === 'snapshot-tool') await this.w.snapshots.restoreTool(m, id, r);
    else await this.w.snapshots.restoreSnapshot(m, id, r);
  }

  /** The worker goes on where the source's stood, in the source's timeline. */
  async end(): Promise<ImportReply> {
    await this.flush();
    await this.w.ledger.record(this.m, this.usage.splice(0));
    const h = this.header;
    await CheckpointStore.rewind(this.m, this.id, h.processedVersion, h.memory, h.timeline);
    return { id: this.id, version: this.version.game, memoryVersion: this.version.memory };
  }

  private async flush(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const stream = p.stream === 'game' ? gameStream(this.id) : memoryStream(this.id);
    const recordedAt = p.events[0].recordedAt!;
    const stored = await this.w.store.append(stream, this.version[p.stream], p.events, recordedAt, this.m);
    this.version[p.stream] += stored.length;
    try {
      await this.replay.apply(this.m, stored);
    } catch (err) {
      if (err instanceof DomainError || isUniqueViolation(err)) throw err;
      // Data the projections cannot take (a hand-edited export): a 400 naming where, never a 500.
      const last = p.firstLine + p.events.length - 1;
      const where = last === p.firstLine ? `${p.firstLine}` : `${p.firstLine}–${last}`;
      throw invalidExport(p.firstLine, `the events of lines ${where} cannot be applied: ${(err as Error).message}`);
    }
  }
}

/**
 * Imports every campaign of a checked export, each in one transaction (`ids`: the id each is imported under).
 * Reads the lines again (the check read them once): nothing is held in memory but one batch.
 */
export async function importCampaigns(
  w: ImportWriters,
  lines: AsyncIterable<NumberedLine>,
  ids: string[],
  committed: (reply: ImportReply, heldMs: number) => void = () => undefined,
): Promise<ImportReply[]> {
  const it = lines[Symbol.asyncIterator]();
  let next = await it.next();
  const replies: ImportReply[] = [];
  for (const id of ids) {
    const first = parseLine(next.value!.text, next.value!.line, true);
    if (first.kind !== 'header') throw invalidExport(next.value!.line, 'expected a header');
    next = await it.next();
    let started = 0;
    const reply = await w.db
      .transaction(async (m) => {
        started = performance.now();
        const writer = new CampaignImport(w, m, first.header, id);
        await writer.begin();
        for (; !next.done; next = await it.next()) {
          const parsed = parseLine(next.value.text, next.value.line, false);
          if (parsed.kind === 'header') break;
          if (parsed.kind === 'event') await writer.event(parsed.event, next.value.line);
          else await writer.row(parsed.row);
        }
        return writer.end();
      })
      .catch((err: unknown) => {
        // Two imports of one id at once (PostgreSQL): the second finds the first's rows at its commit.
        if (err instanceof WrongExpectedVersionError || isUniqueViolation(err))
          throw conflict('CAMPAIGN_EXISTS', `campaign ${id} already exists`);
        throw err;
      });
    // How long the transaction held the writer (on SQLite, every other write and read waits that long).
    committed(reply, performance.now() - started);
    replies.push(reply);
  }
  return replies;
}
