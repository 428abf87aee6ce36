import { DomainError } from '@app/common';
import { checkExport } from './export-validator';
import { NumberedLine } from './ndjson-lines';

const header = (over: Record<string, unknown> = {}) => ({
  format: 'lorekeeper-campaign',
  version: 1,
  campaignId: 'c1',
  name: 'C',
  exportedAt: '2026-03-01T00:00:00.000Z',
  timeline: 1,
  game: 2,
  memory: 1,
  processedVersion: 2,
  rewinds: [],
  ...over,
});
const event = (stream: string, version: number, type: string, over: Record<string, unknown> = {}) => ({
  stream,
  version,
  type,
  data: {},
  metadata: {},
  recordedAt: '2026-03-01T00:00:00.000Z',
  ...over,
});
const GOOD = [
  header(),
  event('game', 1, 'CampaignCreated'),
  event('game', 2, 'LocationChanged'),
  event('memory', 1, 'MemoryRecorded', { triggerVersion: 2 }),
  { kind: 'account', account: 'a1', agentId: null, createdAt: '2026-03-01T00:00:00.000Z' },
];

async function* lines(values: unknown[]): AsyncGenerator<NumberedLine> {
  let line = 0;
  for (const v of values) yield { line: ++line, text: typeof v === 'string' ? v : JSON.stringify(v) };
}

/** The code and message of what `checkExport` throws (or 'ok'). */
async function verdict(values: unknown[], single = true): Promise<string> {
  try {
    await checkExport(lines(values), single);
    return 'ok';
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return `${err.code} ${err.message}`;
  }
}

describe('checkExport (DESIGN §15 order rules)', () => {
  it('accepts a well-formed campaign and returns its header', async () => {
    const [c] = await checkExport(lines(GOOD), true);
    expect(c).toMatchObject({ line: 1, header: { campaignId: 'c1', game: 2, memory: 1 } });
  });

  it('names the line of each broken rule', async () => {
    const [h, g1, g2, m1, row] = GOOD;
    expect(await verdict([h, g1, m1, g2, row])).toMatch(/^INVALID_EXPORT line 3: memory event out of order/);
    expect(await verdict([h, g1, g1, g2, m1])).toMatch(/^INVALID_EXPORT line 3: game version 1 again/);
    expect(await verdict([h, g2, m1])).toMatch(/^INVALID_EXPORT line 2: game version 2 leaves a gap/);
    expect(await verdict([h, g1, g2, row, m1])).toMatch(/^INVALID_EXPORT line 5: an event after the rows/);
    expect(await verdict([h, g1, g2])).toMatch(/^INVALID_EXPORT line 3: .*ends at game 2, memory 0/);
    expect(await verdict([h, event('game', 1, 'NpcRegistered')])).toMatch(/line 2: game version 1 is NpcRegistered/);
    expect(await verdict([h, g1, '[1, 2]'])).toMatch(/^INVALID_EXPORT line 3: not a JSON object/);
  });

  it('refuses a missing or unknown header as UNSUPPORTED_EXPORT', async () => {
    expect(await verdict([])).toMatch(/^UNSUPPORTED_EXPORT/);
    expect(await verdict(GOOD.slice(1))).toMatch(/^UNSUPPORTED_EXPORT/);
    expect(await verdict([header({ version: 2 }), ...GOOD.slice(1)])).toMatch(/^UNSUPPORTED_EXPORT .*version 2/);
  });

  it('reads several campaigns only when asked to (a whole database), each id once', async () => {
    expect(await verdict([...GOOD, ...GOOD])).toMatch(/^INVALID_EXPORT line 6: a second campaign/);
    expect(await verdict([...GOOD, ...GOOD], false)).toMatch(/^INVALID_EXPORT line 6: campaign c1 appears twice/);
    const other = [header({ campaignId: 'c2' }), ...GOOD.slice(1)];
    expect(await verdict([...GOOD, ...other], false)).toBe('ok');
  });

  it('keeps a memory event recorded before triggers were stored (no triggerVersion)', async () => {
    const [h, g1, g2, , row] = GOOD;
    expect(await verdict([h, g1, g2, event('memory', 1, 'MemoryRecorded'), row])).toBe('ok');
  });

  it('checks the header against its rewinds and its heads', async () => {
    expect(await verdict([header({ timeline: 2 }), ...GOOD.slice(1)])).toMatch(/line 1: header: timeline 2/);
    expect(await verdict([header({ processedVersion: 3 }), ...GOOD.slice(1)])).toMatch(/processedVersion 3/);
  });
});
