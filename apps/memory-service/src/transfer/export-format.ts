import { ID_PATTERN, DomainError } from '@app/common';
import { z } from 'zod';

/** DESIGN §15: the campaign export format (NDJSON), one header, the events of both streams, then the other rows. */
export const EXPORT_FORMAT = 'lorekeeper-campaign';
export const EXPORT_VERSION = 1;
export const NDJSON = 'application/x-ndjson';

const version = z.number().int().min(0);
const jsonObject = z.record(z.string(), z.unknown());

const rewind = z.strictObject({
  timeline: z.number().int().min(2),
  fromVersion: version,
  toVersion: version,
  memoryVersion: version,
  keptAs: z.string().nullable(),
  rewoundAt: z.string(),
});

/** The first line of each campaign: its heads (the streams' versions), the worker's progress and its rewinds. */
export const headerLine = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  campaignId: z.string().regex(ID_PATTERN),
  name: z.string(),
  exportedAt: z.string(),
  /** Set on an `asOf` export: the game version the campaign is exported as of. */
  asOf: version.optional(),
  timeline: z.number().int().min(1),
  game: z.number().int().min(1),
  memory: version,
  /**
   * How far the memory worker had got (its checkpoint, as of the export's cut): the import's worker goes on from
   * it.
   */
  processedVersion: version,
  rewinds: z.array(rewind),
});
export type ExportHeader = z.infer<typeof headerLine>;

export const eventLine = z.strictObject({
  stream: z.enum(['game', 'memory']),
  version: z.number().int().min(1),
  type: z.string().min(1).max(200),
  data: jsonObject,
  metadata: jsonObject,
  triggerVersion: version.optional(),
  recordedAt: z.string().min(1),
});
export type EventLine = z.infer<typeof eventLine>;

const usageLine = z.strictObject({
  kind: z.literal('usage'),
  scope: z.string(),
  subjectId: z.string(),
  attempt: version,
  model: z.string(),
  outcome: z.enum(['ok', 'empty', 'error', 'timeout', 'abandoned']),
  inputTokens: version,
  outputTokens: version,
  cacheReadTokens: version,
  cacheWriteTokens: version,
  latencyMs: version,
  requests: version,
  triggerVersion: version,
  memoryVersion: version.nullable(),
  memoryId: z.string().nullable(),
  calledAt: z.string(),
});

const tick = z.number().int().nullable();
const snapshotLine = z.strictObject({
  kind: z.literal('snapshot'),
  account: z.string().regex(ID_PATTERN),
  tool: z.string().regex(ID_PATTERN),
  content: z.unknown(),
  tick,
  capturedAt: z.string(),
  stale: z.boolean(),
  fieldTicks: z.record(z.string(), tick),
});

const toolLine = z.strictObject({
  kind: z.literal('snapshot-tool'),
  tool: z.string().regex(ID_PATTERN),
  title: z.string().nullable(),
  fields: z.array(z.string()).nullable(),
  invalidatedBy: z.array(z.string()).nullable(),
  maxAgeTicks: tick,
});

const accountLine = z.strictObject({
  kind: z.literal('account'),
  account: z.string().regex(ID_PATTERN),
  agentId: z.string().nullable(),
  createdAt: z.string(),
});

/** What follows the events: rows that are not events (the usage ledger, the game-state cache, accounts). */
export const rowLine = z.discriminatedUnion('kind', [usageLine, snapshotLine, toolLine, accountLine]);
export type RowLine = z.infer<typeof rowLine>;

export type ExportLine =
  { kind: 'header'; header: ExportHeader } | { kind: 'event'; event: EventLine } | { kind: 'row'; row: RowLine };

export const invalidExport = (line: number, detail: string): DomainError =>
  new DomainError('invalid', 'INVALID_EXPORT', `line ${line}: ${detail}`);

const unsupported = (detail: string): DomainError => new DomainError('invalid', 'UNSUPPORTED_EXPORT', detail);

const firstIssue = (err: z.ZodError): string => {
  const issue = err.issues[0];
  return `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
};

/**
 * One line of an export, by its shape: a header has `format`, an event `stream`, a row `kind`. `first`: the line
 * that must be a header (a missing or unknown header is UNSUPPORTED_EXPORT, anything else malformed INVALID_EXPORT).
 */
export function parseLine(text: string, line: number, first: boolean): ExportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (first) throw unsupported('the export does not start with a lorekeeper-campaign header line');
    throw invalidExport(line, 'not JSON');
  }
  const obj =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (first || (obj && 'format' in obj)) {
    if (!obj || obj.format !== EXPORT_FORMAT) throw unsupported(`line ${line}: not a ${EXPORT_FORMAT} header`);
    if (obj.version !== EXPORT_VERSION)
      throw unsupported(`line ${line}: export format version ${JSON.stringify(obj.version)}; this build reads 1`);
    const header = headerLine.safeParse(value);
    if (!header.success) throw invalidExport(line, `header: ${firstIssue(header.error)}`);
    return { kind: 'header', header: header.data };
  }
  if (!obj) throw invalidExport(line, 'not a JSON object');
  if ('stream' in obj) {
    const event = eventLine.safeParse(value);
    if (!event.success) throw invalidExport(line, `not an event: ${firstIssue(event.error)}`);
    return { kind: 'event', event: event.data };
  }
  const row = rowLine.safeParse(value);
  if (!row.success) throw invalidExport(line, `not an event or a row: ${firstIssue(row.error)}`);
  return { kind: 'row', row: row.data };
}
