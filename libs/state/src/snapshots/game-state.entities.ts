import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The latest result of each game tool per account (DESIGN §5): a cache, not history. */
@Entity('game_state_snapshots')
export class GameStateSnapshotRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'account_id', type: 'varchar', length: 128 })
  accountId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  tool: string;

  /** The tool result as JSON text. */
  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'integer' })
  bytes: number;

  @Column({ type: 'bigint', nullable: true })
  tick: number | string | null;

  @Column({ name: 'captured_at', type: 'varchar', length: 40 })
  capturedAt: string;

  /** 0/1: set by an invalidating action, cleared by the next snapshot of the tool. */
  @Column({ type: 'integer', default: 0 })
  stale: number;

  /** JSON: dot path → tick of the merge that last set it. */
  @Column({ name: 'field_ticks', type: 'text' })
  fieldTicks: string;
}

/** Per-campaign rules of a tool: title, fields shown, invalidating actions, maximum age. */
@Entity('snapshot_tools')
export class SnapshotToolRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  tool: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  title: string | null;

  /** JSON array of dot paths, or null for the default rendering. */
  @Column({ type: 'text', nullable: true })
  fields: string | null;

  /** JSON array of actions, or null for the seed defaults. */
  @Column({ name: 'invalidated_by', type: 'text', nullable: true })
  invalidatedBy: string | null;

  @Column({ name: 'max_age_ticks', type: 'bigint', nullable: true })
  maxAgeTicks: number | string | null;
}

/** Game accounts of a campaign and the agent bound to each (projection of AccountLoggedIn/Out). */
@Entity('accounts')
@Index('ux_accounts_agent', ['campaignId', 'agentId'], { unique: true })
export class AccountRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'account_id', type: 'varchar', length: 128 })
  accountId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 128, nullable: true })
  agentId: string | null;

  @Column({ name: 'created_at', type: 'varchar', length: 40 })
  createdAt: string;
}
