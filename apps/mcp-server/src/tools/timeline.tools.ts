import { input, output } from '../mcp.schemas';
import { ToolTable, spec, writeOf } from '../tool-spec';

/** Timelines (DESIGN §10): branch, undo, and the game master's word on memories. */
export const TIMELINE_TOOLS: ToolTable = {
  fork_campaign: spec({
    title: 'Fork a campaign',
    description:
      'A new campaign that is this one as of atVersion (default now): same messages, memories, world. No model ' +
      'call; later writes to either never touch the other.',
    input: input.forkCampaign,
    output: output.campaign,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.fork(campaignId, body, w);
    },
  }),
  rewind_campaign: spec({
    title: 'Rewind a campaign',
    description:
      'Go back to toVersion in place: later events, messages and the memories built from them are discarded ' +
      '(keepAs keeps the whole campaign as a fork first). The timeline number goes up by one.',
    input: input.rewindCampaign,
    output: output.rewound,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.rewind(campaignId, body, w);
    },
  }),
  retract_messages: spec({
    title: 'Retract messages',
    description:
      'Swipe or retcon: the messages (all or none) and every memory built from them leave every read at once; ' +
      'the worker then rewrites those memories from what survives. Record the replacement with record_messages.',
    input: input.retractMessages,
    output: output.timelined,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, indexes, reason }] = writeOf(a);
      return c.retractMessages(campaignId, indexes, reason === undefined ? {} : { reason }, w);
    },
  }),
  correct_memory: spec({
    title: 'Correct a memory',
    description: 'Rewrite a memory: it reads as written from now on (origin dm) and the worker never revises it.',
    input: input.correctMemory,
    output: output.correctedMemory,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, memoryId, summary }] = writeOf(a);
      return c.correctMemory(campaignId, memoryId, summary, w);
    },
  }),
  delete_memory: spec({
    title: 'Delete a memory',
    description: 'Delete a memory: it is never served again (its history keeps it).',
    input: input.deleteMemory,
    output: output.deletedMemory,
    kind: 'destructive',
    run: async (c, a) => {
      const [w, { campaignId, memoryId }] = writeOf(a);
      await c.deleteMemory(campaignId, memoryId, w);
      return { deleted: true, memoryId };
    },
  }),
  memory_history: spec({
    title: 'Memory history',
    description: 'Every wording of a memory, oldest first: recorded, revised, corrected, withdrawn, deleted.',
    input: input.memoryHistory,
    output: output.memoryHistory,
    kind: 'read',
    run: (c, { campaignId, memoryId, ...q }) => c.memoryHistory(campaignId, memoryId, q),
  }),
};
