import { conflict, invalid, notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export const RETRACT_MAX_INDEXES = 500;
export const RETRACT_REASON_MAX_CHARS = 500;

/**
 * Retracts messages (DESIGN §10, swipe/retcon): all or nothing. An index never recorded is 404, one retracted
 * already 409 (`retracted` is read by the runner in the write's transaction, so two racing retractions of one
 * message cannot both append). Indexes are stored ascending: the projections and the revision need no order.
 */
export function retractMessages(state: CampaignState, command: CommandOf<'RetractMessages'>): GameEvent[] {
  const indexes = [...new Set(command.indexes)].sort((a, b) => a - b);
  if (indexes.length === 0 || indexes.length > RETRACT_MAX_INDEXES || indexes.length !== command.indexes.length)
    throw invalid('VALIDATION_FAILED', `indexes: 1 to ${RETRACT_MAX_INDEXES} distinct message indexes`);
  const unknown = indexes.filter((i) => !Number.isInteger(i) || i < 0 || i >= state.messageCount);
  if (unknown.length)
    throw notFound('MESSAGE_NOT_FOUND', `no message at index ${unknown.join(', ')} (${state.messageCount} recorded)`);
  const again = indexes.filter((i) => command.retracted?.has(i));
  if (again.length) throw conflict('MESSAGE_RETRACTED', `message ${again.join(', ')} is retracted already`);
  const reason = command.reason?.trim() || null;
  if (reason !== null && reason.length > RETRACT_REASON_MAX_CHARS)
    throw invalid('VALIDATION_FAILED', `reason: at most ${RETRACT_REASON_MAX_CHARS} characters`);
  return [{ type: 'MessagesRetracted', data: { indexes, reason } }];
}
