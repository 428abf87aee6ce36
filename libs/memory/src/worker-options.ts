import type { CampaignReader } from '@app/campaign';
import type { Database } from '@app/database';
import type { EventStore } from '@app/event-store';
import type { Summarizer } from '@app/summarizer';
import type { MemoryProjector } from './memory.projector';
import type { CampaignOwnership } from './ownership/campaign-ownership.port';
import type { WorkerProgress } from './progress';
import type { CallObserver, UsageOptions } from './usage-observer';

/** What the worker is configured with (MemoryModule builds it from AppConfig; the usage fields are the ledger's). */
export interface WorkerOptions extends UsageOptions {
  attempts: number;
  timeoutMs: number;
  concurrency: number;
  /** Least ms between two drains of one campaign (DRAIN_GAP_MS, memory.worker.ts). */
  drainGapMs?: number;
  /** Game events read per batch while catching up. */
  batchSize?: number;
  /** Observes each committed outcome (metrics). */
  onOutcome?: (outcome: 'recorded' | 'skipped', scope: string) => void;
  /** §8 "Previously": rewritten at each RoundEnded of a multiple of this (SUMMARY_INTERVAL_ROUNDS, 4). */
  summaryIntervalRounds?: number;
  /** §8: rounds kept verbatim in Recent Messages (HOT_ROUNDS, 4); only older ones are summarized. */
  hotRounds?: number;
  /** §8: the longest "Previously" (ROLLING_SUMMARY_WORDS, 150). */
  rollingSummaryWords?: number;
  /** §13 MAX_NEW_TERMS_PER_REQUEST (20) and MAX_GLOSSARY_TERMS (2,000). */
  maxNewTermsPerRequest?: number;
  maxGlossaryTerms?: number;
}

export interface WorkerLogger {
  log(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/** What a drain works with: the stores it reads and writes, the model, who may commit, who observes the calls. */
export interface DrainDeps {
  db: Database;
  store: EventStore;
  reader: CampaignReader;
  projector: MemoryProjector;
  summarizer: Summarizer;
  progress: WorkerProgress;
  logger: WorkerLogger;
  options: WorkerOptions;
  ownership: CampaignOwnership;
  /** §12: the usage ledger's seam (usage-observer.ts). */
  calls: CallObserver;
}
