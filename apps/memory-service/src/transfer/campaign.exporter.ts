import { CampaignProjector, TimelineHistory } from '@app/campaign';
import { Clock, invalid, notFound } from '@app/common';
import { Database } from '@app/database';
import { EventStore, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { memoryCut } from '@app/memory';
import { SnapshotTransfer } from '@app/state';
import { UsageLedger } from '@app/summarizer';
import { EXPORT_FORMAT, EXPORT_VERSION, ExportHeader } from './export-format';

/** Events and ledger rows per read: each read is short, so an export never holds SQLite's one connection for long. */
const PAGE = 1000;
/** A snapshot may hold megabytes: a few per read. */
const SNAPSHOT_PAGE = 16;

export interface ExportReaders {
  db: Database;
  store: EventStore;
  campaigns: CampaignProjector;
  ledger: UsageLedger;
  snapshots: SnapshotTransfer;
  clock: Clock;
}

/** An export ready to stream: its header was read (a missing campaign or a bad version was refused before). */
export interface CampaignExport {
  header: ExportHeader;
  /** The NDJSON lines, header first, each with its newline; read page by page as they are consumed. */
  lines: AsyncIterable<string>;
}

/**
 * DESIGN §15 export of one campaign, as of `asOf` or now. The cut is fixed first (game version V, memory version M at
 * min(V, processed)), then both streams are read up to it in pages and merged by commit order: appends after the cut
 * are not in the export, and memory stays constant whatever the campaign's length.
 */
export async function exportCampaign(r: ExportReaders, cid: string, asOf?: number): Promise<CampaignExport> {
  const header = await r.db.read(async (m) => {
    const state = await r.campaigns.load(m, cid);
    if (state.version === 0) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${cid} not found`);
    if (asOf !== undefined && (asOf < 1 || asOf > state.version))
      throw invalid('INVALID_VERSION', `asOf ${asOf} is outside 1..${state.version}`);
    const game = asOf ?? state.version;
    const cut = await memoryCut(m, r.store, cid, game);
    const h: ExportHeader = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      campaignId: cid,
      name: state.name,
      exportedAt: r.clock.now().toISOString(),
      ...(asOf === undefined ? {} : { asOf }),
      timeline: state.timeline ?? 1,
      game,
      memory: cut.memoryVersion,
      processedVersion: cut.processedVersion,
      rewinds: await TimelineHistory.read(m, cid),
    };
    return h;
  });
  return { header, lines: exportLines(r, header) };
}

async function* exportLines(r: ExportReaders, h: ExportHeader): AsyncGenerator<string> {
  yield `${JSON.stringify(h)}\n`;
  for await (const e of mergedStreams(r.store, h)) yield `${JSON.stringify(e)}\n`;
  const untilTrigger = h.asOf === undefined ? undefined : h.processedVersion;
  for (let afterId = 0; ;) {
    const page = await r.ledger.page(h.campaignId, { afterId, limit: PAGE, untilTrigger });
    for (const { entry } of page) {
      const { campaignId: _campaign, ...row } = entry;
      yield `${JSON.stringify({ kind: 'usage', ...row })}\n`;
    }
    if (page.length < PAGE) break;
    afterId = page[page.length - 1].id;
  }
  // The game-state cache is not history (§10): an as-of export has no snapshots, as a fork has none.
  if (h.asOf !== undefined) return;
  for (const a of await r.snapshots.accounts(h.campaignId)) yield `${JSON.stringify({ kind: 'account', ...a })}\n`;
  for (const t of await r.snapshots.tools(h.campaignId)) yield `${JSON.stringify({ kind: 'snapshot-tool', ...t })}\n`;
  for (let after: [string, string] | null = null; ;) {
    const page = await r.snapshots.snapshotsPage(h.campaignId, after, SNAPSHOT_PAGE);
    for (const s of page) yield `${JSON.stringify({ kind: 'snapshot', ...s })}\n`;
    if (page.length < SNAPSHOT_PAGE) break;
    after = [page[page.length - 1].account, page[page.length - 1].tool];
  }
}

/** Both streams up to the cut, in commit (global position) order, as export lines. */
async function* mergedStreams(store: EventStore, h: ExportHeader) {
  const game = pages(store, gameStream(h.campaignId), h.game);
  const memory = pages(store, memoryStream(h.campaignId), h.memory);
  let g = await game.next();
  let mm = await memory.next();
  while (!g.done || !mm.done) {
    const takeGame = mm.done || (!g.done && g.value.position < mm.value.position);
    const e = (takeGame ? g.value : mm.value) as StoredEvent;
    yield {
      stream: takeGame ? 'game' : 'memory',
      version: e.version,
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      ...(e.triggerVersion === undefined ? {} : { triggerVersion: e.triggerVersion }),
      recordedAt: e.recordedAt,
    };
    if (takeGame) g = await game.next();
    else mm = await memory.next();
  }
}

async function* pages(store: EventStore, stream: string, until: number): AsyncGenerator<StoredEvent> {
  for (let after = 0; after < until;) {
    const page = await store.readStream(stream, { after, until, limit: PAGE, withTrigger: true });
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1].version;
  }
}
