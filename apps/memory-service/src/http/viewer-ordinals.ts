import { CampaignReader, MessageHorizon } from '@app/campaign';

/**
 * DESIGN §8 "A bound key learns nothing about what it did not witness": the positions a viewer-bound key reads
 * instead of campaign indexes. `seq` is 0-based over the messages its character witnessed (visible at the read's
 * horizon), so neither a gap nor a count tells it how many lines were hidden, or when.
 */
export class ViewerOrdinals {
  private constructor(private readonly order: readonly number[]) {}

  static async of(campaigns: CampaignReader, cid: string, witness: string, at: MessageHorizon) {
    return new ViewerOrdinals(await campaigns.witnessedOrder(cid, witness, at));
  }

  /** How many messages the viewer witnessed: its `messageCount`. */
  get count(): number {
    return this.order.length;
  }

  /** The first seq whose campaign index is ≥ `index` (`count` when none is). */
  seqAtOrAfter(index: number): number {
    let [lo, hi] = [0, this.order.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid] < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The seq of a witnessed message; undefined for one the viewer did not witness. */
  seqOf(index: number): number | undefined {
    const seq = this.seqAtOrAfter(index);
    return this.order[seq] === index ? seq : undefined;
  }

  /** The last seq whose campaign index is ≤ `index` (-1 when none is). */
  seqAtOrBefore(index: number): number {
    const seq = this.seqAtOrAfter(index);
    return this.order[seq] === index ? seq : seq - 1;
  }

  /** A cursor given as a seq (`after=<seq>`) as the campaign index to read after. */
  indexAfterSeq(seq: number): number {
    if (seq < 0 || this.order.length === 0) return -1;
    return this.order[Math.min(seq, this.order.length - 1)];
  }
}

/** Sections whose entries are messages, `ref` = the campaign index (DESIGN §8 budget transparency). */
const MESSAGE_SECTIONS = new Set(['recent', 'recall']);
const INDEX_REF = /^\d+$/;

interface RefEntry {
  ref: string;
  seq?: number;
}

/** A JSON context for a bound key: message refs (entries and dropped ones) as seqs, never campaign indexes. */
export function contextInSeq(json: Record<string, unknown>, ordinals: ViewerOrdinals): Record<string, unknown> {
  // A message recorded while the context was composed is past the ordinals' horizon: it is the next seq.
  const seq = (ref: string) => String(ordinals.seqOf(Number(ref)) ?? ordinals.seqAtOrAfter(Number(ref)));
  const inSeq = <E extends RefEntry>(section: string | undefined, e: E): E => {
    if (!MESSAGE_SECTIONS.has(section ?? '') || !INDEX_REF.test(e.ref)) return e;
    const ref = seq(e.ref);
    return { ...e, ref, ...(e.seq === undefined ? {} : { seq: Number(ref) }) };
  };
  const sections = json.sections as { key?: string; entries: RefEntry[] }[];
  const dropped = (json.dropped ?? []) as (RefEntry & { section: string })[];
  return {
    ...json,
    sections: sections.map((s) => ({ ...s, entries: s.entries.map((e) => inSeq(s.key, e)) })),
    dropped: dropped.map((d) => inSeq(d.section, d)),
  };
}

/** A memory for a bound key: the message range it summarizes, in seqs. */
export function memoryInSeq<T extends { sinceMessageIndex: number; throughMessageIndex: number }>(
  memory: T,
  ordinals: ViewerOrdinals,
): T {
  return {
    ...memory,
    sinceMessageIndex: memory.sinceMessageIndex < 0 ? -1 : ordinals.seqAtOrAfter(memory.sinceMessageIndex),
    throughMessageIndex: ordinals.seqAtOrBefore(memory.throughMessageIndex),
  };
}
