import { invalid, memoryNotFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export const MEMORY_SUMMARY_MAX_CHARS = 2_000;

/**
 * `exists` is memory's preparer's answer (an unknown or deleted memory is not); unset means no preparer looked
 * (memory is not wired in), and nothing is appended for a memory nobody checked.
 */
export function requireMemory(command: { memoryId: string; exists?: boolean }): void {
  if (!command.exists) throw memoryNotFound(command.memoryId);
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
