import { input, output } from '../mcp.schemas';
import { ToolTable, spec, writeOf } from '../tool-spec';

export const SETUP_TOOLS: ToolTable = {
  create_campaign: spec({
    title: 'Create a campaign',
    description: 'Create a campaign. The party starts nowhere: the first change_location places it.',
    input: input.createCampaign,
    output: output.campaign,
    kind: 'write',
    run: (c, a) => {
      const [w, body] = writeOf(a);
      return c.createCampaign(body, w);
    },
  }),
  list_campaigns: spec({
    title: 'List campaigns',
    description:
      'The campaigns this key may see, by id (name, version, the campaign a fork came from). Page with after = ' +
      'the last id of the previous page.',
    input: input.listCampaigns,
    output: output.campaigns,
    kind: 'read',
    run: (c, a) => c.listCampaigns(a),
  }),
  delete_campaign: spec({
    title: 'Delete a campaign',
    description:
      'Delete a campaign and everything of it: messages, memories, world, game state. Its forks stay. ' +
      'Cannot be undone; a second delete is CAMPAIGN_NOT_FOUND.',
    input: input.deleteCampaign,
    output: output.deletedCampaign,
    kind: 'destructive',
    run: async (c, a) => {
      const [w, { campaignId }] = writeOf(a);
      await c.deleteCampaign(campaignId, w);
      return { deleted: true, campaignId };
    },
  }),
  get_campaign: spec({
    title: 'Campaign state',
    description: 'Campaign state: version, current location and act, locations, NPCs, quests, memory cursors.',
    input: input.campaign,
    output: output.campaign,
    kind: 'read',
    run: (c, a) => c.getCampaign(a.campaignId),
  }),
  change_settings: spec({
    title: 'Change campaign settings',
    description: 'Turn per-player rolling summaries (perRoleMemory) on or off, or set how contexts date lines (clock).',
    input: input.settings,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.changeSettings(campaignId, body, w);
    },
  }),
  put_location: spec({
    title: 'Register or update a location',
    description: 'Register or update a location (name, danger level).',
    input: input.location,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, locationId, ...body }] = writeOf(a);
      return c.putLocation(campaignId, locationId, body, w);
    },
  }),
  put_npc: spec({
    title: 'Register or update an NPC',
    description: 'Register or update an NPC (name, aliases, where it is; moving it is an update).',
    input: input.npc,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, npcId, ...body }] = writeOf(a);
      return c.putNpc(campaignId, npcId, body, w);
    },
  }),
  put_player: spec({
    title: 'Register or update a player character',
    description: 'Register or update a player character (name, aliases, HUD stats). Players travel with the party.',
    input: input.player,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, playerId, ...body }] = writeOf(a);
      return c.putPlayer(campaignId, playerId, body, w);
    },
  }),
  list_players: spec({
    title: 'Player characters',
    description: 'The campaign’s player characters with their HUD lines.',
    input: input.campaign,
    output: output.players,
    kind: 'read',
    run: (c, a) => c.players(a.campaignId),
  }),
  put_quest: spec({
    title: 'Register or update a quest',
    description: 'Register or update a quest and its objectives.',
    input: input.quest,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, questId, ...body }] = writeOf(a);
      return c.putQuest(campaignId, questId, body, w);
    },
  }),
  put_bible: spec({
    title: 'Set the campaign bible',
    description: 'Set the campaign bible: `text` every agent sees, `dmOnly` only the dm. Never trimmed.',
    input: input.bible,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, ...body }] = writeOf(a);
      return c.putBible(campaignId, body, w);
    },
  }),
  get_bible: spec({
    title: 'Campaign bible',
    description: 'The campaign bible (a viewer-bound key sees its public part only).',
    input: input.campaign,
    output: output.bible,
    kind: 'read',
    run: (c, a) => c.getBible(a.campaignId),
  }),
};
