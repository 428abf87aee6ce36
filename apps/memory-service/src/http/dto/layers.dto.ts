import { DomainError } from '@app/common';
import { z } from 'zod';

// Each bible part's 32,000-character limit is a domain rule (BIBLE_TOO_LARGE); the body limit bounds the rest.
export const bibleBody = z.strictObject({ text: z.string(), dmOnly: z.string().optional() });

export const glossaryTermBody = z.strictObject({ definition: z.string().trim().min(1).max(1000) });

const TERM = /^[^\p{Cc}]{1,100}$/u;

/** A glossary term from the path (URL-decoded): 1–100 characters, no control characters, trimmed. */
export function pathTerm(raw: unknown): string {
  const term = typeof raw === 'string' ? raw.normalize('NFC').trim().replace(/\s+/gu, ' ') : '';
  if (!TERM.test(term)) throw new DomainError('invalid', 'INVALID_TERM', 'a glossary term is 1–100 characters without control characters');
  return term;
}
