import { expect } from 'vitest';
import type { client } from './server.js';

/** Helpers the generation suites share. */
type Api = ReturnType<typeof client>;

/** Polls GET /v1/generations/{id} until the generation is terminal. */
export async function waitTerminal(api: Api, key: string, id: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/generations/${id}`, { key });
    expect(res.status).toBe(200);
    if (['succeeded', 'failed', 'canceled'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`generation ${id} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** The bytes behind a (signed) output URL. */
export async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Contract §4: on every terminal generation, reserved = charged + refunded. */
export function expectInvariant(g: { reserved_credits: number; charged_credits: number; refunded_credits: number }): void {
  expect(g.reserved_credits).toBe(g.charged_credits + g.refunded_credits);
}
