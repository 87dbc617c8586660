import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../web/build.js';
import { addPasskeyOnAccountPage, addVirtualAuthenticator, openBrowser, type E2eBrowser, type VirtualAuthenticator } from '../helpers/e2e.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Passkeys in the built dashboard, in headless Chromium with the DevTools protocol's virtual authenticator (a
 * platform authenticator with user verification, as a laptop's), beyond what the people walk-through
 * (test/e2e/people.test.ts) covers: the old /dashboard/passkeys address lands on the Account page, the session
 * cookie a passkey sign-in sets, the last use shown, removing a passkey (it then signs no one in), and why the
 * public URL must name a host. The server is the real mmgen whose public URL is http://localhost:PORT: a secure
 * context, and a domain the browser takes as the relying party's id.
 */
describe('passkeys in the dashboard [pglite]', () => {
  let s: TestServer;
  let org: TestOrg;
  let e2e: E2eBrowser;
  let context: BrowserContext;
  let page: Page;
  let authenticator: VirtualAuthenticator;
  let base: string;

  beforeAll(async () => {
    const built = await ensureDashboardBuilt({ quiet: true });
    expect(built).not.toBe('unavailable');
    s = await startTestServer('pglite', {}, { publicHost: 'localhost' });
    base = s.config.publicUrl;
    expect(base).toMatch(/^http:\/\/localhost:\d+$/);
    org = await s.createOrg({ name: 'Passkey Co', credits: 0 });
    // The sign-ins refused on purpose: the browser logs each refused request.
    e2e = await openBrowser({ ignore: /401|Unauthorized/ });
    page = await e2e.newPage('passkeys', { viewport: { width: 1100, height: 800 } });
    context = page.context();
    authenticator = await addVirtualAuthenticator(page);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await s?.close();
  });

  it('a person adds a passkey on the Account page (the old address leads there), signs in with it, and removes it', async () => {
    // The person: invited by the owner's key, accepting in this browser (so its context holds the session cookie).
    const inv = await client(s.url)('POST', '/v1/invitations', { key: org.live, body: { email: 'dev@passkey.example', role: 'developer' } });
    expect(inv.status).toBe(201);
    const token = new URL(inv.body.url).hash.replace('#token=', '');
    const accepted = await context.request.post(`${base}/v1/invitations/accept`, { data: { token, password: 'a long enough password' } });
    expect(accepted.status()).toBe(201);

    // The old address of the passkeys page lands on the Account page, signed in from the cookie the accept set.
    await page.goto(`${base}/dashboard/passkeys`);
    await page.waitForURL((u) => u.pathname === '/dashboard/account');
    await expect.poll(() => page.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('Account');
    await expect.poll(() => page.getByTestId('caller').textContent()).toContain('dev@passkey.example');
    await addPasskeyOnAccountPage(page, authenticator, 'E2E laptop');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('#page-title').textContent()).toBe('Sign in');
    expect((await context.cookies(base)).find((c) => c.name === 'mmgen_session')).toBeUndefined();

    await page.locator('#passkey-sign-in').click();
    await expect.poll(() => page.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('Account');
    expect((await context.cookies(base)).find((c) => c.name === 'mmgen_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // The server saw the passkey used.
    await expect.poll(() => page.getByTestId('passkeys-table').locator('tbody tr').first().textContent()).not.toMatch(/never/);

    // Removing it: the list empties, it signs no one in any more, and the audit log has it all with the member as actor.
    await page.getByRole('button', { name: 'Remove passkey E2E laptop' }).click();
    await page.locator('#no-passkeys').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#passkey-sign-in').click();
    await page.getByText('Could not sign in with a passkey').waitFor();
    expect(await page.locator('.passkey-sign-in').textContent()).toMatch(/not registered here/);
    const events = (await client(s.url)('GET', '/v1/audit-events?limit=100', { key: org.live })).body.data as Array<{ action: string; after: { method?: string } | null }>;
    expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['passkey.added', 'passkey.removed', 'sign_in.succeeded']));
    expect(events.some((e) => e.action === 'sign_in.succeeded' && e.after?.method === 'passkey')).toBe(true);
    expect(e2e.consoleErrors).toEqual([]);
  });

  it('an IP literal is no relying party id: the same browser refuses a passkey for 127.0.0.1 (why the public URL must name a host)', async () => {
    const p = await context.newPage();
    try {
      await p.goto(`${s.url}/dashboard/`);
      // A string, run in the page (the test's TypeScript has no DOM).
      const outcome = await p.evaluate(`(async () => {
        try {
          await navigator.credentials.create({ publicKey: {
            challenge: new Uint8Array(32), rp: { id: '127.0.0.1', name: 'x' }, user: { id: new Uint8Array(8), name: 'x', displayName: 'x' },
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
          } });
          return 'created';
        } catch (err) {
          return err.name;
        }
      })()`);
      expect(outcome).toBe('SecurityError');
    } finally {
      await p.close();
    }
  });
});
