import { CLOCKS, DANGER_LEVELS, MESSAGE_ROLES, VISIBILITIES } from '@app/campaign';
import { AGENTS, SECTION_ORDER } from '@app/context';
import { z } from 'zod';
import { count, dropped, int, nullableTime, time } from './responses.shared';

/**
 * The success bodies of the API, as zod schemas: the OpenAPI document is generated from them (so every 2xx
 * JSON body has a schema a client generator can use) and, when response checking is on (the e2e harness
 * turns it on), every answer is checked against its schema, so the document cannot drift from what the
 * service sends. Objects are not strict: a new field is not a break; a changed type or a missing field is.
 */
export * from './service.responses';
export * from './state.responses';

/** §8: `clock` says how contexts date what they print (story time, the client's `at`, or none). */
const campaignSettings = z.object({ perRoleMemory: z.boolean(), clock: z.enum(CLOCKS) });

export const versionOnly = z.object({ version: count.describe('the campaign version after this write') });

const location = z.object({
  id: z.string(),
  name: z.string(),
  dangerLevel: z.enum(DANGER_LEVELS).nullable(),
  completedEncounters: z.array(z.string()),
});
const npc = z.object({
  id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()),
  locationId: z.string().nullable(),
});
const quest = z.object({
  id: z.string(),
  name: z.string(),
  completed: z.boolean(),
  objectives: z.array(z.object({ id: z.string(), name: z.string(), completed: z.boolean() })),
});
const cursors = z.object({
  world: int.describe('last message index in a world memory; -1 = none yet'),
  locations: z.record(z.string(), int),
  npcs: z.record(z.string(), int),
});

const parentRef = z
  .object({ id: z.string(), version: count })
  .nullable()
  .describe('§10: the campaign this one was forked from and the version it was forked at; null for a root');

export const campaignResponse = z.object({
  id: z.string(),
  name: z.string(),
  version: count,
  processedVersion: count.describe('the game version the memory worker has processed through'),
  currentLocationId: z.string().nullable(),
  currentActId: z.string().nullable(),
  round: int.min(1),
  settings: campaignSettings,
  messageCount: count.describe('for a viewer-bound key, the messages its character witnessed'),
  locations: z.array(location),
  npcs: z.array(npc),
  quests: z.array(quest),
  cursors: cursors.optional().describe('absent for a viewer-bound key (they are campaign indexes)'),
  createdAt: time,
  timeline: int
    .min(1)
    .optional()
    .describe('1, +1 per rewind (DESIGN §10); with asOf, the timeline the version belongs to'),
  parent: parentRef.optional(),
  children: z
    .array(z.object({ id: z.string(), atVersion: count }))
    .optional()
    .describe('§10: the forks of this campaign and the version each was forked at'),
});

export const settingsResponse = z.object({ version: count, settings: campaignSettings });
export const locationResponse = z.object({ version: count, location });
export const npcResponse = z.object({ version: count, npc });
export const questResponse = z.object({ version: count, quest });

export const recordMessagesResponse = z.object({
  indexes: z.array(count).describe('campaign-wide indexes of the recorded messages'),
  version: count,
});
export const endRoundResponse = z.object({ version: count, round: int.min(1).describe('the round now current') });

const message = z.object({
  index: count.optional().describe('the campaign-wide index; absent for a viewer-bound key, which reads `seq`'),
  seq: count
    .optional()
    .describe('viewer-bound key only: 0-based position among the messages its character witnessed (DESIGN §8)'),
  role: z.enum(MESSAGE_ROLES),
  speaker: z.string().nullable(),
  content: z.string(),
  locationId: z.string().nullable(),
  npcIds: z.array(z.string()),
  at: time,
  round: int.min(1),
  visibility: z.enum(VISIBILITIES),
  audience: z.array(z.string()),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string() })),
  toolCallId: z.string().nullable(),
  reasoning: z.string().nullable(),
  storyTime: z.string().optional().describe('§8: the story time when it was recorded, when the campaign had one'),
  atFilled: z.boolean().optional().describe('§8: true when the server filled `at` (contexts never print it)'),
  retracted: z
    .object({ version: count, reason: z.string().nullable() })
    .nullable()
    .optional()
    .describe('§10, with includeRetracted=true only: the retraction (null = not retracted at the version read)'),
});
export const messagesResponse = z.object({ items: z.array(message) });

const memory = z.object({
  id: z.string(),
  scope: z.enum(['location', 'npc', 'world']),
  subjectId: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  locationId: z.string().nullable(),
  npcIds: z.array(z.string()),
  questId: z.string().nullable(),
  encounterId: z.string().nullable(),
  sinceMessageIndex: int,
  throughMessageIndex: int,
  sinceTimestamp: time,
  createdAt: time,
  triggerVersion: count,
  revision: int.min(1).optional().describe('§10: 1 as recorded, +1 per revision or correction'),
  origin: z.enum(['model', 'dm']).optional().describe('§10: written by the model, or corrected by the game master'),
});
export const memoriesResponse = z.object({ items: z.array(memory) });

