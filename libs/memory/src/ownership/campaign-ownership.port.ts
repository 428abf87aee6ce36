import { EntityManager } from 'typeorm';

/** One replica's claim on a campaign's memory work; `signal` aborts when the claim is lost. */
export interface CampaignLease {
  readonly campaignId: string;
  readonly signal: AbortSignal;
}

/**
 * Who may do a campaign's memory work (DESIGN §9): one replica at a time. The worker claims a
 * campaign before draining it, fences every commit on the claim, and lets go when it is done.
 */
export interface CampaignOwnership {
  /** Claims the campaign's memory work, or null while another replica holds it. */
  acquire(campaignId: string): Promise<CampaignLease | null>;
  /**
   * Runs inside the worker's commit transaction, before its checkpoint moves; throws LeaseLostError unless the
   * claim still holds (on PostgreSQL the lease row stays locked until commit, so no takeover slips in between).
   */
  fence(m: EntityManager, lease: CampaignLease): Promise<void>;
  release(lease: CampaignLease): Promise<void>;
}

export const CAMPAIGN_OWNERSHIP = Symbol('CAMPAIGN_OWNERSHIP');

export { LeaseLostError } from '../errors';

const never = new AbortController().signal;

/** SQLite's single-process mode: this process owns every campaign, so claims always succeed. */
export class SingleProcessOwnership implements CampaignOwnership {
  async acquire(campaignId: string): Promise<CampaignLease> {
    return { campaignId, signal: never };
  }
  async fence(): Promise<void> {}
  async release(): Promise<void> {}
}
