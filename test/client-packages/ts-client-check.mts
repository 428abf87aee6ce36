/**
 * A project that installed the @lorekeeper/client tarball (no repository around it): compiled with `tsc --strict`
 * against the package's own .d.ts files, then run against the service: `node ts-client-check.mjs <baseUrl>`.
 * It prints one JSON line that test/e2e/shipping/client-packages.e2e-spec.ts checks.
 */
import { LorekeeperClient, LorekeeperError, type StreamEvent } from '@lorekeeper/client';

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error('usage: node ts-client-check.mjs <baseUrl>');
const lk = new LorekeeperClient({ baseUrl });
const cid = 'ts-package';

async function main(): Promise<void> {
  await lk.createCampaign({ id: cid, name: 'The Smugglers of Saltmere' });
  await lk.putLocation(cid, 'tavern', { name: 'The Rusty Anchor' });
  await lk.putLocation(cid, 'docks', { name: 'Saltmere Docks' });
  await lk.changeLocation(cid, 'tavern');
  const recorded = await lk.recordMessages(cid, [
    { role: 'npc', speaker: 'Mira', content: 'Smugglers moved forty crates to the old lighthouse.' },
  ]);
  const moved = await lk.changeLocation(cid, 'docks', { ifMatch: recorded.version });
  const text = await lk.contextText(cid, { agent: 'dm', minVersion: moved.version, waitMs: 10_000 });

  const events: StreamEvent[] = [];
  for await (const event of lk.stream(cid)) {
    events.push(event);
    if (event.event === 'MessageRecorded') break;
  }
  let missing = '';
  try {
    await lk.getCampaign('no-such-campaign');
  } catch (err) {
    if (err instanceof LorekeeperError) missing = `${err.status} ${err.code}`;
  }
  const listed = (await lk.listCampaigns()).items.map((c) => c.id);
  console.log(JSON.stringify({ text, events: events.map((e) => e.event), missing, listed }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
