import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../web/build.js';
import { seriousViolations } from '../helpers/axe.js';
import { openBrowser, signInWithKey, watchRequests, type E2eBrowser } from '../helpers/e2e.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Two tabs of one browser share one session cookie. When one tab signs in as someone else, switches, or signs out,
 * the other must not go on showing the session it had while its requests act as the new one (reads need no CSRF
 * token, so they would be answered for the other organization under this one's name). The dashboard catches up: told
 * by the other tab (BroadcastChannel), or, when nothing told it, before its next request sends anything.
 */
describe('tabs of one browser share its session [pglite]', () => {
  let s: TestServer;
  let e2e: E2eBrowser;
  let ctx: BrowserContext;
  let a: Page;
  let b: Page;
  let x: TestOrg;
  let y: TestOrg;

  const orgName = (p: Page) => p.locator('#sidebar .org-name').textContent();
  const notice = (p: Page) => p.getByTestId('session-notice');

  const signIn = (p: Page, key: string) => signInWithKey(p, s.url, key);

  beforeAll(async () => {
    expect(await ensureDashboardBuilt({ quiet: true })).not.toBe('unavailable');
    s = await startTestServer('pglite', {});
    x = await s.createOrg({ name: 'Tab Org X', credits: 1_000 });
    y = await s.createOrg({ name: 'Tab Org Y', credits: 1_000 });
    e2e = await openBrowser();
    a = await e2e.newPage('a');
    ctx = a.context();
    b = e2e.watch(await ctx.newPage(), 'b');
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await s?.close();
  });

  /** Each API request the page sends from now on, as its path and the CSRF token it carries. */
  function tokensSent(p: Page): string[] {
    return watchRequests(p, (req) => {
      const path = new URL(req.url()).pathname;
      // The API's description is public, read without cookies.
      return path.startsWith('/v1/') && path !== '/v1/openapi.json' ? `${path} ${req.headers()['x-csrf-token'] ?? '(none)'}` : undefined;
    });
  }

  /** A sign-in that does not go through this dashboard's form (an SSO return, an accepted invitation): the cookie changes. */
  async function signInBehind(p: Page, key: string): Promise<string> {
    return p.evaluate(async (k) => {
      const r = await fetch('/v1/session/key', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: k }) });
      return ((await r.json()) as { csrf_token: string }).csrf_token;
    }, key);
  }

  it('a tab that opens another session moves the other tabs to it, and they say so', async () => {
    await signIn(a, x.live);
    expect(await orgName(a)).toBe('Tab Org X');
    // A second tab opens on the session the browser has: the first tab is told, and has nothing to catch up on.
    await b.goto(`${s.url}/dashboard/`);
    await expect.poll(() => orgName(b), { timeout: 10_000 }).toBe('Tab Org X');
    await a.waitForTimeout(300);
    expect(await notice(a).count()).toBe(0);
    expect(await orgName(a)).toBe('Tab Org X');

    // The browser signs in as Y behind both tabs; B opens the dashboard on it (as an SSO return lands), A follows.
    await signInBehind(b, y.live);
    await b.reload();
    await expect.poll(() => orgName(b), { timeout: 10_000 }).toBe('Tab Org Y');
    await expect.poll(() => orgName(a), { timeout: 10_000 }).toBe('Tab Org Y');
    expect(await notice(a).textContent()).toContain('in another tab');
    // B opened the session itself: no notice there, and A's catching up did not send one back.
    await a.waitForTimeout(300);
    expect(await notice(b).count()).toBe(0);
    expect(await seriousViolations(a)).toEqual([]);
    await notice(a).getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => notice(a).count()).toBe(0);
  }, 90_000);

  it("a session replaced with no word from another tab is caught before this tab's next request goes out", async () => {
    // The browser gets organization X's session behind both tabs' backs, from a third tab that then closes: no tab
    // opened the dashboard on it, so nothing was broadcast.
    const c = await ctx.newPage();
    await c.goto(`${s.url}/healthz`);
    const xCsrf = await signInBehind(c, x.live);
    await c.close();
    expect(await orgName(a)).toBe('Tab Org Y');
    // Every request the tab sends from here carries its session's CSRF token: one sent with Y's would be Y's page
    // asking as X.
    const sentWith = tokensSent(a);
    await a.locator('#sidebar a[href="/dashboard/api-keys"]').click();
    await expect.poll(() => orgName(a), { timeout: 10_000 }).toBe('Tab Org X');
    expect(await notice(a).textContent()).toContain('in another tab');
    await expect.poll(() => a.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('API keys');
    await expect.poll(() => a.getByTestId('keys-table').count(), { timeout: 10_000 }).toBe(1);
    expect(sentWith.length).toBeGreaterThan(0);
    expect(sentWith.filter((t) => !t.endsWith(` ${xCsrf}`))).toEqual([]);
    await expect.poll(() => orgName(b), { timeout: 10_000 }).toBe('Tab Org X');
  }, 60_000);

  it('signing out in one tab signs the other out', async () => {
    await a.locator('#sidebar').getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => a.locator('#api-key').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => b.locator('#api-key').count(), { timeout: 10_000 }).toBe(1);
    expect(await b.locator('.notice-warn').textContent()).toContain('signed out in another tab');
    expect((await ctx.cookies()).filter((c) => c.name.includes('mmgen_session'))).toEqual([]);
  });

  it('a sign-in in another tab brings a signed-out tab in too', async () => {
    await signIn(b, x.live);
    await expect.poll(() => orgName(a), { timeout: 10_000 }).toBe('Tab Org X');
  });

  it("a person's switch moves the other tabs too, told or not, and the switching tab's page shows the new mode's data", async () => {
    const api = client(s.url);
    // Something in X's test mode only: the live Overview lists nothing, the test one lists it.
    const made = await api('POST', '/v1/images', { key: x.test, body: { model: 'flux-schnell', prompt: 'a lighthouse', width: 256, height: 256 } });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    // The browser becomes a person of X: an invitation accepted in it, signed out, signs it in as them.
    await ctx.clearCookies();
    await a.goto(`${s.url}/healthz`);
    const inv = await api('POST', '/v1/invitations', { key: x.live, body: { email: 'tabs@example.test', role: 'owner' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const token = new URL(inv.body.url as string).hash.slice('#token='.length);
    const accepted = await a.evaluate(async (t) => {
      const r = await fetch('/v1/invitations/accept', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: t, name: 'Tab Person', password: 'tab person password 1' }) });
      return r.status;
    }, token);
    expect(accepted).toBe(201);
    await a.goto(`${s.url}/dashboard/`);
    await b.goto(`${s.url}/dashboard/`);
    for (const p of [a, b]) await expect.poll(() => p.getByTestId('caller').textContent(), { timeout: 10_000 }).toContain('signed in');
    await a.getByText('Nothing generated yet').waitFor();

    // A switches to test mode with its button: its Overview is loaded again, in test mode; B is told, and follows.
    await a.getByRole('button', { name: 'Switch to test mode' }).click();
    await a.getByTestId('test-banner').waitFor();
    await a.locator('[data-testid=recent-generations] li').first().waitFor({ timeout: 10_000 });
    expect(await a.getByText('Nothing generated yet').count()).toBe(0);
    await b.getByTestId('test-banner').waitFor({ timeout: 10_000 });
    expect(await notice(b).textContent()).toContain('in another tab');
    expect(await notice(a).count()).toBe(0);

    // A switch no tab tells of (sent from a third tab, as a script would): the session's CSRF token is new, so B's
    // guard sees it before B's next request, which would otherwise act in live mode under B's test-mode banner.
    const c = await ctx.newPage();
    await c.goto(`${s.url}/healthz`);
    const liveCsrf = (await c.evaluate(`(async () => {
      const csrf = /(?:^|; )mmgen_csrf=([^;]+)/.exec(document.cookie)[1];
      const r = await fetch('/v1/session', { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ mode: 'live' }) });
      return (await r.json()).csrf_token;
    })()`)) as string;
    expect(liveCsrf).toMatch(/^[0-9A-Za-z]{43}$/);
    await c.close();
    await notice(b).getByRole('button', { name: 'Dismiss' }).click();
    expect(await b.getByTestId('test-banner').count()).toBe(1);
    const sentWith = tokensSent(b);
    await b.locator('#sidebar a[href="/dashboard/generations"]').click();
    await expect.poll(() => b.getByTestId('test-banner').count(), { timeout: 10_000 }).toBe(0);
    expect(await notice(b).textContent()).toContain('in another tab');
    await expect.poll(() => b.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('Generations');
    expect(sentWith.length).toBeGreaterThan(0);
    expect(sentWith.filter((t) => !t.endsWith(` ${liveCsrf}`))).toEqual([]);
  }, 90_000);

  it("the invitation page's sign-out signs the other tabs out at once; a session gone with no word is not called another tab's sign-out", async () => {
    // The browser is still the person of X (above). B opens an invitation to Y for someone else, signs out to accept it.
    const inv = await client(s.url)('POST', '/v1/invitations', { key: y.live, body: { email: 'newcomer@example.test', role: 'developer' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    await a.goto(`${s.url}/dashboard/`);
    await expect.poll(() => a.getByTestId('caller').textContent(), { timeout: 10_000 }).toContain('signed in');
    await b.goto(inv.body.url as string);
    await b.getByRole('button', { name: 'Sign out, to accept with a new account' }).click();
    await b.locator('#accept-password').waitFor();
    // A is told, and says by whom (a tab that found the cookie gone on its own could not).
    await expect.poll(() => a.locator('#api-key').count(), { timeout: 10_000 }).toBe(1);
    expect(await a.locator('.notice-warn').textContent()).toContain('This browser signed out in another tab.');

    // The cookies go with no tab saying so (as when the session runs out): the tab's next request finds it out.
    await signIn(a, x.live);
    await ctx.clearCookies();
    await a.locator('#sidebar a[href="/dashboard/api-keys"]').click();
    await expect.poll(() => a.locator('#api-key').count(), { timeout: 10_000 }).toBe(1);
    expect(await a.locator('.notice-warn').textContent()).toContain('no longer signed in');
  }, 60_000);

  it('no tab logged an error', () => {
    expect(e2e.consoleErrors).toEqual([]);
  });
});
