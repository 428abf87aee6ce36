import { ModelPrice, ModelPrices } from '@app/common';
import { LedgerEntry } from './ledger-entry';

/** What any set of ledger rows adds up to. */
interface Counted {
  calls: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  latencyMs: number;
}

/** Sums of a group of ledger rows. */
export interface UsageTotals extends Counted {
  /** Attempts that failed (empty answer, error, timeout): spent, but produced nothing. */
  failedCalls: number;
  /** Calls whose outcome never committed (shutdown, lost lease, crash). */
  abandonedCalls: number;
  /** USD at MODEL_PRICES; null when no row of the group has a priced model. */
  estimatedCost: number | null;
  /** The part of estimatedCost spent on failed and abandoned calls. */
  wastedCost: number | null;
}

/** A grouped row as the ledger's SQL returns it. */
export interface UsageGroup extends Counted {
  scope: string;
  model: string;
  outcome: string;
}

export interface UsageReport {
  campaignId: string;
  currency: 'USD';
  totals: UsageTotals;
  byScope: Array<{ scope: string } & UsageTotals>;
  byModel: Array<{ model: string; price: ModelPrice | null } & UsageTotals>;
  /** Models with calls but no price: their cost is not in any estimate. */
  unpricedModels: string[];
}

/** USD of some tokens at a price per million. */
export function costOf(
  t: Pick<UsageGroup, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>,
  p: ModelPrice,
): number {
  return (
    (t.inputTokens * p.input +
      t.outputTokens * p.output +
      t.cacheReadTokens * p.cacheRead +
      t.cacheWriteTokens * p.cacheWrite) /
    1_000_000
  );
}

const empty = (): UsageTotals => ({
  calls: 0,
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  latencyMs: 0,
  failedCalls: 0,
  abandonedCalls: 0,
  estimatedCost: null,
  wastedCost: null,
});

const round = (usd: number) => Math.round(usd * 1e8) / 1e8;

function add(into: UsageTotals, g: UsageGroup, price: ModelPrice | undefined): void {
  into.calls += g.calls;
  into.requests += g.requests;
  into.inputTokens += g.inputTokens;
  into.outputTokens += g.outputTokens;
  into.cacheReadTokens += g.cacheReadTokens;
  into.cacheWriteTokens += g.cacheWriteTokens;
  into.latencyMs += g.latencyMs;
  const wasted = g.outcome !== 'ok';
  if (g.outcome === 'abandoned') into.abandonedCalls += g.calls;
  else if (wasted) into.failedCalls += g.calls;
  if (!price) return;
  const cost = costOf(g, price);
  into.estimatedCost = round((into.estimatedCost ?? 0) + cost);
  into.wastedCost = round((into.wastedCost ?? 0) + (wasted ? cost : 0));
}

/** GET /usage: the ledger's groups summed per scope and per model, priced at MODEL_PRICES (pure). */
export function usageReport(campaignId: string, groups: UsageGroup[], prices: ModelPrices): UsageReport {
  const totals = empty();
  const scopes = new Map<string, UsageTotals>();
  const models = new Map<string, UsageTotals>();
  for (const g of groups) {
    const price = prices[g.model];
    add(totals, g, price);
    add(scopes.get(g.scope) ?? scopes.set(g.scope, empty()).get(g.scope)!, g, price);
    add(models.get(g.model) ?? models.set(g.model, empty()).get(g.model)!, g, price);
  }
  const unpricedModels = [...models.keys()].filter((m) => !prices[m]).sort();
  return {
    campaignId,
    currency: 'USD',
    totals,
    byScope: [...scopes].sort(([a], [b]) => a.localeCompare(b)).map(([scope, t]) => ({ scope, ...t })),
    byModel: [...models]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([model, t]) => ({ model, price: prices[model] ?? null, ...t })),
    unpricedModels,
  };
}

/** One call as GET …/memories/:id/usage lists it. */
export function callView(e: LedgerEntry, prices: ModelPrices) {
  const price = prices[e.model];
  return {
    scope: e.scope,
    subjectId: e.subjectId,
    attempt: e.attempt,
    model: e.model,
    outcome: e.outcome,
    inputTokens: e.inputTokens,
    outputTokens: e.outputTokens,
    cacheReadTokens: e.cacheReadTokens,
    cacheWriteTokens: e.cacheWriteTokens,
    latencyMs: e.latencyMs,
    requests: e.requests,
    triggerVersion: e.triggerVersion,
    calledAt: e.calledAt,
    estimatedCost: price ? round(costOf(e, price)) : null,
  };
}
