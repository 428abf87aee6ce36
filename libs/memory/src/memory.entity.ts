import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Memory projection (from MemoryRecorded on the memory stream). */
@Entity('memories')
@Index('ux_memories_trigger', ['campaignId', 'scope', 'subjectId', 'triggerVersion'], { unique: true })
@Index('ix_memories_scope', ['campaignId', 'scope', 'subjectId', 'memoryVersion'])
@Index('ix_memories_through', ['campaignId', 'throughMessageIndex'])
// An unscoped listing, newest first from a horizon (migration 1764600000000).
@Index('ix_memories_version', ['campaignId', 'memoryVersion'])
@Index('ix_memories_withheld', ['campaignId'], { where: "status = 'withheld'" })
export class MemoryRecord {
  /** Unique within its campaign: a fork serves its parent's memory ids unchanged (§10). */
  @PrimaryColumn({ type: 'varchar', length: 300 })
  id: string;

  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
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

  /** §10: 1 as recorded, +1 per revision or correction. */
  @Column({ type: 'integer', default: 1 })
  revision: number;

  /** §10: `model` or `dm` (a correction). */
  @Column({ type: 'varchar', length: 8, default: 'model' })
  origin: string;

  /** §10: `active`, `withheld` (a retraction awaits its revision), `withdrawn` or `deleted`. */
  @Column({ type: 'varchar', length: 12, default: 'active' })
  status: string;

  /** §10: the game version since which this row's wording and status hold (older ones are in memory_history). */
  @Column({ name: 'changed_version', type: 'integer' })
  changedVersion: number;

  /** §10: corrected by the DM; the worker never revises it. */
  @Column({ type: 'boolean', default: false })
  locked: boolean;

  /** The scope's cursor after this memory (its MemoryRecorded's `cursor`): cursors as of a version. */
  @Column({ type: 'integer', nullable: true })
  cursor: number | null;
}

/** §10: every wording and status a memory had, oldest first; as-of reads and `…/history` read it. */
@Entity('memory_history')
@Index('ix_memory_history_at', ['campaignId', 'memoryId', 'validFrom', 'seq'])
export class MemoryHistoryRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'memory_id', type: 'varchar', length: 300 })
  memoryId: string;

  @PrimaryColumn({ type: 'integer' })
  seq: number;

  /** Game version from which this entry holds. */
  @Column({ name: 'valid_from', type: 'integer' })
  validFrom: number;

  @Column({ type: 'integer' })
  revision: number;

  @Column({ type: 'varchar', length: 12 })
  status: string;

  /** `recorded`, `withheld`, `revised`, `corrected`, `withdrawn` or `deleted`. */
  @Column({ type: 'varchar', length: 12 })
  reason: string;

  @Column({ type: 'varchar', length: 8 })
  origin: string;

  @Column({ type: 'text' })
  summary: string;

  @Column({ name: 'input_indexes', type: 'text' })
  inputIndexes: string;

  /** The memory-stream version of the event that wrote it; null for game-stream edits (corrections). */
  @Column({ name: 'memory_version', type: 'integer', nullable: true })
  memoryVersion: number | null;

  /** The wording's full-text row: its memory version, or 2^30 + game version for a DM correction. */
  @Column({ name: 'search_seq', type: 'integer' })
  searchSeq: number;

  @Column({ type: 'varchar', length: 32 })
  at: string;
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
