import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Glossary terms the worker coined (GlossaryTermAdded); the DM's overrides live in the campaign state. */
@Entity('glossary_terms')
@Index('ix_glossary_coined', ['campaignId', 'coinedMessageIndex'])
export class GlossaryTermRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  /** The term lower-cased (glossaryKey): terms are compared case-insensitively. */
  @PrimaryColumn({ name: 'term_key', type: 'varchar', length: 200 })
  termKey: string;

  /** Its first-seen form. */
  @Column({ type: 'varchar', length: 200 })
  term: string;

  @Column({ type: 'text' })
  definition: string;

  @Column({ name: 'coined_message_index', type: 'integer' })
  coinedMessageIndex: number;

  @Column({ name: 'trigger_version', type: 'integer' })
  triggerVersion: number;

  /** One row per coining (§10: a withdrawn term may be coined again). */
  @PrimaryColumn({ name: 'memory_version', type: 'integer' })
  memoryVersion: number;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  /** §10: the game version of the retraction of its coining message (until the worker decides). */
  @Column({ name: 'withheld_version', type: 'integer', nullable: true })
  withheldVersion: number | null;

  @Column({ name: 'withdrawn_version', type: 'integer', nullable: true })
  withdrawnVersion: number | null;
}

/** Every "Previously" summary, per viewer ('*' = everyone's); the newest per viewer is served. */
@Entity('rolling_summaries')
export class RollingSummaryRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  /** '*' or `player:<id>`. */
  @PrimaryColumn({ name: 'viewer_key', type: 'varchar', length: 140 })
  viewerKey: string;

  @PrimaryColumn({ name: 'memory_version', type: 'integer' })
  memoryVersion: number;

  @Column({ type: 'text' })
  summary: string;

  @Column({ name: 'since_message_index', type: 'integer' })
  sinceMessageIndex: number;

  @Column({ name: 'through_message_index', type: 'integer' })
  throughMessageIndex: number;

  @Column({ name: 'trigger_version', type: 'integer' })
  triggerVersion: number;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  @Column({ name: 'input_indexes', type: 'text' })
  inputIndexes: string;

  /** §10: the game version of a retraction that took this summary's input (served again once revised). */
  @Column({ name: 'withheld_version', type: 'integer', nullable: true })
  withheldVersion: number | null;
}

/** Viewers who witnessed every message a memory was summarized from (DESIGN §8): the only ones who may see it. */
@Entity('memory_witnesses')
export class MemoryWitnessRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'viewer_id', type: 'varchar', length: 140 })
  viewerId: string;

  @PrimaryColumn({ name: 'memory_id', type: 'varchar', length: 300 })
  memoryId: string;
}
