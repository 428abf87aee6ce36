import { LorekeeperClient } from '@app/client';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from './support/service-process';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

/** Debian's chromium (apt-get install chromium; .ci/run installs it); no browser download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/inspector');
const KEY = 'inspector-browser-key-0123';

if (!existsSync(CHROMIUM) && process.env.CI === 'true') {
  throw new Error(
    `chromium not found at ${CHROMIUM}: the inspector's browser test needs it in CI (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}
const describeBrowser = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM))
  console.warn(`inspector browser test skipped: no chromium at ${CHROMIUM} (CI=true makes this a failure)`);

/** A short campaign with memories on both streams, enough messages for a small budget to drop some. */
async function seedDemo(client: LorekeeperClient, id: string): Promise<void> {
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

describeBrowser('the inspector in headless Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  let client: LorekeeperClient;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    t = await startTestApp();
    client = new LorekeeperClient({ baseUrl: t.url });
    await seedDemo(client, 'saltmere');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(async () => {
    await page
      ?.screenshot({
        path: join(ARTIFACTS, `${expect.getState().currentTestName?.replace(/\W+/g, '-').slice(0, 80)}.png`),
        fullPage: true,
      })
      .catch(() => undefined);
    await page?.close();
  });

  it('lists the campaign, shows both streams, memories with cursors, a budgeted context whose drops match the API, and a live write', async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const response = await page.goto(`${t.url}/`);
    expect(page.url()).toBe(`${t.url}/inspector`);
    expect(response?.status()).toBe(200);
    const missing = await t.http('GET', '/inspector/secrets.txt');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    await page.getByRole('button', { name: /The Smugglers of Saltmere/ }).click();

    // Both streams in the timeline, a memory outcome naming its trigger.
    await page.locator('#timeline li.game').first().waitFor();
    await page.locator('#timeline li.memory').first().waitFor();
    const memoryItems = await page.locator('#timeline li.memory .badge').allTextContents();
    expect(memoryItems.some((b) => /memory v\d+ · trigger game v\d+/.test(b))).toBe(true);
    expect(await page.locator('#timeline li[data-id="1:game:1"] .type').textContent()).toBe('CampaignCreated');

    // A memory and its cursor, as the JSON API has them.
    const campaign = await client.getCampaign('saltmere');
    const [memory] = (await client.memories('saltmere', { scope: 'location', subjectId: 'tavern' })).items;
    const tavern = page.locator('details[data-scope="location:tavern"]');
    await expect(tavern.locator('summary').textContent()).resolves.toContain(
      `cursor ${campaign.cursors.locations.tavern}`,
    );
    await expect(tavern.textContent()).resolves.toContain(memory.summary);

    // A budgeted context: each section's tokens, and exactly the API's drops.
    await page.getByLabel('Agent').selectOption('dm');
    await page.getByLabel('Budget (tokens)').fill('120');
    await page.getByRole('button', { name: 'Build context' }).click();
    await page.locator('#context-total').waitFor();
    const api = await client.context('saltmere', { agent: 'dm', budget: 120 });
    expect(api.dropped.length).toBeGreaterThan(0);
    expect(await page.locator('#context-total').textContent()).toContain(`${api.tokens.used} of 120 tokens`);
    const rows = await page
      .locator('#dropped tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual(
      api.dropped.map((d: { section: string; ref: unknown; tokens: number; reason: string }) => [
        d.section,
        String(d.ref),
        String(d.tokens),
        d.reason,
      ]),
    );
    for (const s of api.sections)
      await expect(page.locator(`#context .section[data-key="${s.key}"]`).textContent()).resolves.toContain(
        `${s.tokens} tokens`,
      );

    // GM actions: none in this service's OpenAPI document, so none offered.
    expect(await page.locator('#actions button').count()).toBe(0);
    expect(await page.locator('#actions-note').textContent()).toContain('not in /docs/openapi.json');

    // A write from outside appears live, without a reload.
    await client.recordMessages('saltmere', [
      { role: 'player', speaker: 'Aria', content: 'We row toward the dark lighthouse.' },
    ]);
    await page.locator('#timeline li', { hasText: 'We row toward the dark lighthouse.' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#live-state').textContent()).toBe('live');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(ARTIFACTS, 'inspector.png'), fullPage: true });
    if (process.env.UPDATE_README_SCREENSHOT === '1')
      await page.screenshot({ path: join(REPO_ROOT, 'docs/images/inspector.png'), fullPage: true });
  });

  it('is usable from the keyboard: the campaign list and the context form take focus and Enter', async () => {
    page = await browser.newPage();
    await page.goto(`${t.url}/inspector`);
    await page.locator('#campaigns button').first().waitFor();
    expect(await page.evaluate("document.activeElement?.closest('#campaigns') !== null")).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#timeline li').first().waitFor();
    await page.getByLabel('Budget (tokens)').focus();
    await page.keyboard.press('Enter');
    await page.locator('#context-total').waitFor();
  });

  it("opens a long campaign at its newest 100 events and pages back on request, in the API's order", async () => {
    await client.createCampaign({ id: 'long', name: 'A long campaign' });
    await client.recordMessages(
      'long',
      Array.from({ length: 180 }, (_, i) => ({ role: 'player' as const, speaker: 'Aria', content: `Line ${i}` })),
    );
    page = await browser.newPage();
    await page.goto(`${t.url}/inspector`);
    await page.getByRole('button', { name: /A long campaign/ }).click();
    await page.locator('#timeline li[data-id="1:game:181"]').waitFor();
    expect(await page.locator('#timeline li').count()).toBe(100);
    await page.getByRole('button', { name: 'Load older events' }).click();
    await page.locator('#timeline li[data-id="1:game:1"]').waitFor();
    const ids = await page.locator('#timeline li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
    expect(ids).toEqual(Array.from({ length: 181 }, (_, i) => `1:game:${i + 1}`));
    expect(await page.getByRole('button', { name: 'Load older events' }).isDisabled()).toBe(true);
  });

  describe('with LOREKEEPER_API_KEYS set', () => {
    let secured: TestApp;
    beforeAll(async () => {
      secured = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEY } });
      await seedDemo(new LorekeeperClient({ baseUrl: secured.url, apiKey: KEY }), 'keyed');
    });
    afterAll(async () => secured?.close());

    it('asks for a key, refuses a wrong one, and sends the right one on every call and on the stream', async () => {
      page = await browser.newPage();
      await page.goto(`${secured.url}/inspector`);
      const key = page.getByLabel('API key');
      await key.waitFor();
      expect(await page.locator('#app').isHidden()).toBe(true);
      expect(await page.locator('#key-error').textContent()).toBe('');
      await key.fill('not-the-key-0123456789');
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.waitForFunction("document.querySelector('#key-error')?.textContent?.includes('not accepted')");
      await key.fill(KEY);
      await key.press('Enter');
      await page.getByRole('button', { name: /The Smugglers of Saltmere/ }).click();
      await page.locator('#timeline li.memory').first().waitFor();
      await page.waitForFunction("document.querySelector('#live-state')?.textContent === 'live'");
      await new LorekeeperClient({ baseUrl: secured.url, apiKey: KEY }).recordMessages('keyed', [
        { role: 'player', speaker: 'Aria', content: 'Seen through the keyed stream.' },
      ]);
      await page.locator('#timeline li', { hasText: 'Seen through the keyed stream.' }).waitFor({ timeout: 10_000 });
    });
  });
});
