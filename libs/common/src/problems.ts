import { conflict, invalid, notFound } from './errors';

/**
 * The problem codes DESIGN §10 (timelines) names, in one place so every lane raises the same code for the same
 * fault; `CAMPAIGN_NOT_FOUND` and `VALIDATION_FAILED` predate §10 and keep their own call sites.
 */
export const TIMELINE_PROBLEM_CODES = {
  /** `asOf`, `atVersion` or `toVersion` outside 1..version (400). */
  INVALID_VERSION: 'INVALID_VERSION',
  /** A fork's `id` or a rewind's `keepAs` names a campaign that exists (409). */
  CAMPAIGN_EXISTS: 'CAMPAIGN_EXISTS',
  /** A retraction names an index no message has (404). */
  MESSAGE_NOT_FOUND: 'MESSAGE_NOT_FOUND',
  /** A retraction names a message retracted before (409). */
  MESSAGE_RETRACTED: 'MESSAGE_RETRACTED',
  /** A correction or deletion names an unknown or deleted memory (404). */
  MEMORY_NOT_FOUND: 'MEMORY_NOT_FOUND',
} as const;

export type TimelineProblemCode = keyof typeof TIMELINE_PROBLEM_CODES;

export const invalidVersion = (what: string, version: number, head: number) =>
  invalid('INVALID_VERSION', `${what}: version ${version} is outside 1..${head}`);
export const campaignExists = (id: string) => conflict('CAMPAIGN_EXISTS', `campaign ${id} already exists`);
export const messageNotFound = (index: number) => notFound('MESSAGE_NOT_FOUND', `message ${index} not found`);
export const messageRetracted = (index: number) =>
  conflict('MESSAGE_RETRACTED', `message ${index} is already retracted`);
export const memoryNotFound = (memoryId: string) => notFound('MEMORY_NOT_FOUND', `memory ${memoryId} not found`);
