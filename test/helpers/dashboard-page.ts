import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Collects what the page logs as an error, and what it throws uncaught, into `into` (labelled, so a failure names
 * the page). `ignore`: console errors a test causes on purpose (the browser logs every refused request).
 */
export function watchConsole(p: Page, label: string, into: string[], ignore?: RegExp): Page {
  p.on('console', (m) => {
    if (m.type() === 'error' && !ignore?.test(m.text())) into.push(`[${label}] ${m.text()} (${m.location().url})`);
  });
  p.on('pageerror', (e) => into.push(`[${label}] uncaught: ${e.message}`));
  return p;
}

/** Signs the page in with an API key through the dashboard's sign-in form, and waits for the Overview. */
export async function signInWithKey(p: Page, baseUrl: string, key: string): Promise<void> {
  await p.goto(`${baseUrl}/dashboard/`);
  await p.locator('#api-key').fill(key);
  await p.keyboard.press('Enter');
  await expect.poll(() => p.locator('#page-title').textContent(), { timeout: 10_000 }).toBe('Overview');
}
