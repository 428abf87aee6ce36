import { DomainError } from '@app/common';
import { z } from 'zod';
import { hasControl } from '../validation';

// Each bible part's 32,000-character limit is a domain rule (BIBLE_TOO_LARGE); the body limit bounds the rest.
export const bibleBody = z.strictObject({ text: z.string(), dmOnly: z.string().optional() });

export const glossaryTermBody = z.strictObject({ definition: z.string().trim().min(1).max(1000) });

/** Characters that show nothing: whitespace, format characters (zero-width space, joiners, BOM, direction marks). */
const INVISIBLE = /[\s\p{Cf}]/gu;

/**
 * A glossary term from the path (URL-decoded): 1–100 characters, trimmed, inner whitespace collapsed. A control
 * character (a term is printed as a line of its own) or nothing visible is 400 INVALID_TERM.
 */
export function pathTerm(raw: unknown): string {
  const term = typeof raw === 'string' && !hasControl(raw) ? raw.normalize('NFC').trim().replace(/\s+/gu, ' ') : '';
  if (term.length < 1 || term.length > 100 || term.replace(INVISIBLE, '') === '') {
    throw new DomainError(
      'invalid',
      'INVALID_TERM',
      'a glossary term is 1–100 characters, a single line with at least one visible character',
    );
  }
  return term;
}
