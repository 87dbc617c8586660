import { USD_PER_CREDIT } from '../billing/credits.js';

/**
 * What a compatible path's answer cost, in a header its clients can read without parsing mmgen's generation
 * (docs/contract-addenda.md, "The cost of a compatible answer"): the credits charged for it, an integer (1 credit =
 * US$0.001). A streamed answer's head is sent before its cost is known; its cost rides in the stream instead.
 */
export const COST_HEADER = 'X-Mmgen-Cost-Credits';

export function costHeaders(g: { charged_credits: number }): Record<string, string> {
  return { [COST_HEADER]: String(g.charged_credits) };
}

/** The charge in US dollars, as OpenRouter's `usage.cost` says it (a number; credits × 0.001, exactly). */
export function costUsd(g: { charged_credits: number }): number {
  return USD_PER_CREDIT.mul(g.charged_credits).toNumber();
}
