import { LorekeeperClient } from '@app/client';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, describeBrowser, startInspectorRig } from '../../support/inspector-browser';
import { TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

/** Four rounds with a line each: the rolling summaries (every SUMMARY_INTERVAL_ROUNDS = 4) of the dm and the public. */
async function playRounds(client: LorekeeperClient, id: string): Promise<void> {
  for (let round = 1; round <= 4; round++) {
    await client.recordMessages(id, [
      { role: 'player', speaker: 'Aria', content: `In round ${round} Aria searches the docks for the lantern.` },
    ]);
    await client.endRound(id);
  }
  const { version } = await client.getCampaign(id);
  await client.context(id, { minVersion: version, waitMs: 10_000 });
}

/**
 * DESIGN §11: the context viewer shows the text exactly as the model reads it and, on demand, the text of each
 * dropped entry; timeline rows read as sentences (which rolling-summary chain, which round); the header's version
 * follows the stream; at 800 px nothing is clipped and the context form comes before the memories.
 */
describeBrowser('the inspector shows the text', () => {
  let browser: Browser;
  let t: TestApp;
  let client: LorekeeperClient;
  let page: Page;
  let rig: Awaited<ReturnType<typeof startInspectorRig>>;
  beforeAll(async () => {
    rig = await startInspectorRig();
    ({ browser, t, client } = rig);
    await playRounds(client, 'saltmere');
  });
  afterAll(async () => rig?.close());

  const open = async (width: number) => {
    page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${t.url}/inspector`);
    await page.locator('#campaigns li[data-campaign="saltmere"] > button').click();
    await page
      .locator('#live-state')
      .filter({ hasText: /^live$/ })
      .waitFor();
  };
  afterEach(async () => page?.close());

  it('shows the context text exactly as the API serves it as text/plain, and each dropped entry’s text on demand', async () => {
    await open(1400);
    await page.getByLabel('Agent').selectOption('dm');
    await page.getByLabel('Budget (tokens)').fill('150');
    await page.getByRole('button', { name: 'Build context' }).click();
    await page.locator('#context-text').waitFor();
    const text = await client.contextText('saltmere', { agent: 'dm', budget: 150 });
    expect(await page.locator('#context-text').textContent()).toBe(text);

    const api = await client.context('saltmere', { agent: 'dm', budget: 150 });
    const full = await client.context('saltmere', { agent: 'dm', budget: 200_000 });
    const budgetDrop = api.dropped.find((d: { reason: string }) => d.reason === 'budget');
    expect(budgetDrop).toBeDefined();
    const expected = full.sections
      .find((s: { key: string }) => s.key === budgetDrop.section)
      .entries.find((e: { ref: string }) => e.ref === budgetDrop.ref).text;
    const row = page.locator(`#dropped tbody tr[data-ref="${budgetDrop.ref}"]`).first();
    expect(await row.locator('td.preview').textContent()).toBe('Show text'); // nothing fetched before asked
    await row.getByRole('button', { name: /Show the text of dropped/ }).click();
    await row.locator('td.preview q').waitFor();
    expect(await row.locator('td.preview q').textContent()).toBe(expected);
    await page.screenshot({ path: join(ARTIFACTS, 'context-text.png'), fullPage: true });
  });

  it('reads timeline rows as sentences: the round, which rolling-summary chain, no raw JSON', async () => {
    await open(1400);
    const rows = await page.locator('#timeline li').evaluateAll((lis) =>
      lis.map((li) => ({
        type: li.querySelector('.type')?.textContent ?? '',
        text: li.querySelector('.text')?.textContent ?? '',
      })),
    );
    expect(rows.filter((r) => /^[{[]/.test(r.text))).toEqual([]);
    expect(rows.filter((r) => r.type === 'RoundEnded').map((r) => r.text)).toEqual([
      'round 1',
      'round 2',
      'round 3',
      'round 4',
    ]);
    const chains = rows.filter((r) => r.type === 'RollingSummaryUpdated').map((r) => r.text.split(' · ')[0]);
    expect(chains.length).toBeGreaterThan(0);
    for (const chain of chains) expect(chain).toMatch(/^(dm summary|public summary \(no viewer\)|\S+'s summary)/);
  });

  it('keeps the header version live and, at 800 px, clips no text and shows the context form before the memories', async () => {
    await open(800);
    const { version } = await client.getCampaign('saltmere');
    await client.recordMessages('saltmere', [{ role: 'dm', content: 'The lantern gutters out.' }]);
    // A locator, not page.waitForFunction(string): the page's Content-Security-Policy refuses eval.
    await page
      .locator('#campaign-meta')
      .filter({ hasText: `game version ${version + 1} ` })
      .waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Build context' }).click();
    await page.locator('#context-text').waitFor();
    // A string, not a function: the repository's tsc has no DOM types (as in inspector.e2e-spec.ts).
    const clipped = await page.evaluate<string[]>(`(() => {
      const out = [];
      for (const node of document.querySelectorAll('#app *')) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || ['auto', 'scroll'].includes(style.overflowX)) continue;
        if (node.scrollWidth > node.clientWidth + 1 && node.clientWidth > 0)
          out.push(node.tagName + '#' + node.id + '.' + node.className + ': ' + node.scrollWidth + ' > ' + node.clientWidth);
      }
      if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page scrolls sideways');
      return out;
    })()`);
    expect(clipped).toEqual([]);
    const formTop = await page.locator('#context-form').evaluate((n) => n.getBoundingClientRect().top);
    const memoriesTop = await page.locator('#memories').evaluate((n) => n.getBoundingClientRect().top);
    expect(formTop).toBeLessThan(memoriesTop);
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-800px.png'), fullPage: true });
  });
});
