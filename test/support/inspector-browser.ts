import { LorekeeperClient } from '@app/client';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './service-process';
import { startTestApp } from './test-app';

/** Debian's chromium (apt-get install chromium; .ci/run installs it); no browser download. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/inspector');

if (!existsSync(CHROMIUM) && process.env.CI === 'true') {
  throw new Error(
    `chromium not found at ${CHROMIUM}: the inspector's browser test needs it in CI (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}
export const describeBrowser = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM))
  console.warn(`inspector browser test skipped: no chromium at ${CHROMIUM} (CI=true makes this a failure)`);

/** A short campaign with memories on both streams, enough messages for a small budget to drop some. */
export async function seedDemo(client: LorekeeperClient, id: string): Promise<void> {
  await client.createCampaign({ id, name: 'The Smugglers of Saltmere' });
  await client.putLocation(id, 'tavern', { name: 'The Rusty Anchor', dangerLevel: 'SAFE' });
  await client.putLocation(id, 'docks', { name: 'Saltmere Docks', dangerLevel: 'MODERATE' });
  await client.putNpc(id, 'mira', { name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' });
  await client.putQuest(id, 'relic', {
    name: 'The Drowned Relic',
    objectives: [{ id: 'find-map', name: 'Find the map' }],
  });
  await client.changeLocation(id, 'tavern');
  await client.recordMessages(id, [
    { role: 'dm', content: 'Rain lashes the windows of the Rusty Anchor as the party shakes off the storm.' },
    {
      role: 'player',
      speaker: 'Aria',
      content: 'I slide three silver coins to Mira and ask about the missing shipment.',
    },
    {
      role: 'npc',
      speaker: 'Mira',
      content: 'Mira pockets the coins. "Smugglers moved forty crates to the old lighthouse."',
    },
    { role: 'player', speaker: 'Aria', content: 'I promise Mira we will keep her name out of it.' },
  ]);
  await client.completeObjective(id, 'relic', 'find-map');
  await client.changeLocation(id, 'docks');
  await client.recordMessages(id, [
    {
      role: 'npc',
      speaker: 'Jonas',
      content: 'Jonas grumbles that the tide turns at midnight and demands 10 gold for a boat.',
    },
    { role: 'player', speaker: 'Brannoc', content: 'Brannoc pays Jonas the 10 gold and borrows his lantern.' },
    {
      role: 'narrator',
      content: 'Fog rolls in from the bay; the lighthouse beam sweeps the water twice and goes dark.',
    },
  ]);
  const { version } = await client.getCampaign(id);
  await client.context(id, { minVersion: version, waitMs: 10_000 });
}

/** A headless Chromium and a test service seeded with the demo campaign `saltmere`; `close` ends both. */
export async function startInspectorRig(): Promise<{
  browser: import('playwright-core').Browser;
  t: import('./test-app').TestApp;
  client: LorekeeperClient;
  close(): Promise<void>;
}> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const t = await startTestApp();
  const client = new LorekeeperClient({ baseUrl: t.url });
  await seedDemo(client, 'saltmere');
  return { browser, t, client, close: async () => void (await browser.close(), await t.close()) };
}
