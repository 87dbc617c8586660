import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM_ARGS, resolveChromium } from './chromium.js';

/**
 * Chromium's virtual authenticator (DevTools protocol, WebAuthn domain) in one page, for the browser tests: a
 * platform authenticator with user verification and discoverable credentials, as a laptop's, that answers the
 * page's navigator.credentials calls without a person.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    /** What the authenticator holds now (its counter moves with each signature). */
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

/**
 * Headless Chromium with one 1100×800 page and a virtual authenticator in it, the page's console errors and uncaught
 * exceptions pushed to `consoleErrors` (a test checks it stays empty): the passkey tests' browser.
 */
export async function launchWithAuthenticator(consoleErrors: string[]) {
  const found = await resolveChromium();
  const browser = await chromium.launch({ executablePath: found.executablePath, args: CHROMIUM_ARGS, env: { ...process.env, ...found.env } });
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
  const authenticator = await addVirtualAuthenticator(context, page);
  return { browser, context, page, authenticator };
}

/**
 * Adds a passkey on the dashboard's Account page (already open, with none yet) and checks that the page lists it,
 * unused, and that the authenticator holds one discoverable credential for the relying party `localhost`.
 * Returns the table's rows and that credential.
 */
export async function addPasskeyOnAccountPage(page: Page, authenticator: Awaited<ReturnType<typeof addVirtualAuthenticator>>, name: string) {
  expect(await page.evaluate('window.isSecureContext')).toBe(true);
  await page.locator('#no-passkeys').waitFor();
  await page.locator('#passkey-name').fill(name);
  await page.locator('#add-passkey').click();
  const rows = page.getByTestId('passkeys-table').locator('tbody tr');
  await expect.poll(() => rows.allTextContents(), { timeout: 10_000 }).toEqual([expect.stringMatching(new RegExp(`^${name}.*never`))]);
  const credentials = await authenticator.credentials();
  expect(credentials).toHaveLength(1);
  expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });
  return { rows, credential: credentials[0]! };
}
