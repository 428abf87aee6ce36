/**
 * `npm run demo`: plays a short scripted campaign against a running Lorekeeper
 * (LOREKEEPER_URL, default http://localhost:3000) and prints the narrative context, then the layered
 * contexts of §8 (dm, player, npc, agent) over the same four rounds.
 */
import { LorekeeperClient } from '@app/client';

const base = process.env.LOREKEEPER_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
const campaignId = `demo-${Date.now().toString(36)}`;
const client = new LorekeeperClient({ baseUrl: base, apiKey: process.env.LOREKEEPER_API_KEY });
const call = (method: string, path: string, body?: unknown) => client.request(method, path, body);

const c = (path: string) => `/v1/campaigns/${campaignId}${path}`;
const say = (messages: Record<string, unknown>[]) => call('POST', c('/messages'), { messages });

async function main(): Promise<void> {
  console.log(`Lorekeeper demo against ${base}, campaign ${campaignId}\n`);
  await call('POST', '/v1/campaigns', { id: campaignId, name: 'The Smugglers of Saltmere', perRoleMemory: true });
  await call('PUT', c('/locations/tavern'), { name: 'The Rusty Anchor', dangerLevel: 'SAFE' });
  await call('PUT', c('/locations/docks'), { name: 'Saltmere Docks', dangerLevel: 'MODERATE' });
  await call('PUT', c('/locations/lighthouse'), { name: 'Old Lighthouse', dangerLevel: 'HIGH' });
  await call('PUT', c('/npcs/mira'), { name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' });
  await call('PUT', c('/npcs/jonas'), { name: 'Jonas', aliases: ['the harbourmaster'], locationId: 'docks' });
  await call('PUT', c('/quests/relic'), {
    name: 'The Drowned Relic',
    objectives: [
      { id: 'find-map', name: 'Find the smugglers\u2019 map' },
      { id: 'reach-lighthouse', name: 'Reach the lighthouse' },
    ],
  });

  await call('PUT', c('/players/aria'), { name: 'Aria', stats: { HP: '14/16', Silver: 9 } });
  await call('PUT', c('/players/brannoc'), { name: 'Brannoc', stats: { HP: '22/25', Silver: 2 } });
  await call('PUT', c('/bible'), {
    text: 'Saltmere is a rain-soaked smugglers\u2019 port. Aria (scout) and Brannoc (retired soldier) hunt the Drowned Relic, stolen from the harbour chapel.',
    dmOnly: 'Jonas the harbourmaster is paid by the smugglers; he will warn them if the party sails before midnight.',
  });
  await call('PUT', c('/facts/quest/relic'), { value: 'Recover the Drowned Relic for the harbour chapel' });

  await call('POST', c('/commands/change-location'), { toLocationId: 'tavern' });
  await say([
    { role: 'dm', content: 'Rain lashes the windows of the Rusty Anchor as the party shakes off the storm.' },
    {
      role: 'player',
      speaker: 'Aria',
      content: 'I slide three silver coins to Mira and ask about the missing shipment.',
    },
    {
      role: 'npc',
      speaker: 'Mira',
      content:
        'Mira pockets the coins. "Smugglers moved forty crates to the old lighthouse. Jonas at the docks knows the tide tables."',
    },
    { role: 'player', speaker: 'Aria', content: 'I promise Mira we will keep her name out of it.' },
    {
      role: 'dm',
      content: 'Mira whispers that the crates bear the seal of the Tide Court.',
      visibility: 'private',
      audience: ['aria'],
    },
  ]);
  await call('POST', c('/commands/complete-objective'), { questId: 'relic', objectiveId: 'find-map' });
  await call('POST', c('/commands/end-round'));
  await call('POST', c('/commands/change-location'), { toLocationId: 'docks' });
  await say([
    {
      role: 'npc',
      speaker: 'Jonas',
      content: 'Jonas grumbles that the tide turns at midnight and demands 10 gold for a boat.',
    },
    { role: 'player', speaker: 'Brannoc', content: 'Brannoc pays Jonas the 10 gold and borrows his lantern.' },
    {
      role: 'dm',
      content: 'Jonas sends a boy running toward the lighthouse the moment the party leaves.',
      visibility: 'dm',
    },
  ]);
  await call('POST', c('/commands/end-round'));
  await call('POST', c('/commands/change-location'), { toLocationId: 'lighthouse' });
  await say([
    { role: 'dm', content: 'At the lighthouse the party defeats two smugglers and recovers the Drowned Relic.' },
  ]);
  await call('POST', c('/commands/update-location-state'), { locationId: 'lighthouse', dangerLevel: 'CLEARED' });
  await call('POST', c('/commands/complete-quest'), { questId: 'relic' });
  await call('POST', c('/commands/end-round'));
  await call('POST', c('/commands/change-location'), { toLocationId: 'tavern' });
  await say([
    {
      role: 'npc',
      speaker: 'Mira',
      content: 'Mira sets two mugs of hot cider on the bar and asks whether the chapel will pay the reward.',
    },
    {
      role: 'player',
      speaker: 'Brannoc',
      content: 'Brannoc laughs and says the relic goes back tonight, reward or not.',
    },
  ]);
  const moved = await call('POST', c('/commands/end-round'));

  const text = await client.contextText(campaignId, { minVersion: moved.version, waitMs: 15000 });
  console.log('Narrative context (GET /context?format=text):\n');
  console.log(text);
  const campaign = await client.getCampaign(campaignId);
  console.log(
    `version ${campaign.version}, processedVersion ${campaign.processedVersion}, cursors ${JSON.stringify(campaign.cursors)}`,
  );

  // §8: the same campaign through each agent's eyes (round 5; "Previously" covers round 1).
  const layered: [string, Record<string, string | number>][] = [
    [
      'dm (GET /context?agent=dm&query=…&budget=1500)',
      { agent: 'dm', query: 'who knows the tide tables?', budget: 1500 },
    ],
    ['player Aria (agent=player&viewer=aria)', { agent: 'player', viewer: 'aria', budget: 1000 }],
    ['player Brannoc (agent=player&viewer=brannoc)', { agent: 'player', viewer: 'brannoc', budget: 1000 }],
    ['NPC Mira (agent=npc&viewer=mira)', { agent: 'npc', viewer: 'mira' }],
    ['tool-using agent (agent=agent)', { agent: 'agent', budget: 800 }],
  ];
  for (const [title, query] of layered) {
    console.log(`\n${title}:\n`);
    console.log(await client.contextText(campaignId, query));
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  if (String(err).includes('fetch failed'))
    console.error(`Is the service running? Start it with: npm start (then run npm run demo in another terminal)`);
  process.exit(1);
});
