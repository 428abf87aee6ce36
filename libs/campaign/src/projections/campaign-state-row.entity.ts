import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The campaign state as versioned rows (docs/state.md): an entity's document from `valid_from` (the game
 * version that wrote it) until `valid_to` (the one that replaced it; null = current). Kinds and keys:
 * `domain/state-rows.ts`.
 */
@Entity('campaign_state_rows')
@Index('ix_state_rows_current', ['campaignId', 'kind', 'key'], { where: '"valid_to" IS NULL' })
export class CampaignStateRowRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  kind: string;

  @PrimaryColumn({ type: 'varchar', length: 300 })
  key: string;

  @PrimaryColumn({ name: 'valid_from', type: 'integer' })
  validFrom: number;

  @Column({ name: 'valid_to', type: 'integer', nullable: true })
  validTo: number | null;

  @Column({ type: 'text' })
  doc: string;
}

/** One rewind of a campaign (DESIGN §10): not a projection of the stream, so a rebuild keeps it. */
@Entity('campaign_timelines')
export class CampaignTimelineRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ type: 'integer' })
  timeline: number;

  @Column({ name: 'from_version', type: 'integer' })
  fromVersion: number;

  @Column({ name: 'to_version', type: 'integer' })
  toVersion: number;

  @Column({ name: 'memory_version', type: 'integer' })
  memoryVersion: number;

  @Column({ name: 'kept_as', type: 'varchar', length: 128, nullable: true })
  keptAs: string | null;

  @Column({ name: 'rewound_at', type: 'varchar', length: 40 })
  rewoundAt: string;
}
