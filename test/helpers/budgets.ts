import { expect } from 'vitest';
import type { TestServer } from './server.js';

/**
 * What the budget tests measure budgets with, on the server `server()` gives (set in a beforeAll): the dearest image
 * model and its price, the smallest whole-cent budget in which exactly `k` of its images fit, and an organization's
 * live generations counted in the database.
 */
export function budgetYardsticks(server: () => TestServer) {
  /** The dearest image model and its price in credits per image. */
  const image = () => {
    const m = server().runtime.deps.catalog.list({ modality: 'image' }).sort((a, b) => b.pricing.unit_cost_usd - a.pricing.unit_cost_usd)[0]!;
    return { slug: m.slug, credits: Math.ceil(m.pricing.unit_cost_usd / 0.001 - 1e-9) };
  };
  /** The smallest whole-cent budget in which exactly `k` images fit. */
  const budgetFor = (k: number) => {
    const { credits } = image();
    expect(credits).toBeGreaterThan(10); // more than a cent: k images fit and k + 1 do not
    return Math.ceil((k * credits) / 10) / 100;
  };
  const generationsOf = async (orgId: string) =>
    Number((await server().db.query<{ n: string }>("SELECT count(*) AS n FROM generations WHERE organization_id = $1 AND mode = 'live'", [orgId])).rows[0]!.n);
  return { image, budgetFor, generationsOf };
}
