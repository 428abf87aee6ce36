import { parseModelPrices } from '@app/common';
import { UsageGroup, usageReport } from './usage-report';

const group = (
  scope: string,
  model: string,
  outcome: string,
  calls: number,
  tokens: Partial<UsageGroup> = {},
): UsageGroup => ({
  scope,
  model,
  outcome,
  calls,
  requests: calls,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  latencyMs: 0,
  ...tokens,
});

describe('usageReport', () => {
  const prices = parseModelPrices('{"gpt-4o-mini":{"input":0.15,"output":0.6,"cacheRead":0.075}}');

  it('prices each kind of token per million, cache reads and writes at their own price', () => {
    const r = usageReport(
      'c',
      [
        group('location', 'claude-haiku-4-5', 'ok', 2, {
          inputTokens: 1_000_000,
          outputTokens: 100_000,
          cacheReadTokens: 2_000_000,
          cacheWriteTokens: 400_000,
        }),
      ],
      prices,
    );
    // 1 × $1 + 0.1 × $5 + 2 × $0.10 + 0.4 × $1.25
    expect(r.totals.estimatedCost).toBeCloseTo(2.2, 8);
    expect(r.byModel[0]).toMatchObject({
      model: 'claude-haiku-4-5',
      price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    });
  });

  it('sums per scope and per model, counting failed and abandoned calls and what they cost', () => {
    const r = usageReport(
      'c',
      [
        group('location', 'gpt-4o-mini', 'ok', 3, { inputTokens: 3000, outputTokens: 300 }),
        group('location', 'gpt-4o-mini', 'empty', 1, { inputTokens: 1000, outputTokens: 0 }),
        group('npc', 'gpt-4o-mini', 'error', 2),
        group('npc', 'gpt-4o-mini', 'abandoned', 1, { inputTokens: 1000 }),
      ],
      prices,
    );
    expect(r.totals).toMatchObject({
      calls: 7,
      failedCalls: 3,
      abandonedCalls: 1,
      inputTokens: 5000,
      outputTokens: 300,
    });
    expect(r.byScope.map((s) => [s.scope, s.calls, s.failedCalls, s.abandonedCalls])).toEqual([
      ['location', 4, 1, 0],
      ['npc', 3, 2, 1],
    ]);
    expect(r.totals.estimatedCost).toBeCloseTo((5000 * 0.15 + 300 * 0.6) / 1e6, 10);
    expect(r.totals.wastedCost).toBeCloseTo((2000 * 0.15) / 1e6, 10);
  });

  it('lists a model without a price and leaves it out of every estimate', () => {
    const r = usageReport('c', [group('world', 'mystery-7b', 'ok', 1, { inputTokens: 500 })], prices);
    expect(r.unpricedModels).toEqual(['mystery-7b']);
    expect(r.totals.estimatedCost).toBeNull();
    expect(r.byModel[0].price).toBeNull();
  });
});
