import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../../web/build.js';
import { seriousViolations } from '../helpers/axe.js';
import { addPasskeyOnAccountPage, addVirtualAuthenticator, openBrowser, submitPassword, type E2eBrowser, type VirtualAuthenticator } from '../helpers/e2e.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { startSmtpCapture, type CapturedMail } from '../helpers/smtp.js';

/**
 * A passkey after the password, and self sign-up, in the built dashboard in headless Chromium (the DevTools
 * protocol's virtual authenticator stands for the laptop's). The server is the real mmgen at http://localhost:PORT
 * with sign-up open and a real SMTP server on loopback capturing its mail.
 */
describe('a passkey after the password, and sign-up, in the dashboard [pglite]', () => {
  let s: TestServer;
  let org: TestOrg;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  let e2e: E2eBrowser;
  let context: BrowserContext;
  let page: Page;
  let authenticator: VirtualAuthenticator;
  let base: string;
  const PASSWORD = 'a long enough password';

  beforeAll(async () => {
    const built = await ensureDashboardBuilt({ quiet: true });
    expect(built).not.toBe('unavailable');
    smtp = await startSmtpCapture();
    s = await startTestServer('pglite', { MMGEN_SIGNUP: 'on', MMGEN_SMTP_URL: smtp.url, MMGEN_MAIL_FROM: 'mmgen <mmgen@example.test>' }, { publicHost: 'localhost' });
    base = s.config.publicUrl;
    org = await s.createOrg({ name: 'Two Step Co', credits: 0 });
    // The sign-ins refused on purpose: the browser logs each refused request.
    e2e = await openBrowser({ ignore: /401|Unauthorized/ });
    page = await e2e.newPage('second factor', { viewport: { width: 1100, height: 800 } });
    context = page.context();
    authenticator = await addVirtualAuthenticator(page);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await s?.close();
    await smtp?.close();
  });

  it('turned on in the Account page: the password alone gives no session, the password then the passkey signs in', async () => {
    const inv = await client(s.url)('POST', '/v1/invitations', { key: org.live, body: { email: 'two@step.example', role: 'developer' } });
    const accepted = await context.request.post(`${base}/v1/invitations/accept`, { data: { token: new URL(inv.body.url).hash.replace('#token=', ''), password: PASSWORD } });
    expect(accepted.status()).toBe(201);
    await page.goto(`${base}/dashboard/account`);
    await expect.poll(() => page.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('Account');
    // Without a passkey the setting cannot be turned on.
    await expect.poll(() => page.locator('#passkey-after-password').isDisabled()).toBe(true);
    await addPasskeyOnAccountPage(page, authenticator, 'Laptop');
    // A click, not check(): the box shows the server's answer, which arrives after the click.
    await page.locator('#passkey-after-password').click();
    await expect.poll(() => page.locator('#passkey-after-password').isChecked()).toBe(true);
    await expect.poll(async () => (await client(s.url)('GET', '/v1/audit-events?action=account.updated', { key: org.live })).body.data.length).toBe(1);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('#page-title').textContent()).toBe('Sign in');
    await submitPassword(page, 'two@step.example', PASSWORD);
    await page.locator('#second-factor-passkey').waitFor({ timeout: 10_000 });
    expect(await seriousViolations(page)).toEqual([]);
    // The password alone: no session cookie, only the pending one (HttpOnly, for the second-factor path only).
    const cookies = await context.cookies(`${base}/v1/session/second-factor`);
    expect(cookies.find((c) => c.name === 'mmgen_session')).toBeUndefined();
    expect(cookies.find((c) => c.name === 'mmgen_second_factor')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/v1/session/second-factor' });
    expect((await context.request.get(`${base}/v1/session`)).status()).toBe(401);

    await page.locator('#second-factor-passkey').click();
    await expect.poll(() => page.getByTestId('caller').textContent(), { timeout: 10_000 }).toContain('two@step.example');
    expect((await context.cookies(base)).find((c) => c.name === 'mmgen_session')).toMatchObject({ httpOnly: true });
    expect((await (await context.request.get(`${base}/v1/session`)).json()).method).toBe('password_passkey');
    // The authenticator signed (its counter moved past the registration's).
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);
    expect(e2e.consoleErrors).toEqual([]);
  });

  it('sign-up: the sign-in page offers it, the mailed link creates the account and its organization and signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('#page-title').textContent()).toBe('Sign in');
    await page.locator('#create-account').click();
    await expect.poll(() => page.locator('#page-title').textContent()).toBe('Create an account');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#sign-up-email').fill('founder@new.example');
    // The page says the server's own minimum (from its schema) and holds a shorter password back with it.
    const doc = await (await context.request.get(`${base}/v1/openapi.json`)).json();
    const min = doc.paths['/v1/sign-up'].post.requestBody.content['application/json'].schema.properties.password.minLength as number;
    expect(min).toBeGreaterThan(1);
    await expect.poll(() => page.locator('#sign-up-password-hint').textContent()).toBe(`At least ${min} characters.`);
    await page.locator('#sign-up-password').fill('x'.repeat(min - 1));
    await page.locator('#sign-up-confirm').fill('x'.repeat(min - 1));
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByText(`A password needs at least ${min} characters.`).waitFor();
    expect(smtp.mails.filter((m: CapturedMail) => m.to.includes('founder@new.example'))).toEqual([]);
    await page.locator('#sign-up-password').fill(PASSWORD);
    await page.locator('#sign-up-confirm').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.locator('#sign-up-sent').waitFor({ timeout: 10_000 });
    const mail = smtp.mails.find((m: CapturedMail) => m.to.includes('founder@new.example'))!;
    const link = /https?:\/\/\S+\/dashboard\/sign-up#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
    // Opened from the mail: a new tab.
    const tab = await context.newPage();
    await tab.goto(link);
    await tab.waitForURL((u) => u.pathname === '/dashboard/', { timeout: 15_000 });
    await expect.poll(() => tab.getByTestId('caller').textContent(), { timeout: 10_000 }).toContain('founder@new.example');
    const session = await (await context.request.get(`${base}/v1/session`)).json();
    expect(session).toMatchObject({ method: 'sign_up', role: 'owner', memberships: [expect.objectContaining({ organization_name: "founder's organization", role: 'owner' })] });
  });
});
