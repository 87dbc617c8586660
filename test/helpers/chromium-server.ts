import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, resolveChromium } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the e2e tier's one Chromium listens (Playwright's protocol): test/helpers/e2e.ts connects to it. */
    chromiumWsEndpoint: string;
  }
}

/**
 * The e2e tier's global setup: one Chromium for the run, which every e2e file connects to and opens its own contexts
 * in (isolated from each other as separate browsers would be: cookies, storage, permissions), instead of each file
 * starting a browser of its own, seconds each on a loaded machine. Closed when the tier's files are done.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const found = await resolveChromium();
  const server = await chromium.launchServer({
    executablePath: found.executablePath,
    args: CHROMIUM_ARGS,
    env: { ...process.env, ...found.env },
    // Loopback only: by default Playwright listens on every interface.
    host: '127.0.0.1',
  });
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return () => server.close();
}
