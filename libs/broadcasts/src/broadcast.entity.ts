import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Broadcasts projection (DESIGN §7): agent-to-agent announcements that belong to no campaign. */
@Entity('broadcasts')
@Index('ux_broadcasts_seq', ['seq'], { unique: true })
export class BroadcastRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id: string;

  /** Global event position of its BroadcastPosted: "newest first" is `seq DESC`. */
  @Column({ type: 'integer' })
  seq: number;

  @Column({ name: 'sender', type: 'varchar', length: 128 })
  from: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'varchar', length: 40 })
  at: string;

  /** The posting key's campaign scope (its globs, sorted; `*` = every campaign): only keys with this scope see it. */
  @Column({ name: 'key_scope', type: 'text', default: '*' })
  keyScope: string;

  /** `public` or `gm` (DESIGN §8): a viewer-bound key never reads a `gm` broadcast. */
  @Column({ type: 'varchar', length: 8, default: 'public' })
  visibility: BroadcastVisibility;
}

export type BroadcastVisibility = 'public' | 'gm';
