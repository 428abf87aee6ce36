import { Entity, PrimaryColumn } from 'typeorm';

/**
 * Who witnessed each message (DESIGN §8), decided from the state when it was recorded; the dm agent sees all and is not
 * listed.
 */
@Entity('message_witnesses')
export class MessageWitnessRecord {
  @PrimaryColumn({ name: 'campaign_id', type: 'varchar', length: 128 })
  campaignId: string;

  /** `player:<id>` or `npc:<id>`. */
  @PrimaryColumn({ name: 'viewer_id', type: 'varchar', length: 140 })
  viewerId: string;

  @PrimaryColumn({ name: 'idx', type: 'integer' })
  index: number;
}
