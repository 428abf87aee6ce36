import { LorekeeperClient } from '@app/client';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, describeBrowser, seedDemo, startInspectorRig } from '../../support/inspector-browser';
import { REPO_ROOT } from '../../support/service-process';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);
const KEY = 'inspector-browser-key-0123';
// The page's Content-Security-Policy (DESIGN §8) refuses eval: waits are locators, never page.waitForFunction(string).

/**
 * Answers the page's prompt()/confirm() dialogs in order: a string fills a prompt, true accepts, false dismisses.
 * Returns the questions asked, so a test can check what the game master was shown.
 */
function answerDialogs(page: Page, answers: (string | boolean)[]): string[] {
  const asked: string[] = [];
  const queue = [...answers];
  const onDialog = async (dialog: import('playwright-core').Dialog) => {
    asked.push(dialog.message());
    const answer = queue.shift();
    if (queue.length === 0) page.off('dialog', onDialog);
    if (answer === false || answer === undefined) await dialog.dismiss();
    else await dialog.accept(typeof answer === 'string' ? answer : undefined);
  };
  page.on('dialog', onDialog);
  return asked;
}

type Memory = { id: string; summary: string; sinceMessageIndex: number; throughMessageIndex: number };
type TimelineItem = { id: string; type: string };

describeBrowser('the inspector in headless Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  let client: LorekeeperClient;
  let page: Page;

  let rig: Awaited<ReturnType<typeof startInspectorRig>>;
  beforeAll(async () => {
    rig = await startInspectorRig();
    ({ browser, t, client } = rig);
  });
  afterAll(async () => rig?.close());
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
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent)));
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

    // The game master's actions the service's OpenAPI document lists: all of DESIGN §10's.
    const actions = await page.locator('#actions button').allTextContents();
    expect(actions).toEqual(['Fork…', 'Rewind…', 'Retract messages…']);
    expect(await page.locator('#actions-note').textContent()).toContain('asks for confirmation');

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

  /** Resolves once `read()` satisfies `ok` (the worker and the page catch up on their own time), else throws. */
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const memoriesOf = async (cid: string) => (await client.memories(cid, { limit: 100 })).items as Memory[];
  const pageIds = () =>
    page.locator('#timeline li[data-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  it('runs every game master action behind a confirmation; the page then shows what the API serves', async () => {
    await seedDemo(client, 'gm');
    page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${t.url}/inspector`);
    await page.locator('#campaigns li[data-campaign="gm"] > button').click();
    await page.locator('#live-state', { hasText: /^live$/ }).waitFor();
    const campaignsNow = async () => (await client.listCampaigns({ limit: 100 })).items;
    const before = await campaignsNow();

    // Cancelled at the confirmation: nothing is sent.
    answerDialogs(page, ['never sent', '', false]);
    await page.getByRole('button', { name: 'Fork…' }).click();
    await page.locator('#status', { hasText: 'cancelled' }).waitFor();
    expect(await campaignsNow()).toEqual(before);

    // Fork at an earlier version: it shows in the fork tree, under its parent, as the campaign list has it.
    const seeded = (await client.getCampaign('gm')).version;
    let asked = answerDialogs(page, ['What if Mira lied', String(seeded - 2), true]);
    await page.getByRole('button', { name: 'Fork…' }).click();
    const forkRow = page.locator('#campaigns li[data-campaign="gm"] > ul > li');
    await forkRow.waitFor();
    const forks = (await campaignsNow()).filter((c) => c.parent?.id === 'gm');
    expect(forks).toHaveLength(1);
    expect(forks[0]).toMatchObject({ name: 'What if Mira lied', parent: { id: 'gm', version: seeded - 2 } });
    expect(await forkRow.getAttribute('data-campaign')).toBe(forks[0].id);
    expect(asked[2]).toContain(`POST /v1/campaigns/gm/fork {"name":"What if Mira lied","atVersion":${seeded - 2}}`);
    await shot('gm-1-fork');

    // Retract Mira's answer (message 2): struck through at once, gone from the messages; its memory is revised.
    const [tavern] = (await client.memories('gm', { scope: 'location', subjectId: 'tavern' })).items as Memory[];
    expect(tavern.sinceMessageIndex).toBeLessThanOrEqual(2);
    expect(tavern.throughMessageIndex).toBeGreaterThanOrEqual(2);
    const beforeRetraction = (await client.getCampaign('gm')).version;
    asked = answerDialogs(page, ['2', 'the player swiped it', true]);
    await page.getByRole('button', { name: 'Retract messages…' }).click();
    await page.locator('#timeline li.retracted[data-message="2"]').waitFor();
    expect(asked[2]).toContain('{"indexes":[2],"reason":"the player swiped it"}');
    const messages = (await client.listMessages('gm', { limit: 100 })).items as { index: number }[];
    expect(messages.map((m) => m.index)).not.toContain(2);
    await page.locator('#timeline li.revised', { hasText: `memory ${tavern.id} revised` }).waitFor({ timeout: 20_000 });
    const revised = await until(
      async () => (await memoriesOf('gm')).find((m) => m.id === tavern.id),
      (m) => m !== undefined && (m as Memory & { revision?: number }).revision === 2,
      'the revised memory',
    );
    const tavernItem = page.locator(`#memories [data-memory="${tavern.id}"]`);
    await until(
      () => tavernItem.locator('.summary').textContent(),
      (s) => s === revised!.summary,
      'the panel',
    );
    expect(await tavernItem.locator('small').textContent()).toContain('revision 2');
    await shot('gm-2-retract');

    // Correct the memory, then read its history: the page lists what the history route answers.
    const wording = 'At the Rusty Anchor: Mira lied; the crates never left her cellar.';
    answerDialogs(page, [wording, true]);
    await page.getByRole('button', { name: `Correct… memory ${tavern.id}` }).click();
    await until(
      () => tavernItem.textContent(),
      (s) => s!.includes('corrected (locked)'),
      'the corrected memory',
    );
    expect(await tavernItem.locator('.summary').textContent()).toBe(wording);
    expect((await memoriesOf('gm')).find((m) => m.id === tavern.id)).toMatchObject({ summary: wording, origin: 'dm' });
    await page.getByRole('button', { name: `History memory ${tavern.id}` }).click();
    const history = page.getByRole('list', { name: `history of memory ${tavern.id}` });
    await history.waitFor();
    const apiHistory = (await client.memoryHistory('gm', tavern.id)).items;
    // The first wording was built from the retracted line: withdrawn, no text (DESIGN §8).
    expect(apiHistory.map((h) => h.reason)).toEqual(['withdrawn', 'revised', 'corrected']);
    // The panel fills the list when the history route answers (and re-reads on memory events): wait for it.
    const expected = apiHistory.map((h) => `r${h.revision} ${h.reason} (${h.origin}, v${h.version}): ${h.summary}`);
    const shown = await until(
      () => history.locator('li').allTextContents(),
      (rows) => rows.length === expected.length,
      'the history rows',
    );
    expect(shown).toEqual(expected);
    await page.evaluate('window.scrollTo(0, 0)');
    await shot('gm-3-history');
    if (process.env.UPDATE_README_SCREENSHOT === '1')
      await page.screenshot({ path: join(REPO_ROOT, 'docs/images/inspector-timelines.png'), fullPage: true });

    // The context viewer as of before the retraction: the page shows what the API serves at that version.
    await page.getByLabel('Agent').selectOption('dm');
    await page.getByLabel('Budget (tokens)').fill('4000');
    await page.getByLabel('As of game version').fill(String(beforeRetraction));
    await page.getByRole('button', { name: 'Build context' }).click();
    await page.locator('#context-total').waitFor();
    const asOf = await client.context('gm', { agent: 'dm', budget: 4000, asOf: beforeRetraction });
    const now = await client.context('gm', { agent: 'dm', budget: 4000 });
    expect(JSON.stringify(asOf)).toContain('forty crates');
    expect(JSON.stringify(now)).not.toContain('forty crates');
    expect(await page.locator('#context-total').textContent()).toContain(`${asOf.tokens.used} of 4000 tokens`);
    for (const sec of asOf.sections)
      await expect(page.locator(`#context .section[data-key="${sec.key}"]`).textContent()).resolves.toContain(
        `${sec.tokens} tokens`,
      );

    // Delete the memory: gone from the panel and from the API.
    asked = answerDialogs(page, [true]);
    await page.getByRole('button', { name: `Delete… memory ${tavern.id}` }).click();
    await until(
      () => tavernItem.count(),
      (n) => n === 0,
      'the deleted memory to leave the panel',
    );
    expect(asked[0]).toContain(`DELETE /v1/campaigns/gm/memories/${encodeURIComponent(tavern.id)}?`);
    expect((await memoriesOf('gm')).map((m) => m.id)).not.toContain(tavern.id);

    // Rewind from the keyboard, keeping the old story: the live timeline says `rewound` and is read again.
    asked = answerDialogs(page, [String(beforeRetraction), 'gm-kept', true]);
    await page.getByRole('button', { name: 'Rewind…' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#timeline li.notice', { hasText: `to v${beforeRetraction} (timeline 2)` }).waitFor();
    expect(asked[2]).toContain(`{"toVersion":${beforeRetraction},"keepAs":"gm-kept"}`);
    const page100 = (await t.http('GET', '/v1/campaigns/gm/timeline?limit=100')).body.items as TimelineItem[];
    expect(page100[page100.length - 1]).toMatchObject({ type: 'CampaignRewound' });
    expect(page100[page100.length - 1].id).toMatch(/^2:game:/);
    expect(await pageIds()).toEqual(page100.map((i) => i.id));
    expect(await page.locator('#timeline li.retracted').count()).toBe(0);
    await page.locator('#campaigns li[data-campaign="gm-kept"]').waitFor();
    await shot('gm-4-rewind');

    // The kept story is deleted elsewhere while open: the stream's `deleted` notice ends it.
    await page.locator('#campaigns li[data-campaign="gm-kept"] > button').click();
    await page.locator('#live-state', { hasText: /^live$/ }).waitFor();
    await client.deleteCampaign('gm-kept');
    await page.locator('#timeline li.notice', { hasText: 'deleted' }).waitFor();
    await until(
      () => page.locator('#campaigns li[data-campaign="gm-kept"]').count(),
      (n) => n === 0,
      'the list',
    );
  });

  it('stays paged on a large campaign: 100-event timeline pages, at most 1,000 rows live', async () => {
    await client.createCampaign({ id: 'large', name: 'A large campaign' });
    const batch = (from: number) =>
      Array.from({ length: 500 }, (_, i) => ({
        role: 'player' as const,
        speaker: 'Aria',
        content: `Line ${from + i}`,
      }));
    for (let i = 0; i < 4; i++) await client.recordMessages('large', batch(i * 500));
    page = await browser.newPage();
    const reads: string[] = [];
    page.on('request', (r) => reads.push(new URL(r.url()).pathname + new URL(r.url()).search));
    await page.goto(`${t.url}/inspector`);
    await page.locator('#campaigns li[data-campaign="large"] > button').click();
    await page.locator('#timeline li[data-id="1:game:2001"]').waitFor();
    await page.locator('#live-state', { hasText: /^live$/ }).waitFor();
    expect(await page.locator('#timeline li').count()).toBe(100);
    // Only pages: no read of the whole history (events, messages) and no timeline page beyond 100.
    const campaignReads = reads.filter((r) => r.startsWith('/v1/campaigns/large/'));
    expect(campaignReads.filter((r) => /\/(events|messages)\b/.test(r))).toEqual([]);
    for (const r of campaignReads.filter((x) => x.includes('/timeline')))
      expect(new URLSearchParams(r.split('?')[1]).get('limit')).toBe('100');
    // 1,000 live writes: the oldest rows leave the page (still a page away with "Load older events").
    for (let i = 4; i < 6; i++) await client.recordMessages('large', batch(i * 500));
    await page.locator('#timeline li[data-id="1:game:3001"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#timeline li').count()).toBe(1000);
    const first = await page.locator('#timeline li').first().getAttribute('data-id');
    expect(first).not.toBe('1:game:2001');
    await page.getByRole('button', { name: 'Load older events' }).click();
    await until(
      () => page.locator('#timeline li').count(),
      (n) => n === 1100,
      'an older page',
    );
    const ids = await pageIds();
    expect(ids[100]).toBe(first);
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
      await page.locator('#key-error', { hasText: 'not accepted' }).waitFor();
      await key.fill(KEY);
      await key.press('Enter');
      await page.getByRole('button', { name: /The Smugglers of Saltmere/ }).click();
      await page.locator('#timeline li.memory').first().waitFor();
      await page.locator('#live-state', { hasText: /^live$/ }).waitFor();
      await new LorekeeperClient({ baseUrl: secured.url, apiKey: KEY }).recordMessages('keyed', [
        { role: 'player', speaker: 'Aria', content: 'Seen through the keyed stream.' },
      ]);
      await page.locator('#timeline li', { hasText: 'Seen through the keyed stream.' }).waitFor({ timeout: 10_000 });
    });
  });
});
