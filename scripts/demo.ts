/**
 * `npm run demo`: plays a short scripted campaign against a running Lorekeeper
 * (LOREKEEPER_URL, default http://localhost:3000) and prints the narrative context.
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
  await call('POST', '/v1/campaigns', { id: campaignId, name: 'The Smugglers of Saltmere' });
  await call('PUT', c('/locations/tavern'), { name: 'The Rusty Anchor', dangerLevel: 'SAFE' });
  await call('PUT', c('/locations/docks'), { name: 'Saltmere Docks', dangerLevel: 'MODERATE' });
  await call('PUT', c('/locations/lighthouse'), { name: 'Old Lighthouse', dangerLevel: 'HIGH' });
  await call('PUT', c('/npcs/mira'), { name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' });
  await call('PUT', c('/npcs/jonas'), { name: 'Jonas', aliases: ['the harbourmaster'], locationId: 'docks' });
  await call('PUT', c('/quests/relic'), { name: 'The Drowned Relic', objectives: [{ id: 'find-map', name: 'Find the smugglers\u2019 map' }, { id: 'reach-lighthouse', name: 'Reach the lighthouse' }] });

  await call('POST', c('/commands/change-location'), { toLocationId: 'tavern' });
  await say([
    { role: 'dm', content: 'Rain lashes the windows of the Rusty Anchor as the party shakes off the storm.' },
    { role: 'player', speaker: 'Aria', content: 'I slide three silver coins to Mira and ask about the missing shipment.' },
    { role: 'npc', speaker: 'Mira', content: 'Mira pockets the coins. "Smugglers moved forty crates to the old lighthouse. Jonas at the docks knows the tide tables."' },
    { role: 'player', speaker: 'Aria', content: 'I promise Mira we will keep her name out of it.' },
  ]);
  await call('POST', c('/commands/complete-objective'), { questId: 'relic', objectiveId: 'find-map' });
  await call('POST', c('/commands/change-location'), { toLocationId: 'docks' });
  await say([
    { role: 'npc', speaker: 'Jonas', content: 'Jonas grumbles that the tide turns at midnight and demands 10 gold for a boat.' },
    { role: 'player', speaker: 'Brannoc', content: 'Brannoc pays Jonas the 10 gold and borrows his lantern.' },
  ]);
  await call('POST', c('/commands/change-location'), { toLocationId: 'lighthouse' });
  await say([{ role: 'dm', content: 'At the lighthouse the party defeats two smugglers and recovers the Drowned Relic.' }]);
  await call('POST', c('/commands/update-location-state'), { locationId: 'lighthouse', dangerLevel: 'CLEARED' });
  await call('POST', c('/commands/complete-quest'), { questId: 'relic' });
  const moved = await call('POST', c('/commands/change-location'), { toLocationId: 'tavern' });

  const text = await client.contextText(campaignId, { minVersion: moved.version, waitMs: 15000 });
  console.log('Narrative context (GET /context?format=text):\n');
  console.log(text);
  const campaign = await client.getCampaign(campaignId);
  console.log(`version ${campaign.version}, processedVersion ${campaign.processedVersion}, cursors ${JSON.stringify(campaign.cursors)}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  if (String(err).includes('fetch failed')) console.error(`Is the service running? Start it with: npm start (then run npm run demo in another terminal)`);
  process.exit(1);
});
