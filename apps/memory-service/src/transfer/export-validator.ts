import { DomainError } from '@app/common';
import { EventLine, ExportHeader, ExportLine, invalidExport, parseLine } from './export-format';
import { NumberedLine } from './ndjson-lines';

/** What one campaign of an export holds, once every line of it was checked. */
export interface CheckedCampaign {
  header: ExportHeader;
  /** Line of its header. */
  line: number;
}

/**
 * The order rules of §15, one campaign at a time: a header, then the events of both streams in commit order (each
 * stream's versions 1, 2, 3… with no gap or repeat, a memory event after the game event that triggered it), then rows;
 * the streams end where the header says they do.
 */
export class CampaignChecker {
  private game = 0;
  private memory = 0;
  private trigger = 0;
  private rows = false;

  constructor(
    readonly header: ExportHeader,
    readonly line: number,
  ) {
    const h = header;
    const lastTimeline = h.rewinds.at(-1)?.timeline ?? 1;
    if (h.timeline !== lastTimeline)
      throw invalidExport(line, `header: timeline ${h.timeline}, but its last rewind started timeline ${lastTimeline}`);
    if (h.processedVersion > h.game)
      throw invalidExport(line, `header: processedVersion ${h.processedVersion} is past the game stream (${h.game})`);
  }

  event(e: EventLine, line: number): void {
    if (this.rows) throw invalidExport(line, 'an event after the rows: every event comes before the other rows');
    const expected = (e.stream === 'game' ? this.game : this.memory) + 1;
    if (e.version < expected)
      throw invalidExport(line, `${e.stream} version ${e.version} again or out of order (expected ${expected})`);
    if (e.version > expected)
      throw invalidExport(line, `${e.stream} version ${e.version} leaves a gap (expected ${expected})`);
    if (e.stream === 'game') {
      if (e.version === 1 && e.type !== 'CampaignCreated')
        throw invalidExport(line, `game version 1 is ${e.type}, not CampaignCreated`);
      if (e.triggerVersion !== undefined) throw invalidExport(line, 'a game event has no triggerVersion');
      if (e.version > this.header.game)
        throw invalidExport(line, `game version ${e.version} is past the header's ${this.header.game}`);
      this.game = e.version;
      return;
    }
    // A memory event without a trigger is one recorded before triggers were stored (its row has none): kept so.
    const t = e.triggerVersion;
    if (t !== undefined && (t > this.game || t < this.trigger))
      throw invalidExport(line, `memory event out of order: trigger ${t} after game version ${this.game}`);
    if (e.version > this.header.memory)
      throw invalidExport(line, `memory version ${e.version} is past the header's ${this.header.memory}`);
    this.memory = e.version;
    this.trigger = t ?? this.trigger;
  }

  row(): void {
    this.rows = true;
  }

  /** At the next header or the end of the file (`line`: the last line read). */
  end(line: number): void {
    if (this.game !== this.header.game || this.memory !== this.header.memory)
      throw invalidExport(
        line,
        `the export of ${this.header.campaignId} ends at game ${this.game}, memory ${this.memory}; ` +
          `its header says game ${this.header.game}, memory ${this.header.memory}`,
      );
  }
}

/**
 * Checks a whole export before anything is written (bad input imports nothing): every line's shape and the order
 * rules. `single`: one campaign only (the HTTP route); the CLI reads a whole database's.
 */
export async function checkExport(lines: AsyncIterable<NumberedLine>, single: boolean): Promise<CheckedCampaign[]> {
  const campaigns: CheckedCampaign[] = [];
  let current: CampaignChecker | null = null;
  let last = 0;
  for await (const { line, text } of lines) {
    last = line;
    const parsed: ExportLine = parseLine(text, line, current === null);
    if (parsed.kind === 'header') {
      if (current && single)
        throw invalidExport(line, 'a second campaign: this route imports one (a database: lorekeeper import)');
      current?.end(line - 1);
      current = new CampaignChecker(parsed.header, line);
      campaigns.push({ header: parsed.header, line });
    } else if (parsed.kind === 'event') current!.event(parsed.event, line);
    else current!.row();
  }
  if (!current) throw new DomainError('invalid', 'UNSUPPORTED_EXPORT', 'the export is empty: no header line');
  current.end(last);
  const ids = new Set<string>();
  for (const c of campaigns) {
    if (ids.has(c.header.campaignId)) throw invalidExport(c.line, `campaign ${c.header.campaignId} appears twice`);
    ids.add(c.header.campaignId);
  }
  return campaigns;
}
