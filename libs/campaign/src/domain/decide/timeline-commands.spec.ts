import { DomainError } from '@app/common';
import { CampaignCommand } from '../commands';
import { decide } from '../decide';
import { GameEvent } from '../events';
import { fold } from '../evolve';
import { CampaignState, emptyState } from '../state';

/** A campaign with three recorded messages (indexes 0..2), built by evolve as production builds it. */
function threeMessages(): CampaignState {
  const message = (index: number): GameEvent => ({
    type: 'MessageRecorded',
    data: {
      index,
      role: 'player',
      speaker: null,
      content: `line ${index}`,
      locationId: null,
      npcIds: [],
      at: '2026-03-01T10:00:00.000Z',
      round: 1,
      visibility: 'public',
      audience: [],
      toolCalls: [],
      toolCallId: null,
      reasoning: null,
    },
  });
  const events: GameEvent[] = [
    { type: 'CampaignCreated', data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } } },
    message(0),
    message(1),
    message(2),
  ];
  return fold(
    emptyState('c1'),
    events.map((event, i) => ({ event, version: i + 1, recordedAt: '2026-03-01T10:00:00.000Z' })),
  );
}

function rejection(state: CampaignState, command: CampaignCommand): { kind: string; code: string; message: string } {
  try {
    decide(state, command);
  } catch (err) {
    if (err instanceof DomainError) return { kind: err.kind, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('decide RetractMessages (DESIGN §10)', () => {
  const state = threeMessages();
  const retract = (indexes: number[], extra: Partial<CommandOfRetract> = {}): CampaignCommand => ({
    type: 'RetractMessages',
    indexes,
    retracted: new Set(),
    ...extra,
  });
  type CommandOfRetract = Extract<CampaignCommand, { type: 'RetractMessages' }>;

  it('retracts in ascending order with the trimmed reason, or none', () => {
    expect(decide(state, retract([2, 0], { reason: '  swiped  ' }))).toEqual([
      { type: 'MessagesRetracted', data: { indexes: [0, 2], reason: 'swiped' } },
    ]);
    expect(decide(state, retract([1], { reason: '   ' }))).toEqual([
      { type: 'MessagesRetracted', data: { indexes: [1], reason: null } },
    ]);
  });

  it('is all or nothing: an index never recorded is 404 MESSAGE_NOT_FOUND, naming every one', () => {
    expect(rejection(state, retract([1, 3, 7]))).toMatchObject({
      kind: 'not_found',
      code: 'MESSAGE_NOT_FOUND',
      message: expect.stringContaining('3, 7'),
    });
  });

  it('refuses a message retracted before with 409 MESSAGE_RETRACTED (unknown indexes answer first)', () => {
    expect(rejection(state, retract([0, 1], { retracted: new Set([1]) }))).toMatchObject({
      kind: 'conflict',
      code: 'MESSAGE_RETRACTED',
    });
    expect(rejection(state, retract([1, 5], { retracted: new Set([1]) })).code).toBe('MESSAGE_NOT_FOUND');
  });

  it('refuses repeated, empty or too many indexes and an oversized reason (the HTTP layer checks them first)', () => {
    expect(rejection(state, retract([1, 1])).code).toBe('VALIDATION_FAILED');
    expect(rejection(state, retract([])).code).toBe('VALIDATION_FAILED');
    expect(rejection(state, retract([0], { reason: 'x'.repeat(501) })).code).toBe('VALIDATION_FAILED');
  });

  it('is 404 CAMPAIGN_NOT_FOUND on a campaign that does not exist', () => {
    expect(rejection(emptyState('nope'), retract([0])).code).toBe('CAMPAIGN_NOT_FOUND');
  });
});

describe('decide CorrectMemory and DeleteMemory (DESIGN §10)', () => {
  const state = threeMessages();

  it('records the trimmed correction of a memory memory says exists', () => {
    expect(decide(state, { type: 'CorrectMemory', memoryId: 'm1', summary: '  Mira lied. ', exists: true })).toEqual([
      { type: 'MemoryCorrected', data: { memoryId: 'm1', summary: 'Mira lied.' } },
    ]);
    expect(decide(state, { type: 'DeleteMemory', memoryId: 'm1', exists: true })).toEqual([
      { type: 'MemoryDeleted', data: { memoryId: 'm1' } },
    ]);
  });

  it('is 404 MEMORY_NOT_FOUND for an unknown or deleted memory, and when nobody checked', () => {
    for (const exists of [false, undefined]) {
      expect(rejection(state, { type: 'CorrectMemory', memoryId: 'm1', summary: 'x', exists }).code).toBe(
        'MEMORY_NOT_FOUND',
      );
      expect(rejection(state, { type: 'DeleteMemory', memoryId: 'm1', exists }).code).toBe('MEMORY_NOT_FOUND');
    }
  });

  it('refuses an empty or oversized correction with VALIDATION_FAILED', () => {
    const correct = (summary: string) => ({ type: 'CorrectMemory', memoryId: 'm1', summary, exists: true }) as const;
    expect(rejection(state, correct(' \n ')).code).toBe('VALIDATION_FAILED');
    expect(rejection(state, correct('x'.repeat(2_001))).code).toBe('VALIDATION_FAILED');
    expect(decide(state, correct('x'.repeat(2_000)))).toHaveLength(1);
  });
});
