import { DROP_REASONS } from '@app/context';
import { z } from 'zod';

/** The building blocks of the response schemas (responses.ts and the files it re-exports). */
export const int = z.number().int();
export const count = int.min(0);
export const time = z.string().describe('ISO 8601 date-time');
export const nullableTime = time.nullable();
/** A context entry left out, and why (the context's and the digests' `dropped`). */
export const dropped = z.object({
  section: z.string(),
  ref: z.string(),
  tokens: count,
  reason: z.enum(DROP_REASONS),
});
