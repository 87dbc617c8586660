import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDefaultOrganization } from '../../src/main.js';
import { ensureDashboardBuilt } from '../../web/build.js';
import { seriousViolations } from '../helpers/axe.js';
import { addPasskeyOnAccountPage, addVirtualAuthenticator, openBrowser, openFromSidebar, screenshot, signInWithKey, submitPassword, type E2eBrowser } from '../helpers/e2e.js';
import { startOidcProvider } from '../helpers/oidc.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { linkInMail, startSmtpCapture } from '../helpers/smtp.js';

/**
 * Issue 31's walk-through in Chromium, against a real mmgen (PGlite), a real SMTP server capturing the invitation
 * mail and a real OpenID provider, all on loopback: the first-start link makes the owner; the owner invites a
 * developer by mail; the developer accepts with a password, adds a passkey (Chromium's virtual authenticator), signs
 * out and signs in with it, and makes a key with the developer's role; demoting the developer stops
 * the key generating, removing them makes it 401; a second organization turns OIDC on and a new person signs in
 * through the provider with the configured role; the audit log shows each step. Every new page passes axe-core
 * (no serious or critical WCAG A/AA violation) in light and dark. The steps depend on each other, in order.
 * The browser uses mmgen's public URL, http://localhost:PORT: WebAuthn needs a secure context and a domain for the
 * relying party's id (an IP literal is none); the test's own API calls go to the listening address, 127.0.0.1.
 */
const OWNER = { email: 'olive@owner.test', password: 'owner password 1', name: 'Olive Owner' };
const DEV = { email: 'dev@example.test', password: 'developer password 1', name: 'Dev Eloper' };
const IMAGE = { model: 'flux-schnell', prompt: 'a member key', width: 256, height: 256 };

