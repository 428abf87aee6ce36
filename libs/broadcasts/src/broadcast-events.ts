import { StoredEvent } from '@app/event-store';
import { BroadcastDoc } from '@app/search';

export interface BroadcastPostedData {
  id: string;
  from: string;
  content: string;
  at: string;
  /** The posting key's campaign scope; absent on broadcasts posted before scoping (= `*`). */
  keyScope?: string;
  /** `gm`: for full keys only, never a viewer-bound one (DESIGN §8); absent = public. */
  visibility?: 'gm';
}

/** One stream per broadcast, so posting never races another writer. */
export const broadcastStream = (id: string) => `broadcast-${id}`;
export const BROADCAST_STREAM_PREFIX = 'broadcast-';
export const BROADCAST_POSTED = 'BroadcastPosted';

export const broadcastDoc = (e: StoredEvent): BroadcastDoc => {
  const d = e.data as BroadcastPostedData;
  return { id: d.id, seq: e.position, from: d.from, content: d.content, at: d.at };
};
