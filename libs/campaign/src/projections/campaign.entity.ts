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

  @Column({ type: 'text' })
  state: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
