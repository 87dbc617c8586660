import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { chromium, type Browser, type BrowserContextOptions, type Download, type Page, type Request } from 'playwright-core';
import { expect, inject } from 'vitest';
import { ARTIFACTS_DIR } from './paths.js';

/**
 * What the e2e files share: the run's one Chromium (started by test/helpers/chromium-server.ts, the e2e tier's global
 * setup), pages in contexts of their own whose console errors and uncaught exceptions are collected, the dashboard's
 * ways of signing in, the requests a page sends, and Chromium's virtual authenticator for passkeys.
 */

/** Where the screenshots go (git-ignored). */
export const SCREENSHOTS = join(ARTIFACTS_DIR, 'screenshots');

/** The desktop window every page opens in unless the test asks for another. */
const DESKTOP = { viewport: { width: 1280, height: 800 } } satisfies BrowserContextOptions;

export interface E2eBrowser {
  browser: Browser;
  /** Each watched page's console errors and uncaught exceptions, labelled; a test checks it stays empty. */
  consoleErrors: string[];
  /** A page in a new context (a browser of its own, as far as cookies and storage go), watched under `label`. */
  newPage(label: string, options?: BrowserContextOptions, ignore?: RegExp): Promise<Page>;
  /** Watches a page opened some other way (another tab of a context) under `label`. */
  watch(p: Page, label: string, ignore?: RegExp): Page;
  /** Closes this file's contexts and disconnects; the run's browser stays up for the other files. */
  close(): Promise<void>;
}

/**
 * Connects to the run's Chromium. `ignore`: console errors that every page of the file causes on purpose (the browser
 * logs each refused request as one).
 */
export async function openBrowser(options: { ignore?: RegExp } = {}): Promise<E2eBrowser> {
  const wsEndpoint = inject('chromiumWsEndpoint');
  if (!wsEndpoint) throw new Error('no Chromium for this run: the e2e tier (vitest --project e2e) starts it in its global setup');
  const browser = await chromium.connect(wsEndpoint);
  const consoleErrors: string[] = [];
  const watch = (p: Page, label: string, ignore = options.ignore) => watchConsole(p, label, consoleErrors, ignore);
  return {
    browser,
    consoleErrors,
    watch,
    newPage: async (label, contextOptions, ignore) => watch(await (await browser.newContext({ ...DESKTOP, ...contextOptions })).newPage(), label, ignore),
    close: () => browser.close(),
  };
}

/**
 * Collects what the page logs as an error, and what it throws uncaught, into `into` (labelled, so a failure names
 * the page). `ignore`: console errors a test causes on purpose.
 */
function watchConsole(p: Page, label: string, into: string[], ignore?: RegExp): Page {
  p.on('console', (m) => {
    if (m.type() === 'error' && !ignore?.test(m.text())) into.push(`[${label}] ${m.text()} (${m.location().url})`);
  });
  p.on('pageerror', (e) => into.push(`[${label}] uncaught: ${e.message}`));
  return p;
}

/**
 * Each request the page sends from now on that `pick` describes (those it returns undefined for are left out), in
 * the order sent.
 */
export function watchRequests(p: Page, pick: (req: Request) => string | undefined): string[] {
  const seen: string[] = [];
  p.on('request', (req) => {
    const described = pick(req);
    if (described !== undefined) seen.push(described);
  });
  return seen;
}

/**
 * Signs the page in with an API key through the dashboard's sign-in form, and waits for the Overview. `submit`: the
 * Enter key (default) or the form's button.
 */
export async function signInWithKey(p: Page, baseUrl: string, key: string, submit: 'enter' | 'button' = 'enter'): Promise<void> {
  await p.goto(`${baseUrl}/dashboard/`);
  await p.locator('#api-key').fill(key);
  if (submit === 'enter') await p.keyboard.press('Enter');
  else await p.getByRole('button', { name: 'Sign in with the key' }).click();
  await expect.poll(() => p.locator('#page-title').textContent(), { timeout: 15_000 }).toBe('Overview');
}

/** Fills the sign-in page's email and password and submits them; what follows (a session, a second factor, a refusal) is the test's. */
export async function submitPassword(p: Page, email: string, password: string): Promise<void> {
  await p.locator('#signin-email').fill(email);
  await p.locator('#signin-password').fill(password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs the operator's sign-in page (already open) in with the operator token, and waits for the Operator page. */
export async function signInAsOperator(p: Page, token: string): Promise<void> {
  await p.locator('#operator-token').fill(token);
  await p.keyboard.press('Enter');
  await expect.poll(() => p.locator('#page-title').textContent(), { timeout: 15_000 }).toBe('Operator');
}

/** Opens a dashboard page from the sidebar, as a person does, and waits for its heading. */
export async function openFromSidebar(p: Page, path: string): Promise<void> {
  await p.locator(`#sidebar a[href="/dashboard${path}"]`).click();
  await p.waitForURL((u) => u.pathname === `/dashboard${path}`);
  await p.locator('#page-title').waitFor();
}

/** A full-page screenshot into test/.artifacts/screenshots/`name`.png. */
export async function screenshot(p: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await p.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A download's content as text. Through the stream: a connected browser's downloads have no local path. */
export async function downloadedText(download: Download): Promise<string> {
  return text(await download.createReadStream());
}

/**
 * Chromium's virtual authenticator (DevTools protocol, WebAuthn domain) in one page: a platform authenticator with
 * user verification and discoverable credentials, as a laptop's, that answers the page's navigator.credentials calls
 * without a person.
 */
export async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    /** What the authenticator holds now (its counter moves with each signature). */
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

export type VirtualAuthenticator = Awaited<ReturnType<typeof addVirtualAuthenticator>>;

/**
 * Adds a passkey on the dashboard's Account page (already open, with none yet) and checks that the page lists it,
 * unused, and that the authenticator holds one discoverable credential for the relying party `localhost`.
 * Returns the table's rows and that credential.
 */
export async function addPasskeyOnAccountPage(page: Page, authenticator: VirtualAuthenticator, name: string) {
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
