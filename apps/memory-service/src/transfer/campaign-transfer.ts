import { CampaignEventsAppended, CampaignProjector, CampaignReader, TimelineHistory } from '@app/campaign';
import { Clock, CLOCK, conflict } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { EVENT_STORE, EventStore } from '@app/event-store';
import { MemoryProjector, StreamReplay } from '@app/memory';
import { SnapshotTransfer } from '@app/state';
import { UsageLedger } from '@app/summarizer';
import { Provider } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import { CampaignExport, exportCampaign, ExportReaders } from './campaign.exporter';
import { ImportReply, importCampaigns, ImportWriters } from './campaign.importer';
import { checkExport } from './export-validator';
import { fileLines } from './ndjson-lines';

export interface ImportOptions {
  /** The id the (first) campaign is imported under; default the exported id. */
  id?: string;
  /** One campaign only (the HTTP route). */
  single: boolean;
  /** Called with each id before anything is written (a scoped key may create only its own). */
  permit?: (id: string) => void;
}

/**
 * DESIGN §15: a campaign out as NDJSON and back in, on either engine. `onImported` runs after each import's commit
 * (the service wakes the campaign's worker, which goes on from the exported checkpoint).
 */
export class CampaignTransfer {
  private readonly readers: ExportReaders;
  private readonly writers: ImportWriters;
  private readonly reader: CampaignReader;

  constructor(
    private readonly db: Database,
    store: EventStore,
    campaigns: CampaignProjector,
    replay: () => StreamReplay,
    ledger: UsageLedger,
    snapshots: SnapshotTransfer,
    clock: Clock,
    private readonly onImported: (reply: ImportReply, heldMs: number) => void = () => undefined,
  ) {
    this.readers = { db, store, campaigns, ledger, snapshots, clock };
    this.reader = new CampaignReader(db, store, campaigns.cache);
    this.writers = { db, store, replay, ledger, snapshots };
  }

  export(campaignId: string, asOf?: number): Promise<CampaignExport> {
    return exportCampaign(this.readers, campaignId, asOf);
  }

  /** Every campaign id, in id order (the CLI exports a whole database). */
  async campaignIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await this.reader.list({ after, limit: 1000 });
      ids.push(...page.map((c) => c.id));
      if (page.length < 1000) return ids;
      after = ids[ids.length - 1];
    }
  }

  /**
   * Checks the whole file first (bad input imports nothing, and says on which line), refuses an id in use (409), then
   * imports each campaign in one transaction.
   */
  async importFile(path: string, o: ImportOptions): Promise<ImportReply[]> {
    const checked = await checkExport(fileLines(path), o.single);
    const ids = checked.map((c, i) => (i === 0 && o.id !== undefined ? o.id : c.header.campaignId));
    for (const id of ids) {
      o.permit?.(id);
      const taken = await this.db.read((m) => TimelineHistory.taken(m, id));
      if (taken) throw conflict('CAMPAIGN_EXISTS', `campaign ${id} already exists`);
    }
    return importCampaigns(this.writers, fileLines(path), ids, this.onImported);
  }
}

/** The service's transfer: the app's own projectors, so an import writes every projection a live append writes. */
export const campaignTransferProvider: Provider = {
  provide: CampaignTransfer,
  useFactory: (
    db: Database,
    store: EventStore,
    campaigns: CampaignProjector,
    memories: MemoryProjector,
    ledger: UsageLedger,
    snapshots: SnapshotTransfer,
    clock: Clock,
    bus: EventBus,
  ) =>
    new CampaignTransfer(
      db,
      store,
      campaigns,
      () => new StreamReplay(campaigns, memories),
      ledger,
      snapshots,
      clock,
      (reply) => {
        campaigns.cache.dropCampaign(reply.id);
        bus.publish(new CampaignEventsAppended(reply.id, reply.version));
      },
    ),
  inject: [DATABASE, EVENT_STORE, CampaignProjector, MemoryProjector, UsageLedger, SnapshotTransfer, CLOCK, EventBus],
};