describe('people in the dashboard [pglite]', () => {
  let s: TestServer;
  /** mmgen's public URL, where the browser goes (http://localhost:PORT). */
  let base: string;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;
  let ownerLink: string;
  let defaultOrgId: string;
  /** The default organization's test owner key: test-mode audit entries are read in test mode. */
  let ownerTestKey: string;
  let e2e: E2eBrowser;
  let owner: Page;
  let devCtx: BrowserContext;
  let dev: Page;
  let devKey: string;
  let devMemberId: string;
  let ownerMemberId: string;
  let second: TestOrg;
  const axeFound: string[] = [];
  const api = () => client(s.url);

  const heading = (p: Page) => p.locator('#page-title');
  const shot = (p: Page, name: string) => screenshot(p, `people-${name}`);

  /** axe-core on the page as it is, in the light and the dark scheme; what it finds is checked at the end and in each step. */
  async function axeBothSchemes(p: Page, label: string): Promise<string[]> {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme });
      found.push(...(await seriousViolations(p)).map((v) => `${colorScheme} ${label}: ${v}`));
    }
    await p.emulateMedia({ colorScheme: 'light' });
    axeFound.push(...found);
    return found;
  }

  /** GET through the page's own session cookie, as the dashboard calls the API. */
  const inPage = <T = any>(p: Page, path: string) =>
    p.evaluate(async (u) => {
      const r = await fetch(u, { credentials: 'same-origin' });
      return { status: r.status, body: (await r.json()) as unknown };
    }, path) as Promise<{ status: number; body: T }>;

  beforeAll(async () => {
    expect(await ensureDashboardBuilt({ quiet: true })).not.toBe('unavailable');
    smtp = await startSmtpCapture();
    s = await startTestServer('pglite', {
      MMGEN_SMTP_URL: smtp.url,
      MMGEN_MAIL_FROM: 'mmgen <mmgen@example.test>',
      // The OpenID provider is on loopback over http: allowed only because private networks are allowed here.
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
    }, { publicHost: 'localhost' });
    base = s.config.publicUrl;
    expect(base).toMatch(/^http:\/\/localhost:\d+$/);
    // What `mmgen serve` does on its first start against an empty database (src/cli.ts prints this link).
    const created = await bootstrapDefaultOrganization(s.runtime.deps);
    expect(created).not.toBeNull();
    ownerLink = created!.ownerLink;
    defaultOrgId = created!.organization.id;
    ownerTestKey = created!.keys.test;
    idp = await startOidcProvider({ clientId: 'mmgen-second', clientSecret: 'loopback secret', redirectUri: `${base}/v1/sso/callback` });
    idp.people.set('u-ada', { sub: 'u-ada', email: 'ada@second.test', email_verified: true, name: 'Ada Second' });
    // A refused request is the browser's console error too; the walk makes some on purpose (a removed member's).
    e2e = await openBrowser({ ignore: /Failed to load resource: the server responded with a status of (401|403|404)/ });
    owner = await e2e.newPage('owner');
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await s?.close();
    await idp?.close();
    await smtp?.close();
  });

  it('the first-start link creates the owner, who lands signed in by session (no key in the tab)', async () => {
    expect(ownerLink).toMatch(new RegExp(`^${base}/dashboard/accept-invitation#token=[0-9A-Za-z]+$`));
    await owner.goto(ownerLink);
    await expect.poll(() => heading(owner).textContent()).toBe('Accept the invitation');
    // The token is taken out of the address bar once read.
    expect(owner.url()).toBe(`${base}/dashboard/accept-invitation`);
    await owner.locator('#accept-name').fill(OWNER.name);
    await owner.locator('#accept-email').fill(OWNER.email);
    await owner.locator('#accept-password').fill(OWNER.password);
    await owner.locator('#accept-confirm').fill(OWNER.password);
    expect(await axeBothSchemes(owner, 'accept-invitation')).toEqual([]);
    await shot(owner, 'accept-invitation');
    await owner.getByRole('button', { name: 'Accept and sign in' }).click();
    await expect.poll(() => heading(owner).textContent(), { timeout: 15_000 }).toBe('Overview');
    await expect.poll(() => owner.getByTestId('caller').textContent()).toContain(OWNER.email);
    expect(await owner.getByTestId('caller').textContent()).toContain('owner');
    expect(await owner.evaluate("sessionStorage.getItem('mmgen.apiKey')")).toBeNull();
    const session = await inPage(owner, '/v1/session');
    expect(session.body).toMatchObject({ organization_id: defaultOrgId, role: 'owner', method: 'invitation', account: { email: OWNER.email } });
    ownerMemberId = session.body.member_id;
    // The session cookie is HttpOnly: no script of the page can read it.
    expect(await owner.evaluate('document.cookie')).not.toContain('mmgen_session');
    // The link works once.
    const again = await api()('POST', '/v1/invitations/accept', { body: { token: new URL(ownerLink).hash.slice('#token='.length), email: 'x@y.test', password: 'another password' } });
    expect(again.status).toBe(410);
  });

  it('a signed-out visitor sees the sign-in page, which passes axe; a wrong password is refused', async () => {
    const p = await e2e.newPage('signed-out');
    const ctx = p.context();
    await p.goto(`${base}/dashboard/`);
    await expect.poll(() => heading(p).textContent()).toBe('Sign in');
    await submitPassword(p, OWNER.email, 'not the password');
    await p.getByText('Could not sign in').waitFor();
    expect(await axeBothSchemes(p, 'sign-in')).toEqual([]);
    await shot(p, 'sign-in');
    // The right password signs in; signing out ends the server's session, not just the tab's.
    await submitPassword(p, OWNER.email, OWNER.password);
    await expect.poll(() => heading(p).textContent(), { timeout: 15_000 }).toBe('Overview');
    const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await api()('GET', '/v1/session', { headers: { cookie } })).status).toBe(200);
    // The Account page lists the person's sessions; ending another one refuses its cookie from the next request.
    const elsewhere = await api()('POST', '/v1/session', { body: { email: OWNER.email, password: OWNER.password } });
    expect(elsewhere.status).toBe(201);
    const elsewhereCookie = elsewhere.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    await openFromSidebar(p, '/account');
    const row = p.locator(`[data-session-id="${elsewhere.body.id}"]`);
    await row.waitFor();
    expect(await p.getByTestId('sessions-table').getByText('this one').count()).toBe(1);
    expect(await axeBothSchemes(p, 'account')).toEqual([]);
    await shot(p, 'account');
    await row.getByRole('button', { name: /^End the session/ }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api()('GET', '/v1/session', { headers: { cookie: elsewhereCookie } })).status).toBe(401);
    await p.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => heading(p).textContent()).toBe('Sign in');
    const after = await api()('GET', '/v1/session', { headers: { cookie } });
    expect(after.status).toBe(401);
    await ctx.close();
  }, 60_000);

  it('the owner invites a developer by email; the link comes from the captured mail', async () => {
    await openFromSidebar(owner, '/members');
    await owner.getByTestId('members-table').waitFor();
    expect(await owner.getByTestId('members-table').textContent()).toContain(OWNER.email);
    await owner.locator('#invite-email').fill(DEV.email);
    await owner.locator('#invite-role').selectOption('developer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    const created = owner.getByTestId('invitation-created');
    await created.waitFor();
    expect(await created.textContent()).toContain('The invitation was mailed.');
    await owner.getByTestId('invitations-table').getByText(DEV.email).waitFor();
    const mail = smtp.mails.find((m) => m.to.includes(DEV.email));
    expect(mail).toBeDefined();
    const link = linkInMail(mail!);
    expect(link).toBe(await owner.locator('#invite-link').inputValue());
    expect(await axeBothSchemes(owner, 'members (owner)')).toEqual([]);
    await shot(owner, 'members-owner');

    dev = await e2e.newPage('developer');
    devCtx = dev.context();
    await dev.goto(link!);
    await expect.poll(() => heading(dev).textContent()).toBe('Accept the invitation');
    await dev.locator('#accept-name').fill(DEV.name);
    await dev.locator('#accept-password').fill(DEV.password);
    await dev.locator('#accept-confirm').fill(DEV.password);
    await dev.getByRole('button', { name: 'Accept and sign in' }).click();
    await expect.poll(() => heading(dev).textContent(), { timeout: 15_000 }).toBe('Overview');
    const session = await inPage(dev, '/v1/session');
    expect(session.body).toMatchObject({ organization_id: defaultOrgId, role: 'developer', account: { email: DEV.email } });
    devMemberId = session.body.member_id;
  }, 60_000);

  it('the developer adds a passkey on the Account page, signs out and signs in with the passkey', async () => {
    // The password set on accepting signs in (outside the browser: the tab's session stays as it is).
    expect((await api()('POST', '/v1/session', { body: { email: DEV.email, password: DEV.password } })).status).toBe(201);
    const authenticator = await addVirtualAuthenticator(dev);
    await openFromSidebar(dev, '/account');
    const { rows, credential } = await addPasskeyOnAccountPage(dev, authenticator, 'Dev laptop');
    expect(await axeBothSchemes(dev, 'account with passkeys')).toEqual([]);
    await shot(dev, 'account-passkeys');

    await dev.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => heading(dev).textContent()).toBe('Sign in');
    expect((await devCtx.cookies(base)).find((c) => c.name === 'mmgen_session')).toBeUndefined();
    // The session provider opens the person's session in place, as after a password: the page is not reloaded.
    await dev.evaluate('window.notReloaded = true');
    await dev.locator('#passkey-sign-in').click();
    await expect.poll(() => heading(dev).textContent(), { timeout: 15_000 }).toBe('Account');
    expect(await dev.evaluate('window.notReloaded')).toBe(true);
    await expect.poll(() => dev.getByTestId('caller').textContent()).toContain(DEV.email);
    expect(await dev.getByTestId('caller').textContent()).toContain('developer');
    expect(await dev.evaluate("sessionStorage.getItem('mmgen.apiKey')")).toBeNull();
    expect((await inPage(dev, '/v1/session')).body).toMatchObject({ organization_id: defaultOrgId, role: 'developer', method: 'passkey', member_id: devMemberId });
    // The authenticator signed (its counter moved), and the server saw the passkey used.
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(credential.signCount);
    await expect.poll(() => rows.first().textContent()).not.toMatch(/never/);
  }, 60_000);

  it("the developer creates a key, which has the developer's role", async () => {
    // Test mode: the key's generations run on the simulator and cost nothing.
    await dev.getByRole('button', { name: 'Switch to test mode' }).click();
    await dev.getByTestId('test-banner').waitFor();
    await openFromSidebar(dev, '/api-keys');
    // A developer's session may make keys (x-mmgen-session-role), as a developer key may not.
    await dev.getByRole('button', { name: 'Create key' }).click();
    const dialog = dev.locator('dialog[open]');
    await dialog.locator('#key-name').fill('dev laptop');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    devKey = await dialog.getByTestId('secret').inputValue();
    expect(devKey).toMatch(/^sk_test_/);
    await dialog.getByRole('button', { name: 'Done' }).click().catch(() => undefined);
    expect((await api()('GET', '/v1/api-keys/current', { key: devKey })).body).toMatchObject({ role: 'developer', effective_role: 'developer' });
    const made = await api()('POST', '/v1/images', { key: devKey, body: IMAGE });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    // The developer's role shows in the dashboard: Members lists, but invites and role changes are not offered.
    await openFromSidebar(dev, '/members');
    await dev.getByTestId('members-table').waitFor();
    expect(await dev.locator('#invite-email').count()).toBe(0);
    expect(await dev.locator(`#role-${ownerMemberId}`).count()).toBe(0);
    expect(await dev.getByRole('button', { name: `Remove ${OWNER.name}` }).isDisabled()).toBe(true);
    expect(await axeBothSchemes(dev, 'members (developer)')).toEqual([]);
    await shot(dev, 'members-developer');
  }, 60_000);

  it("the owner sets the developer's monthly budget on the Members page; the developer cannot", async () => {
    // The developer's page offers no budget changes (the server would answer 403 insufficient_role), theirs or anyone's.
    expect(await dev.getByTestId('members-table').textContent()).toMatch(/no budget/);
    expect(await dev.getByRole('button', { name: /^Budget of / }).count()).toBe(0);
    await owner.reload();
    await owner.getByTestId('members-table').waitFor();
    const spend = owner.locator(`tr[data-member-id="${devMemberId}"] [data-testid="member-spend"]`);
    expect(await spend.textContent()).toMatch(/no budget/);
    await owner.getByRole('button', { name: `Budget of ${DEV.name}` }).click();
    const dialog = owner.locator('dialog[open]');
    // Whole cents, as the API's schema says: refused before anything is sent.
    await dialog.locator('#member-budget').fill('1.234');
    await dialog.getByRole('button', { name: 'Save budget' }).click();
    await dialog.locator('#member-budget-error').waitFor();
    await dialog.locator('#member-budget').fill('25');
    await dialog.locator('#member-budget-action').selectOption('block');
    expect(await axeBothSchemes(owner, 'member budget dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Save budget' }).click();
    await owner.getByText(`Saved the monthly budget of ${DEV.name}.`).waitFor();
    // The spend (the server's; the developer's key is a test key, which never spends) against the budget.
    await expect.poll(() => spend.textContent()).toMatch(/^\$0\.00.*\/ \$25\.00.*blocks/);
    expect((await inPage(owner, `/v1/members/${devMemberId}`)).body).toMatchObject({ monthly_budget_usd: 25, budget_action: 'block', spent_usd: 0 });
    await shot(owner, 'members-budget');
  }, 60_000);

  it('the owner demotes the developer to viewer, and the key can no longer generate', async () => {
    await owner.reload();
    await owner.getByTestId('members-table').waitFor();
    await owner.locator(`#role-${devMemberId}`).selectOption('viewer');
    await owner.getByText(`${DEV.name} is now viewer.`).waitFor();
    const refused = await api()('POST', '/v1/images', { key: devKey, body: IMAGE });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'insufficient_role']);
    // The developer's own dashboard now offers no key creation.
    await dev.reload();
    await openFromSidebar(dev, '/api-keys');
    expect(await dev.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
  }, 60_000);

  it('the owner removes the developer, and the key gets 401 on its next request; their session ends', async () => {
    await owner.getByRole('button', { name: `Remove ${DEV.name}` }).click();
    await owner.locator('dialog[open]').getByRole('button', { name: 'Remove member' }).click();
    await owner.getByText(`Removed ${DEV.name}`).waitFor();
    // The notice comes with the answer; the table follows when the list is read again (CI once read it in between).
    await expect.poll(() => owner.getByTestId('members-table').textContent(), { timeout: 15_000 }).not.toContain(DEV.email);
    const gone = await api()('POST', '/v1/images', { key: devKey, body: IMAGE });
    expect([gone.status, gone.body.error?.code]).toEqual([401, 'invalid_api_key']);
    await dev.reload();
    await expect.poll(() => heading(dev).textContent(), { timeout: 15_000 }).toBe('Sign in');
    await devCtx.close();
  }, 60_000);

  it('a second organization turns on OIDC; a new person signs in through the provider and lands with the configured role', async () => {
    second = await s.createOrg({ name: 'Second Org' });
    // Its owner signs in with the owner key the operator made (the secondary way in) and turns SSO on.
    const p = await e2e.newPage('second owner');
    await signInWithKey(p, base, second.live, 'button');
    await openFromSidebar(p, '/members');
    const sso = p.getByTestId('sso-section');
    await sso.locator('#sso-issuer').fill(idp.issuer);
    await sso.locator('#sso-client-id').fill('mmgen-second');
    await sso.locator('#sso-client-secret').fill('loopback secret');
    await sso.locator('#sso-domains').fill('second.test');
    await sso.locator('#sso-role').selectOption('developer');
    expect(await axeBothSchemes(p, 'sso form')).toEqual([]);
    await sso.getByRole('button', { name: 'Turn on single sign-on' }).click();
    await sso.getByText(`${base}/v1/sso/callback`).waitFor();
    const link = await sso.locator('#sso-link').inputValue();
    expect(link).toBe(`${base}/dashboard/?sso=${second.id}`);
    expect(await axeBothSchemes(p, 'sso settings')).toEqual([]);
    await shot(p, 'sso-settings');
    await p.context().close();

    const ada = await e2e.newPage('sso person');
    idp.loginAs.sub = 'u-ada';
    await ada.goto(link);
    expect(await ada.locator('#signin-sso-org').inputValue()).toBe(second.id);
    await ada.getByRole('button', { name: 'Sign in with SSO' }).click();
    // Through the provider (its login and consent answer for u-ada) and back through /v1/sso/callback.
    await ada.waitForURL((u) => u.href === `${base}/dashboard/`, { timeout: 20_000 });
    await expect.poll(() => heading(ada).textContent(), { timeout: 15_000 }).toBe('Overview');
    await expect.poll(() => ada.getByTestId('caller').textContent()).toContain('ada@second.test');
    expect(await ada.getByTestId('caller').textContent()).toContain('developer');
    const session = await inPage(ada, '/v1/session');
    expect(session.body).toMatchObject({ organization_id: second.id, role: 'developer', method: 'sso', account: { email: 'ada@second.test' } });
    await ada.context().close();
  }, 90_000);

  it('the audit log shows every step, with its actor and before and after', async () => {
    // Read by the owner's session, as the dashboard reads it.
    const events = (await inPage<{ data: any[] }>(owner, '/v1/audit-events?limit=100')).body.data;
    const one = (action: string, targetId: string) => {
      const found = events.filter((e) => e.action === action && e.target.id === targetId);
      expect(found, `${action} ${targetId}`).toHaveLength(1);
      expect(found[0].request_id).toBeTruthy();
      return found[0];
    };
    const member = (id: string) => ({ type: 'member', id });
    expect(one('member.added', ownerMemberId)).toMatchObject({ actor: member(ownerMemberId), before: null, after: { role: 'owner', via: 'owner_link' } });
    const invited = events.find((e) => e.action === 'invitation.created' && e.after?.email === DEV.email);
    expect(invited).toMatchObject({ actor: member(ownerMemberId), before: null, after: { email: DEV.email, role: 'developer' } });
    expect(one('invitation.accepted', invited.target.id)).toMatchObject({ actor: member(devMemberId) });
    expect(one('member.added', devMemberId)).toMatchObject({ actor: member(devMemberId), before: null, after: { role: 'developer', via: 'invitation' } });
    // The developer made the key in a test-mode session: its entry is test mode's, read in test mode only.
    expect(events.find((e) => e.action === 'api_key.created' && e.after?.name === 'dev laptop')).toBeUndefined();
    const testEvents = (await api()('GET', '/v1/audit-events?limit=100', { key: ownerTestKey })).body.data as any[];
    const keyCreated = testEvents.find((e) => e.action === 'api_key.created' && e.after?.name === 'dev laptop');
    expect(keyCreated).toMatchObject({ actor: member(devMemberId), before: null, after: { role: 'developer' } });
    expect(one('member.budget_updated', devMemberId)).toMatchObject({
      actor: member(ownerMemberId), before: { monthly_budget_usd: null, budget_action: 'notify' }, after: { monthly_budget_usd: 25, budget_action: 'block' },
    });
    expect(one('member.role_changed', devMemberId)).toMatchObject({ actor: member(ownerMemberId), before: { role: 'developer' }, after: { role: 'viewer' } });
    expect(one('member.removed', devMemberId)).toMatchObject({ actor: member(ownerMemberId), before: { role: 'viewer' }, after: { removed: true } });
    expect(one('member.removed', devMemberId).after.revoked_keys).toBeGreaterThanOrEqual(1);
    // The developer's passkey (never its key material) and their sign-ins: the password outside the browser, the passkey in it.
    const added = events.filter((e) => e.action === 'passkey.added' && e.actor.id === devMemberId);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ actor: member(devMemberId), target: { type: 'passkey' }, before: null, after: { name: 'Dev laptop' } });
    expect(JSON.stringify(added[0])).not.toMatch(/public_key|credential_id/);
    const devSignIns = events.filter((e) => e.action === 'sign_in.succeeded' && e.actor.id === devMemberId);
    expect(devSignIns.map((e) => e.after.method)).toEqual(expect.arrayContaining(['password', 'passkey']));
    expect(devSignIns.find((e) => e.after.method === 'passkey')).toMatchObject({ target: { type: 'account' }, before: null, request_id: expect.any(String) });

    // The second organization's log: SSO turned on by its owner key (never the secret), the new person's arrival.
    const second_ = (await api()('GET', '/v1/audit-events?limit=100', { key: second.live })).body.data as any[];
    expect(second_.find((e) => e.action === 'sso.settings_changed')).toMatchObject({
      actor: { type: 'api_key' }, before: null, after: { issuer: idp.issuer, auto_join_role: 'developer', has_client_secret: true },
    });
    expect(JSON.stringify(second_)).not.toContain('loopback secret');
    const ada = second_.find((e) => e.action === 'member.added' && e.after?.via === 'sso');
    expect(ada).toMatchObject({ actor: { type: 'member' }, before: null, after: { role: 'developer', via: 'sso' } });
    expect(second_.some((e) => e.action === 'sign_in.succeeded' && e.actor.id === ada.actor.id)).toBe(true);
  });

  it('no page logged an error, and axe found nothing serious or critical on any new page', () => {
    expect(axeFound).toEqual([]);
    expect(e2e.consoleErrors).toEqual([]);
  });
});
