import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../web/build.js';
import { CHROMIUM_ARGS, resolveChromium } from '../helpers/chromium.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Passkeys in the built dashboard, in headless Chromium with the DevTools protocol's virtual authenticator (a
 * platform authenticator with user verification, as a laptop's): a person adds a passkey on /dashboard/passkeys,
 * signs out, and signs in with it, there and from the sign-in page. The server is the real mmgen whose public URL is
 * http://localhost:PORT: a secure context, and a domain the browser takes as the relying party's id.
 */
describe('passkeys in the dashboard [pglite]', () => {
  let s: TestServer;
  let org: TestOrg;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let base: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const built = await ensureDashboardBuilt({ quiet: true });
    expect(built).not.toBe('unavailable');
    s = await startTestServer('pglite', {}, { publicHost: 'localhost' });
    base = s.config.publicUrl;
    expect(base).toMatch(/^http:\/\/localhost:\d+$/);
    org = await s.createOrg({ name: 'Passkey Co', credits: 0 });
    const found = await resolveChromium();
    browser = await chromium.launch({ executablePath: found.executablePath, args: CHROMIUM_ARGS, env: { ...process.env, ...found.env } });
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('a person adds a passkey, signs out, and signs in with it', async () => {
    // The person: invited by the owner's key, accepting in this browser (so its context holds the session cookie).
    const inv = await client(s.url)('POST', '/v1/invitations', { key: org.live, body: { email: 'dev@passkey.example', role: 'developer' } });
    expect(inv.status).toBe(201);
    const token = new URL(inv.body.url).hash.replace('#token=', '');
    const accepted = await context.request.post(`${base}/v1/invitations/accept`, { data: { token, password: 'a long enough password' } });
    expect(accepted.status()).toBe(201);

    await page.goto(`${base}/dashboard/passkeys`);
    await expect.poll(() => page.locator('#signed-in-as').textContent(), { timeout: 10_000 }).toMatch(/dev@passkey\.example.*developer of Passkey Co.*with an invitation link/);
    expect(await page.evaluate('window.isSecureContext')).toBe(true);
    await page.locator('#no-passkeys').waitFor();

    await page.locator('#passkey-name').fill('E2E laptop');
    await page.locator('#add-passkey').click();
    await expect.poll(() => page.locator('#passkeys li').allTextContents(), { timeout: 10_000 }).toEqual([expect.stringContaining('E2E laptop')]);
    // The authenticator holds one discoverable credential for this relying party (localhost), for this person.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });

    await page.locator('#sign-out-session').click();
    await page.locator('#signed-out').waitFor();
    expect((await context.cookies(base)).find((c) => c.name === 'mmgen_session')).toBeUndefined();

    await page.locator('#passkey-sign-in').click();
    await expect.poll(() => page.locator('#signed-in-as').textContent(), { timeout: 10_000 }).toMatch(/dev@passkey\.example.*with a passkey/);
    expect((await context.cookies(base)).find((c) => c.name === 'mmgen_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // The authenticator signed: its counter moved, and the server saw the passkey used.
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#passkeys li').first().textContent()).toMatch(/last used/);

    // From the dashboard's sign-in page too: its passkey button signs in and goes to the passkeys page.
    await page.locator('#sign-out-session').click();
    await page.locator('#signed-out').waitFor();
    await page.goto(`${base}/dashboard/`);
    await page.locator('#api-key').waitFor();
    await page.locator('#passkey-sign-in').click();
    await page.waitForURL((u) => u.pathname === '/dashboard/passkeys');
    await expect.poll(() => page.locator('#signed-in-as').textContent(), { timeout: 10_000 }).toMatch(/with a passkey/);

    // Removing it in the dashboard: the list empties, and the audit log has it all with the member as actor.
    await page.getByRole('button', { name: 'Remove passkey E2E laptop' }).click();
    await page.locator('#no-passkeys').waitFor();
    const actions = ((await client(s.url)('GET', '/v1/audit-events?limit=100', { key: org.live })).body.data as Array<{ action: string; after: { method?: string } | null }>).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['passkey.added', 'passkey.removed', 'sign_in.succeeded']));
    expect(consoleErrors.filter((e) => !/401|Unauthorized/.test(e))).toEqual([]);
  });

  it('an IP literal is no relying party id: the same browser refuses a passkey for 127.0.0.1 (why the public URL must name a host)', async () => {
    const p = await context.newPage();
    try {
      await p.goto(`${s.url}/dashboard/passkeys`);
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
