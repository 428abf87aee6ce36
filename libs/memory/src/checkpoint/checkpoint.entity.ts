import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The memory worker's durable checkpoint of one campaign; a missing row means nothing processed yet. */
@Entity('memory_checkpoints')
export class MemoryCheckpointRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  /** Last game version the memory worker finished. */
  @Column({ name: 'processed_version', type: 'integer', default: 0 })
  processedVersion: number;

  /** Memory stream version. */
  @Column({ name: 'memory_version', type: 'integer', default: 0 })
  memoryVersion: number;

  /** §10: the campaign's timeline this checkpoint belongs to (memory's own fence against a rewind). */
  @Column({ type: 'integer', default: 1 })
  timeline: number;
}
