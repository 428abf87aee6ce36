import { Column, Entity, PrimaryColumn } from 'typeorm';

/** First response to each Idempotency-Key, written in the transaction of the append it made. */
@Entity('idempotency_keys')
export class IdempotencyRecord {
  @PrimaryColumn({ type: 'varchar', length: 160 })
  scope: string;

  @PrimaryColumn({ type: 'varchar', length: 200 })
  key: string;

  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ type: 'integer' })
  status: number;

  @Column({ type: 'text' })
  body: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
