import { LorekeeperClient } from '@app/client';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from '../../support/service-process';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

/** Debian's chromium, as in test/e2e/live/inspector.e2e-spec.ts (which fails in CI without it). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts/inspector');
const KEY = 'inspector-full-key-0123456';
const ARIA_KEY = 'inspector-aria-key-0123456';
const describeBrowser = existsSync(CHROMIUM) ? describe : describe.skip;

/**
 * Issue 28: with a key bound to a character the inspector threw two uncaught 403s, never connected and still showed
 * the game master's actions. It now opens in player mode (DESIGN §8 "Browser hardening").
 */
describeBrowser('the inspector with a viewer-bound key', () => {
  let browser: Browser;
  let t: TestApp;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: `${KEY}, ${ARIA_KEY}=*@player:aria` } });
    const admin = new LorekeeperClient({ baseUrl: t.url, apiKey: KEY });
    await admin.createCampaign({ id: 'keyed', name: 'The Smugglers of Saltmere' });
    await admin.putLocation('keyed', 'tavern', { name: 'The Rusty Anchor', dangerLevel: 'SAFE' });
    await admin.putNpc('keyed', 'mira', { name: 'Mira', locationId: 'tavern' });
    await admin.changeLocation('keyed', 'tavern');
    await admin.recordMessages('keyed', [{ role: 'dm', content: 'Rain lashes the windows before Aria arrives.' }]);
    // Aria joins (she witnesses from here on): one line she never may read, one she hears.
    await admin.putPlayer('keyed', 'aria', { name: 'Aria' });
    await admin.recordMessages('keyed', [
      { role: 'dm', content: 'The GM note: Mira sold the party out to the harbour master.', visibility: 'dm' },
      { role: 'npc', speaker: 'Mira', content: 'Mira waves the party toward the lighthouse road.' },
    ]);
  });
  afterAll(async () => {
    await page?.screenshot({ path: join(ARTIFACTS, 'player-mode.png'), fullPage: true }).catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  /** DESIGN §8: a key bound to a character opens the inspector in player mode, with no error and no refused call. */
  it('opens in player mode: its messages, memories and context, no GM action, a clear note', async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
    await page.goto(`${t.url}/inspector`);
    await page.getByLabel('API key').waitFor();
    // From the key on (the first probe without one is the 401 that asks for it): no refusal, no console error.
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
    await page.getByLabel('API key').fill(ARIA_KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('button', { name: /The Smugglers of Saltmere/ }).click();
    const note = page.getByRole('note').filter({ hasText: 'Player mode' });
    await note.waitFor();
    expect(await note.textContent()).toContain('player aria');
    expect(await page.locator('#actions-section').isHidden()).toBe(true);
    expect(await page.locator('#timeline-title').textContent()).toContain('Messages');
    const line = page.locator('#timeline li', { hasText: 'lighthouse road' });
    await line.waitFor();
    expect(await line.textContent()).toContain('#0');
    expect(await page.locator('#timeline').textContent()).not.toContain('sold the party out');
    expect(await page.locator('#live-state').textContent()).toBe('not live (player key)');
    // Its context, as its own character (the preset is fixed), built in the page.
    expect(await page.locator('#ctx-agent option').allTextContents()).toEqual(['player']);
    expect(await page.locator('#ctx-viewer').inputValue()).toBe('aria');
    await page.getByRole('button', { name: 'Build context' }).click();
    await page.locator('#context-total').waitFor();
    expect(await page.locator('#context').textContent()).not.toContain('sold the party out');
    // No memory action but its history; nothing refused, thrown or blocked by the page's policy.
    expect(await page.getByRole('button', { name: /^(Correct|Delete)/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
