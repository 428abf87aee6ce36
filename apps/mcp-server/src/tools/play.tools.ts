import { WriteOptions } from '@app/client';
import { input, output } from '../mcp.schemas';
import { Shape, ToolSpec, ToolTable, spec, writeOf } from '../tool-spec';

/** A story command (POST /campaigns/:id/<path>): every one answers with the new version. */
function command<I extends Shape>(path: string, title: string, description: string, shape: I): ToolSpec<Shape> {
  return spec({
    title,
    description,
    input: shape,
    output: output.versioned,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a as WriteOptions & { campaignId: string });
      return c.command(campaignId, path, body, w);
    },
  });
}

export const PLAY_TOOLS: ToolTable = {
  record_messages: spec({
    title: 'Record messages',
    description:
      'Record 1–500 messages, all or nothing. A whisper: visibility "private" with the hearers in `audience`; ' +
      'a dm note: visibility "dm". Tool-using agents: toolCalls on the assistant message, toolCallId on results.',
    input: input.recordMessages,
    output: output.recorded,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, messages }] = writeOf(a);
      return c.recordMessages(campaignId, messages, w);
    },
  }),
  list_messages: spec({
    title: 'Messages',
    description: 'Recorded messages after an index, oldest first, with their visibility and audience.',
    input: input.listMessages,
    output: output.messages,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.listMessages(campaignId, q),
  }),
  change_location: command(
    'change-location',
    'Move the party',
    'Move the party, or only the named players (a split party); the last player leaving a location records its memory.',
    input.changeLocation,
  ),
  complete_objective: command(
    'complete-objective',
    'Complete an objective',
    'Complete a quest objective (records a world memory).',
    input.completeObjective,
  ),
  complete_quest: command(
    'complete-quest',
    'Complete a quest',
    'Complete a quest (records a world memory).',
    input.completeQuest,
  ),
  progress_act: command(
    'progress-act',
    'Progress the act',
    'Move the story to a new act (records a world memory).',
    input.progressAct,
  ),
  update_location_state: command(
    'update-location-state',
    'Update a location',
    'Change a location’s danger level and/or complete an encounter (CLEARED and encounters record world memories).',
    input.updateLocationState,
  ),
  end_round: command(
    'end-round',
    'End the round',
    'End the current round (Recent Messages keep the last rounds in full).',
    input.endRound,
  ),
  post_broadcast: spec({
    title: 'Post a broadcast',
    description: 'Announce something to other agents (belongs to no campaign).',
    input: input.postBroadcast,
    output: output.broadcast,
    kind: 'write',
    run: (c, a) => {
      const [w, body] = writeOf(a);
      return c.postBroadcast(body, w);
    },
  }),
};
