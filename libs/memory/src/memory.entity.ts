import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Memory projection (from MemoryRecorded on the memory stream). */
@Entity('memories')
@Index('ux_memories_trigger', ['campaignId', 'scope', 'subjectId', 'triggerVersion'], { unique: true })
@Index('ix_memories_scope', ['campaignId', 'scope', 'subjectId', 'memoryVersion'])
export class MemoryRecord {
  @PrimaryColumn({ type: 'varchar', length: 300 })
  id: string;

  @Column({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @Column({ type: 'varchar', length: 16 })
  scope: string;

  @Column({ name: 'subject_id', type: 'varchar', length: 128 })
  subjectId: string;

  @Column({ type: 'text' })
  summary: string;

  @Column({ type: 'text' })
  tags: string;

  @Column({ name: 'location_id', type: 'varchar', length: 128, nullable: true })
  locationId: string | null;

  @Column({ name: 'npc_ids', type: 'text' })
  npcIds: string;

  @Column({ name: 'quest_id', type: 'varchar', length: 128, nullable: true })
  questId: string | null;

  @Column({ name: 'encounter_id', type: 'varchar', length: 128, nullable: true })
  encounterId: string | null;

  @Column({ name: 'since_message_index', type: 'integer' })
  sinceMessageIndex: number;

  @Column({ name: 'through_message_index', type: 'integer' })
  throughMessageIndex: number;

  @Column({ name: 'since_timestamp', type: 'varchar', length: 40 })
  sinceTimestamp: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  @Column({ name: 'trigger_version', type: 'integer' })
  triggerVersion: number;

  /** Its MemoryRecorded's version in the memory stream: the recording order. */
  @Column({ name: 'memory_version', type: 'integer' })
  memoryVersion: number;

  /** Message indexes the summarizer read (for witness filtering, §8). */
  @Column({ name: 'input_indexes', type: 'text' })
  inputIndexes: string;
}

/** Per-scope cursors: the highest message index already summarized for that scope. */
@Entity('memory_cursors')
export class CursorRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  scope: string;

  @PrimaryColumn({ name: 'subject_id', type: 'varchar', length: 128 })
  subjectId: string;

  @Column({ type: 'integer' })
  value: number;
}
