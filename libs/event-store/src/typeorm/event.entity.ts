import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('events')
@Index('ux_events_stream_version', ['streamId', 'version'], { unique: true })
@Index('ix_events_trigger', ['streamId', 'triggerVersion'], { where: 'trigger_version IS NOT NULL' })
export class EventRecord {
  @PrimaryGeneratedColumn({ name: 'position', type: 'integer' })
  position: number;

  @Column({ name: 'stream_id', type: 'varchar', length: 160 })
  streamId: string;

  @Column({ name: 'stream_version', type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ type: 'text' })
  data: string;

  @Column({ type: 'text' })
  metadata: string;

  @Column({ name: 'recorded_at', type: 'varchar', length: 32 })
  recordedAt: string;

  /** A memory event's trigger (the game version the worker was handling); null on the game stream (§10). */
  @Column({ name: 'trigger_version', type: 'integer', nullable: true })
  triggerVersion: number | null;
}
