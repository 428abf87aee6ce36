import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Campaign projection: the aggregate state document (the memory worker's checkpoint is memory's own table). */
@Entity('campaigns')
export class CampaignRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Game stream version (what If-Match refers to). */
  @Column({ type: 'integer' })
  version: number;

  /** The JSON state document of older releases; '' once the state rows hold it (docs/state.md). */
  @Column({ type: 'text' })
  state: string;

  /** 1, +1 per rewind (DESIGN §10): a state is named by (timeline, version). */
  @Column({ type: 'integer', default: 1 })
  timeline: number;

  /** Messages recorded (the next message index): kept here, not in the state rows. */
  @Column({ name: 'message_count', type: 'integer', default: 0 })
  messageCount: number;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