export const eventsResponse = z.object({
  timeline: int.min(1).describe('1, +1 per rewind (DESIGN §10); with asOf, the timeline the version belongs to'),
  items: z.array(
    z.object({
      version: count,
      type: z.string(),
      data: z.record(z.string(), z.unknown()),
      metadata: z.record(z.string(), z.unknown()),
      recordedAt: time,
    }),
  ),
});

const sectionKey = z.enum(SECTION_ORDER);
const entry = z.object({
  ref: z.string(),
  text: z.string(),
  subjectId: z.string().optional(),
  createdAt: z.string().optional(),
  rank: int.optional(),
  group: z.string().optional(),
  seq: int.optional(),
  tokens: count.optional(),
  revision: int.min(1).optional().describe('a memory entry: 1 as recorded, +1 per revision or correction (DESIGN §10)'),
  origin: z.enum(['model', 'dm']).optional().describe('a memory entry: `dm` after a game master’s correction'),
});

export const contextResponse = z
  .object({
    version: count,
    timeline: int.min(1).optional().describe('1, +1 per rewind (DESIGN §10); absent in the DESIGN §2 form'),
    processedVersion: count,
    agent: z
      .enum(AGENTS)
      .optional()
      .describe('absent in the DESIGN §2 form (no agent, viewer, include, budget or query given)'),
    viewer: z.string().optional(),
    sections: z.array(
      z.object({ key: sectionKey.optional(), title: z.string(), tokens: count.optional(), entries: z.array(entry) }),
    ),
    tokens: z
      .object({
        budget: count.nullable(),
        used: count.describe('the sections and the text trailer (DESIGN §8)'),
        trailer: count.optional().describe('tokens of the text form’s last line, counted in `used`'),
      })
      .optional(),
    dropped: z.array(dropped).optional(),
    overBudget: z.boolean().optional(),
  })
  .catchall(z.unknown())
  .describe('Sections in canonical order; sections may add fields of their own (e.g. `digest`).');

export const bibleResponse = z.object({
  text: z.string(),
  dmOnly: z.string().optional().describe('the dm-only part; absent for a key bound to a character'),
});
export const putBibleResponse = z.object({ version: count, bible: bibleResponse });
const glossaryEntry = z.object({
  term: z.string(),
  definition: z.string(),
  coinedMessageIndex: int.nullable(),
  locked: z.boolean(),
  hidden: z.boolean(),
  createdAt: nullableTime,
});
export const glossaryResponse = z.object({ items: z.array(glossaryEntry) });
export const setTermResponse = z.object({
  version: count,
  term: z.string(),
  definition: z.string(),
  locked: z.literal(true),
});
export const hideTermResponse = z.object({ version: count, term: z.string(), hidden: z.literal(true) });

export const campaignsResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      version: count,
      processedVersion: count,
      parent: parentRef,
      createdAt: time,
    }),
  ),
});
// DESIGN §10 fork and rewind (lane 4).
export const forkResponse = campaignResponse.extend({
  parent: z.object({ id: z.string(), version: count.describe('the parent version the fork was cut at') }),
});
export const rewindResponse = z.object({
  version: count.describe('the campaign version after the rewind (its CampaignRewound event)'),
  timeline: int.min(1).describe('the campaign timeline: 1, +1 per rewind'),
  discarded: z.object({ game: count, memory: count }).describe('events removed from each stream'),
  keptAs: z.string().nullable().describe('the fork holding the pre-rewind campaign (keepAs)'),
});

// Timelines (DESIGN §10): retraction, corrections and a memory's history.
const timeline = int.min(1).describe('the campaign timeline (1, +1 per rewind)');
export const retractResponse = z.object({
  version: count.describe('the campaign version after this write'),
  timeline,
});
export const correctedMemoryResponse = memory.extend({
  origin: z.literal('dm'),
  locked: z.literal(true),
  version: count.describe('the campaign version after this write'),
  timeline,
});
export const memoryHistoryResponse = z.object({
  items: z.array(
    z.object({
      revision: int.min(1),
      summary: z.string(),
      origin: z.enum(['model', 'dm']),
      reason: z.enum(['recorded', 'revised', 'corrected', 'withdrawn', 'deleted']),
      version: count.describe('the game version from which this wording (or status) holds'),
      at: time,
      inputIndexes: z
        .array(count)
        .optional()
        .describe('the messages this wording was built from; left out for a viewer-bound key, empty when withdrawn'),
    }),
  ),
});

export const callerResponse = z.object({
  viewer: z
    .object({ kind: z.enum(['player', 'npc']), id: z.string() })
    .nullable()
    .describe('the character a viewer-bound key reads as; null for a full key (and without LOREKEEPER_API_KEYS)'),
  scope: z.string().describe("the key's campaign globs, sorted and comma-joined (`*` = every campaign)"),
});
