import type { Message } from '@app/campaign';
import { extractCoinedTerms } from '../glossary/coined-terms';
import { capDefinition, MAX_TERM_CHARS } from '../glossary/known-terms';
import type { MemoryEvent } from '../memory-events';
import type { Fires, ScopeTask, Trigger, TriggerRun } from './trigger';
import { toTranscript } from './trigger';

/** Roles whose words may coin glossary terms (DESIGN §8). */
export const COINING_ROLES: readonly string[] = ['dm', 'narrator', 'npc'];

/** The new terms a message coins: not a known name, not a run of title-case prose. */
export function newTerms(message: Message, known: { has(term: string): boolean }): string[] {
  return extractCoinedTerms(message.content, (term) => known.has(term)).filter((t) => t.length <= MAX_TERM_CHARS);
}

/**
 * §8 glossary: each new term of a dm/narrator/npc message gets a short definition from that message; a failed one is
 * offered again when next used. A message that coins nothing records nothing.
 */
export const glossary: Trigger<Fires<'MessageRecorded'>> = {
  name: 'glossary',
  plan: ({ data }) =>
    COINING_ROLES.includes(data.role)
      ? [
          {
            scope: 'glossary',
            subjectId: String(data.index),
            locationId: null,
            questId: null,
            encounterId: null,
            tags: [],
          },
        ]
      : [],
  run: async (_task: ScopeTask, run: TriggerRun) => {
    const message = run.event.data as Message;
    const known = await run.reads.knownTerms();
    const out: MemoryEvent[] = [];
    const { maxNewTermsPerRequest, maxGlossaryTerms } = run.options;
    for (const term of newTerms(message, known)) {
      // §13: one request coins at most MAX_NEW_TERMS_PER_REQUEST, a campaign holds at most MAX_GLOSSARY_TERMS; a term
      // left out is still unknown, so a later request that uses it may coin it.
      if (run.requestTerms.coined >= maxNewTermsPerRequest || known.coined >= maxGlossaryTerms) break;
      const about = { scope: 'glossary' as const, subjectId: term };
      const input = { campaignId: run.campaignId, term, messages: [toTranscript(message)] };
      const outcome = await run.attempt(about, (summarizer, signal) => summarizer.defineTerm(input, signal));
      if (!outcome.ok) {
        out.push(run.skipped(about, outcome, message.index, message.index));
        continue;
      }
      known.add(term);
      run.requestTerms.coined++;
      out.push({
        type: 'GlossaryTermAdded',
        data: {
          term,
          definition: capDefinition(outcome.text),
          coinedMessageIndex: message.index,
          triggerVersion: run.event.version,
          createdAt: run.event.recordedAt,
          attempts: outcome.attempts,
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
        },
      });
    }
    return out;
  },
};
