import { Fact, factClass, factId } from '@app/campaign';
import { createHash } from 'node:crypto';

export const FACT_STATUSES = ['active', 'resolved', 'expired', 'all'] as const;
export type FactStatusFilter = (typeof FACT_STATUSES)[number];

/** A fact's status at a moment: expiry is judged at read time, so no event is needed for it. */
export function statusAt(fact: Fact, now: Date): 'active' | 'resolved' | 'expired' {
  if (fact.status === 'resolved') return 'resolved';
  return fact.expiresAt !== null && Date.parse(fact.expiresAt) <= now.getTime() ? 'expired' : 'active';
}

/** `<Type>: <value>` with whitespace collapsed: the only thing a fact contributes to the digest. */
export function digestLine(fact: Pick<Fact, 'type' | 'value'>): string {
  const type = fact.type.charAt(0).toUpperCase() + fact.type.slice(1);
  return `${type}: ${fact.value}`.replace(/\s+/g, ' ').trim();
}

export interface DigestLine {
  ref: string;
  text: string;
}

export interface DroppedFact {
  ref: string;
  tokens: number;
}

export interface Digest {
  /** SHA-256 hex of `text` exactly as served. */
  version: string;
  text: string;
  tokens: number;
  lines: DigestLine[];
  dropped: DroppedFact[];
}

const CLASS_RANK = { ephemeral: 0, other: 1, durable: 2 } as const;

/**
 * The deterministic world-fact digest (DESIGN §6): active unexpired facts as sorted lines; over
 * `maxTokens`, ephemeral lines go first, then other types, then durable, each lowest priority
 * first and then oldest first.
 */
export function buildDigest(facts: Fact[], now: Date, maxTokens: number, count: (text: string) => number): Digest {
  const live = facts
    .filter((f) => statusAt(f, now) === 'active')
    .map((f) => ({ fact: f, ref: factId(f.type, f.key), text: digestLine(f) }))
    .sort((a, b) => cmp(a.text, b.text) || cmp(a.ref, b.ref));
  const dropOrder = [...live].sort(
    (a, b) =>
      CLASS_RANK[factClass(a.fact.type)] - CLASS_RANK[factClass(b.fact.type)] ||
      a.fact.priority - b.fact.priority ||
      a.fact.assertedVersion - b.fact.assertedVersion ||
      cmp(a.ref, b.ref),
  );
  const kept = new Set(live);
  const dropped: DroppedFact[] = [];
  const textOf = () =>
    live
      .filter((l) => kept.has(l))
      .map((l) => l.text)
      .join('\n');
  let text = textOf();
  for (const victim of dropOrder) {
    if (count(text) <= maxTokens) break;
    kept.delete(victim);
    dropped.push({ ref: victim.ref, tokens: count(victim.text) });
    text = textOf();
  }
  const lines = live.filter((l) => kept.has(l)).map((l) => ({ ref: l.ref, text: l.text }));
  return { version: createHash('sha256').update(text).digest('hex'), text, tokens: count(text), lines, dropped };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
