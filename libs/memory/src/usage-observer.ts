import { StoredEvent } from '@app/event-store';
import { LedgerEntry, ledgerEntry, ModelCall, Summarizer } from '@app/summarizer';
import { EntityManager } from 'typeorm';
import type { CallAbout } from './triggers/trigger';
import { abandonedEntries, CallGroup, committedEntries, UsageSink, writtenIds } from './usage-calls';

/**
 * The one seam between the drain and the §12 usage ledger: the drain commits, the ledger observes. The drain tells
 * it when a claim starts and, per trigger event, each summary's calls, the outcome's transaction, its commit, or
 * that it will never commit; what is written, when and how is the ledger's (usage-observer.ts).
 */
export interface CallObserver {
  /** A claim's batch starts on the campaign (before any call of it). */
  claimed(campaignId: string): Promise<void>;
  /** The model calls of one trigger event, from its first call to the commit (or not) of its outcome. */
  handling(campaignId: string, event: StoredEvent): EventCalls;
}

/** What the ledger observes of one trigger event; every path of the drain ends in `committed` or `abandoned`. */
export interface EventCalls {
  /** One summary's retry loop: `onCall` sees each finished attempt as it ends, `spent` all of them at the end. */
  summary(about: CallAbout): SummaryCalls;
  /** Inside the outcome's transaction, after its events were appended: the calls commit with what they produced. */
  committing(m: EntityManager, appended: StoredEvent[]): Promise<void>;
  /** Once that transaction committed. */
  committed(): void;
  /** The outcome will never commit (the trigger failed or was abandoned, the commit failed or was fenced). */
  abandoned(): Promise<void>;
}

export interface SummaryCalls {
  onCall?: (call: ModelCall) => Promise<void>;
  spent(calls: ModelCall[]): void;
}

/** The ledger's side of the seam: where rows go, whether paid calls are written ahead, who sees durable rows. */
export interface UsageOptions {
  /** §12 usage ledger: every model call, written in the transaction of the outcome it produced. */
  usage?: UsageSink;
  /** Writes each paid call ahead of its outcome, so a crash cannot lose it (remote models; the local one is free). */
  writeAhead?: boolean;
  /** Observes the ledger rows once they are durable (metrics). */
  onCalls?: (entries: LedgerEntry[]) => void;
}

export interface UsageLogger {
  warn(message: string, context?: Record<string, unknown>): void;
}

const IGNORED: EventCalls = {
  summary: () => ({ spent: () => undefined }),
  committing: async () => undefined,
  committed: () => undefined,
  abandoned: async () => undefined,
};

/** No ledger configured: calls are made and not recorded. */
export const NO_USAGE: CallObserver = { claimed: async () => undefined, handling: () => IGNORED };

/** The observer of `options`: the usage ledger when one is configured. */
export function usageObserver(options: UsageOptions, summarizer: Summarizer, logger: UsageLogger): CallObserver {
  return options.usage ? new LedgerObserver(options.usage, options, summarizer, logger) : NO_USAGE;
}

/**
 * §12: every model call reaches the ledger — in the transaction of the outcome it produced, or as abandoned when
 * that outcome never commits; with `writeAhead`, each paid call is written as pending when it ends, so a crash
 * cannot lose it (`settle` replaces it with the outcome, `sweep` abandons what a crashed owner left).
 */
export class LedgerObserver implements CallObserver {
  constructor(
    private readonly usage: UsageSink,
    private readonly options: UsageOptions,
    private readonly summarizer: Summarizer,
    private readonly logger: UsageLogger,
  ) {}

  async claimed(campaignId: string): Promise<void> {
    // Calls a crashed owner wrote ahead and never settled: their outcome will never commit.
    if (this.options.writeAhead) await this.usage.sweep(campaignId);
  }

  handling(campaignId: string, event: StoredEvent): EventCalls {
    return new LedgeredEvent(this, campaignId, event);
  }

  get writesAhead(): boolean {
    return !!this.options.writeAhead;
  }

  model(): string {
    return this.summarizer.model ?? this.summarizer.name;
  }

  /** Writes one finished attempt ahead of its outcome; a failure only leaves the crash window open for it. */
  async writeAhead(event: LedgeredEvent, group: CallGroup, call: ModelCall): Promise<void> {
    const { campaignId, trigger } = event;
    const at = { campaignId, scope: group.scope, subjectId: group.subjectId, triggerVersion: trigger.version };
    try {
      group.written.set(call, await this.usage.pending(ledgerEntry(call, { ...at, model: this.model() }, 'pending')));
    } catch (err) {
      // The call still reaches the ledger with its outcome.
      this.warn('model call not written ahead', err, event);
    }
  }

  async settle(m: EntityManager, pendingIds: number[], entries: LedgerEntry[]): Promise<void> {
    await this.usage.settle(m, pendingIds, entries);
  }

  /** §12: calls whose outcome will never commit are still spent; recorded as abandoned, never lost to the ledger. */
  async abandon(event: LedgeredEvent, groups: CallGroup[]): Promise<void> {
    if (groups.every((g) => g.calls.length === 0)) return;
    const { campaignId, trigger } = event;
    try {
      // Rows written ahead are marked in place; the others are inserted.
      await this.usage.abandon(abandonedEntries(campaignId, trigger, groups, this.model()), writtenIds(groups));
      this.durable(abandonedEntries(campaignId, trigger, groups, this.model(), false));
    } catch (err) {
      this.warn('abandoned model calls not recorded', err, event);
    }
  }

  /** The rows are durable (metrics). */
  durable(entries: LedgerEntry[]): void {
    if (entries.length) this.options.onCalls?.(entries);
  }

  private warn(what: string, err: unknown, event: LedgeredEvent): void {
    const context = { campaignId: event.campaignId, triggerVersion: event.trigger.version };
    this.logger.warn(`${what}: ${(err as Error).message}`, context);
  }
}

/** One trigger event's calls, one group per summary, kept until their outcome commits or is abandoned. */
class LedgeredEvent implements EventCalls {
  private readonly groups: CallGroup[] = [];
  private entries: LedgerEntry[] = [];

  constructor(
    private readonly ledger: LedgerObserver,
    readonly campaignId: string,
    readonly trigger: StoredEvent,
  ) {}

  summary(about: CallAbout): SummaryCalls {
    const group: CallGroup = { ...about, calls: [], written: new Map() };
    this.groups.push(group);
    return {
      onCall: this.ledger.writesAhead ? (call) => this.ledger.writeAhead(this, group, call) : undefined,
      spent: (calls) => {
        group.calls = calls;
      },
    };
  }

  async committing(m: EntityManager, appended: StoredEvent[]): Promise<void> {
    this.entries = committedEntries(this.campaignId, this.trigger, appended, this.groups, this.ledger.model());
    if (this.entries.length) await this.ledger.settle(m, writtenIds(this.groups), this.entries);
  }

  committed(): void {
    this.ledger.durable(this.entries);
  }

  abandoned(): Promise<void> {
    return this.ledger.abandon(this, this.groups);
  }
}
