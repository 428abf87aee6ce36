import { invalid, notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export const MEMORY_SUMMARY_MAX_CHARS = 2_000;

/** What a memory's status read by memory's preparer allows: none (unknown id) or `deleted` is 404. */
export function requireMemory(command: { memoryId: string; memoryStatus?: string | null }): void {
  // `undefined`: no preparer looked (memory is not wired in) — never append for a memory nobody checked.
  if (command.memoryStatus === undefined || command.memoryStatus === null || command.memoryStatus === 'deleted')
    throw notFound('MEMORY_NOT_FOUND', `memory ${command.memoryId} not found`);
}

/**
 * The game master rewrites a memory (DESIGN §10): from then on it reads as written, `origin: dm`, locked against
 * revision. A withheld or withdrawn memory may be corrected (that brings it back as written); a deleted one not.
 */
export function correctMemory(_state: CampaignState, command: CommandOf<'CorrectMemory'>): GameEvent[] {
  requireMemory(command);
  const summary = command.summary.trim();
  if (summary.length === 0 || summary.length > MEMORY_SUMMARY_MAX_CHARS)
    throw invalid('VALIDATION_FAILED', `summary: 1 to ${MEMORY_SUMMARY_MAX_CHARS} characters, not only spaces`);
  return [{ type: 'MemoryCorrected', data: { memoryId: command.memoryId, summary } }];
}
