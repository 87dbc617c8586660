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

/** Every generation of the key's organization and mode, each read on its own (a GET waits for a reply's settlement on this node). */
export async function generationsOf(api: Api, key: string): Promise<any[]> {
  const list = await api('GET', '/v1/generations?limit=100', { key });
  expect(list.status).toBe(200);
  const rows = [];
  for (const { id } of list.body.data as Array<{ id: string }>) rows.push((await api('GET', `/v1/generations/${id}`, { key })).body);
  return rows;
}

/**
 * The wallet, which held `credits` at first, moved by exactly what the organization's `count` generations (all
 * succeeded chats, each charged) were charged, and holds nothing more; returns them.
 */
export async function expectChatsChargedExactly(api: Api, key: string, credits: number, count: number): Promise<any[]> {
  const gens = await generationsOf(api, key);
  expect(gens).toHaveLength(count);
  for (const g of gens) {
    expect(g).toMatchObject({ status: 'succeeded', modality: 'chat' });
    expectInvariant(g);
    expect(g.charged_credits).toBeGreaterThan(0);
  }
  const wallet = (await api('GET', '/v1/wallet', { key })).body;
  expect(wallet.held_credits).toBe(0);
  expect(credits - wallet.balance_credits).toBe(gens.reduce((sum, g) => sum + g.charged_credits, 0));
  return gens;
}
