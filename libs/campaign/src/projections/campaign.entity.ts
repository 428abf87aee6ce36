import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Campaign projection: the aggregate state document plus the worker's checkpoint. */
@Entity('campaigns')
export class CampaignRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Game stream version (what If-Match refers to). */
  @Column({ type: 'integer' })
  version: number;

  /** Last game version the memory worker finished (its durable checkpoint). */
  @Column({ name: 'processed_version', type: 'integer', default: 0 })
  processedVersion: number;

  /** Memory stream version. */
  @Column({ name: 'memory_version', type: 'integer', default: 0 })
  memoryVersion: number;

  @Column({ type: 'text' })
  state: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
