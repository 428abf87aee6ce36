import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Campaign projection: the aggregate state document (the memory worker's checkpoint is memory's own table). */
@Entity('campaigns')
@Index('ix_campaigns_parent', ['parentId'])
export class CampaignRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Game stream version (what If-Match refers to). */
  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'text' })
  state: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  /** §10: 1, +1 per rewind; versions are only comparable within one timeline. */
  @Column({ type: 'integer', default: 1 })
  timeline: number;

  /** Messages recorded (the next message index). */
  @Column({ name: 'message_count', type: 'integer', default: 0 })
  messageCount: number;

  /** §10: the campaign this one was forked from, and at which of its versions. */
  @Column({ name: 'parent_id', type: 'varchar', length: 128, nullable: true })
  parentId: string | null;

  @Column({ name: 'parent_version', type: 'integer', nullable: true })
  parentVersion: number | null;
}

/** §10: versioned pieces of the campaign state (lane 1 folds them); a row holds from `validFrom` until `validTo`. */
@Entity('campaign_state_rows')
@Index('ix_state_rows_current', ['campaignId', 'kind', 'key'], { where: 'valid_to IS NULL' })
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

/** §10: one row per rewind (timeline `timeline` began there); never rewound, deleted with the campaign. */
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

  @Column({ name: 'rewound_at', type: 'varchar', length: 32 })
  rewoundAt: string;
}
