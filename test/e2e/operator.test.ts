import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../web/build.js';
import { openBrowser, screenshot, signInAsOperator, type E2eBrowser } from '../helpers/e2e.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { seriousViolations } from '../helpers/axe.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The operator's pages of the built dashboard (/dashboard/operator) in headless Chromium against a real mmgen:
 * signed in with the operator credential (kept in memory, never in the browser's storage), a price edited in the
 * dashboard is what GET /v1/models then publishes, and the audit shows the change.
 */
// Requests the test has refused on purpose (an organization's key as the operator's, a price that is no number): the
// browser logs each as a console error.
const REFUSED = /Failed to load resource: the server responded with a status of (400|401|403)/;

describe("the operator's dashboard in a browser [pglite]", () => {
  let s: TestServer;
  let org: TestOrg;
  let e2e: E2eBrowser;
  let page: Page;

  beforeAll(async () => {
    expect(await ensureDashboardBuilt({ quiet: true })).not.toBe('unavailable');
    s = await startTestServer('pglite', { MMGEN_ADMIN_TOKEN: ADMIN_TOKEN });
    org = await s.createOrg({ credits: 1000 });
    e2e = await openBrowser({ ignore: REFUSED });
    page = await e2e.newPage('operator', { viewport: { width: 1280, height: 900 } });
  }, 180_000);
  afterAll(async () => {
    await e2e?.close();
    await s?.close();
  });

  it("signs in with the operator token, edits a price, and GET /v1/models publishes it", async () => {
    await page.goto(`${s.url}/dashboard/operator`);
    await expect.poll(() => page.locator('#page-title').textContent(), { timeout: 15_000 }).toBe('Operator sign-in');
    // An organization's key does not open it.
    await page.locator('#operator-token').fill(org.live);
    await page.keyboard.press('Enter');
    await page.getByText('MMGEN_ADMIN_TOKEN').nth(1).waitFor();
    const found = (await seriousViolations(page)).map((v) => `sign-in ${v}`);
    await signInAsOperator(page, ADMIN_TOKEN);
    expect(await page.evaluate('JSON.stringify([Object.keys(localStorage), Object.keys(sessionStorage)])')).toBe('[[],[]]');

    const row = page.locator('tr[data-slug="flux-schnell"]');
    found.push(...(await seriousViolations(page)).map((v) => `catalog ${v}`));
    await row.getByRole('button', { name: 'Edit flux-schnell' }).click();
    await page.locator('#op-price').waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `edit dialog ${v}`));
    await page.locator('#op-price').fill('0.0045');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('$0.0045');
    await expect.poll(() => row.textContent()).toContain('operator');
    await screenshot(page, 'operator');

    const published = await client(s.url)('GET', '/v1/models/flux-schnell', { key: org.live });
    expect(published.body.pricing.unit_cost_usd).toBe(0.0045);
    await expect.poll(() => page.getByTestId('operator-audit').textContent()).toContain('model.edit');
    expect(await page.getByTestId('operator-audit').textContent()).toContain('flux-schnell');

    // A bad price is the server's 400, shown in the form, naming the field.
    await row.getByRole('button', { name: 'Edit flux-schnell' }).click();
    await page.locator('#op-price').fill('ten cents');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('dialog .notice-error', { hasText: 'unit_cost_usd' }).waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `edit dialog with its error ${v}`));
    expect((await client(s.url)('GET', '/v1/models/flux-schnell', { key: org.live })).body.pricing.unit_cost_usd).toBe(0.0045);
    expect(e2e.consoleErrors).toEqual([]);
    // axe-core (WCAG 2 A and AA), as on the organization's pages: nothing serious or critical.
    expect(found).toEqual([]);
  }, 120_000);

  it('passes axe-core in the dark colour scheme too: sign-in, catalog and the edit dialog', async () => {
    const dark = await e2e.newPage('dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${s.url}/dashboard/operator`);
    await expect.poll(() => dark.locator('#page-title').textContent(), { timeout: 15_000 }).toBe('Operator sign-in');
    await dark.locator('#operator-token').fill(org.live);
    await dark.keyboard.press('Enter');
    await dark.getByText('MMGEN_ADMIN_TOKEN').nth(1).waitFor();
    const found = (await seriousViolations(dark)).map((v) => `sign-in ${v}`);
    await signInAsOperator(dark, ADMIN_TOKEN);
    const row = dark.locator('tr[data-slug="flux-schnell"]');
    await row.waitFor();
    found.push(...(await seriousViolations(dark)).map((v) => `catalog ${v}`));
    await row.getByRole('button', { name: 'Edit flux-schnell' }).click();
    await dark.locator('#op-price').waitFor();
    found.push(...(await seriousViolations(dark)).map((v) => `edit dialog ${v}`));
    await dark.context().close();
    expect(found).toEqual([]);
    expect(e2e.consoleErrors).toEqual([]);
  }, 120_000);
});
