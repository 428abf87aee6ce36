import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Message log projection; every context read is an indexed range over it, never a scan. */
@Entity('messages')
@Index('ix_messages_location', ['campaignId', 'locationId', 'index'])
@Index('ix_messages_round', ['campaignId', 'round', 'index'])
@Index('ix_messages_version', ['campaignId', 'version'])
// Only system messages: the lookup of a campaign's first one (message.queries.ts, firstSystemBefore).
@Index('ix_messages_system', ['campaignId', 'index'], { where: "role = 'system'" })
@Index('ix_messages_retracted', ['campaignId', 'retractedVersion'], { where: 'retracted_version IS NOT NULL' })
export class MessageRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'idx', type: 'integer' })
  index: number;

  @Column({ type: 'varchar', length: 16 })
  role: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  speaker: string | null;

  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'location_id', type: 'varchar', length: 128, nullable: true })
  locationId: string | null;

  @Column({ name: 'npc_ids', type: 'text' })
  npcIds: string;

  @Column({ type: 'varchar', length: 40 })
  at: string;

  @Column({ type: 'integer' })
  round: number;

  @Column({ type: 'varchar', length: 16 })
  visibility: string;

  @Column({ type: 'text' })
  audience: string;

  @Column({ name: 'tool_calls', type: 'text' })
  toolCalls: string;

  @Column({ name: 'tool_call_id', type: 'varchar', length: 128, nullable: true })
  toolCallId: string | null;

  @Column({ type: 'text', nullable: true })
  reasoning: string | null;

  /** Game version of its MessageRecorded event: "recorded before trigger V" is `version < V`. */
  @Column({ type: 'integer' })
  version: number;

  /** §10: the game version of the MessagesRetracted that retracted it (the message keeps its index). */
  @Column({ name: 'retracted_version', type: 'integer', nullable: true })
  retractedVersion: number | null;

  @Column({ name: 'retract_reason', type: 'text', nullable: true })
  retractReason: string | null;

  /** §8: the campaign's story time when the message was recorded. */
  @Column({ name: 'story_time', type: 'varchar', length: 80, nullable: true })
  storyTime: string | null;

  /** §8: 1 when the server filled `at` (never printed), 0 when the client gave it. */
  @Column({ name: 'at_filled', type: 'integer', default: 0 })
  atFilled: number;
}

/** Tool calls made by assistant messages, so a tool result can name its call. */
@Entity('tool_calls')
export class ToolCallRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  @PrimaryColumn({ name: 'call_id', type: 'varchar', length: 128 })
  callId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ name: 'message_index', type: 'integer' })
  messageIndex: number;
}
