import { CampaignReader, CampaignState, emptyState, evolve, GameEvent } from '@app/campaign';
import { DomainError } from '@app/common';
import { StoredEvent } from '@app/event-store';
import { KnownTerms } from './glossary/known-terms';
import { CampaignLease } from './ownership/campaign-ownership.port';

import { CheckpointMoved } from './errors';

export { Abandoned, CheckpointMoved } from './errors';

/** One claim's progress through its batch: where the checkpoint stands, and what it read once and keeps current. */
export interface Pass {
  lease: CampaignLease;
  /** §10: the checkpoint's timeline at the claim's start; a rewind since then fences every commit of this claim. */
  timeline: number;
  /** The state right after the event being handled: the checkpoint's state folded forward over the batch. */
  state: CampaignState;
  processed: number;
  /** Only this claim's commits move the memory stream, so its version is known without reading it again. */
  memoryVersion: number;
  /** The last event that triggered nothing since the last move: the checkpoint moves over it with the next commit. */
  plain: number | null;
  /** Nobody else moves this campaign's cursors while we hold it: read once, kept current as outcomes commit. */
  cursors: Map<string, number> | null;
  known: KnownTerms | null;
  /** Shutdown or the lease lost: made once per pass (AbortSignal.any per event was ≈ 4 % of a batch write's CPU). */
  signal?: AbortSignal;
}

/** Campaigns whose last pass's end state is kept: a caught-up worker folds on from it instead of loading. */
const ENDED_STATES = 256;

/** The campaign states a drain works from: at the checkpoint, at a version, kept where a pass ended. */
export class PassStates {
  /** The state each campaign's last pass ended at, with its timeline (a rewind reuses version numbers). */
  private readonly ended = new Map<string, { timeline: number; state: CampaignState }>();

  constructor(private readonly reader: CampaignReader) {}

  /** The state at the checkpoint: where the last pass ended when it ended there, else read at that version. */
  async start(campaignId: string, timeline: number, version: number): Promise<CampaignState> {
    const ended = this.ended.get(campaignId);
    if (ended && ended.timeline === timeline && ended.state.version === version) return ended.state;
    return this.at(campaignId, version);
  }

  keepEnded(campaignId: string, timeline: number, state: CampaignState): void {
    this.ended.delete(campaignId);
    this.ended.set(campaignId, { timeline, state });
    if (this.ended.size > ENDED_STATES) this.ended.delete(this.ended.keys().next().value!);
  }

  /** The campaign state right after game event `version` (versioned state rows: no replay, docs/state.md). */
  async at(campaignId: string, version: number): Promise<CampaignState> {
    if (version === 0) return emptyState(campaignId);
    try {
      return await this.reader.stateAt(campaignId, version);
    } catch (err) {
      // Deleted, or rewound below the checkpoint since it was read: this claim has nothing left to do.
      if (err instanceof DomainError) throw new CheckpointMoved();
      throw err;
    }
  }
}

/** The state right after `e` (the game stream holds only the domain's events). */
export function folded(state: CampaignState, e: StoredEvent): CampaignState {
  return { ...evolve(state, { type: e.type, data: e.data } as GameEvent, e.recordedAt, e.version), version: e.version };
}

/** Whether an event changed a name the glossary must not coin (evolve replaces only the parts it changes). */
export function namesChanged(a: CampaignState, b: CampaignState): boolean {
  return (
    a.locations !== b.locations ||
    a.npcs !== b.npcs ||
    a.players !== b.players ||
    a.glossary !== b.glossary ||
    a.bible !== b.bible
  );
}
