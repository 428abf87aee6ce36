import { MockAnthropic, transcriptOf } from './mock-anthropic';

/** What one request to the mock asked for: which scope, about what, and which message indexes it carried. */
export interface ScopeRequest {
  scope: 'location' | 'npc' | 'world' | 'other';
  /** Location name, NPC name, or the world kind. */
  subject: string;
  indexes: number[];
}

/** Decodes a Messages API request body made by the summarizer prompts (the `<subject>` block names the scope). */
export function scopeOf(body: any): ScopeRequest {
  const user = String(body?.messages?.[body.messages.length - 1]?.content ?? '');
  const match = /<subject>\n([\s\S]*?)\n<\/subject>/.exec(user);
  const subject = match ? JSON.parse(match[1]) : {};
  const indexes = transcriptOf(body).map((line) => line.i);
  if ('npc' in subject) return { scope: 'npc', subject: subject.npc, indexes };
  if ('location' in subject) return { scope: 'location', subject: subject.location, indexes };
  if ('kind' in subject) return { scope: 'world', subject: subject.kind, indexes };
  return { scope: 'other', subject: '', indexes };
}

/** Every request the mock received so far, decoded. */
export const scopeRequests = (mock: MockAnthropic): ScopeRequest[] => mock.requests.map((r) => scopeOf(r.body));

/** Polls until `ready()` holds; throws after `ms` (for waiting on background work, never for timing assertions). */
export async function eventually(ready: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
