import { expect } from 'vitest';
import type { Queryable } from '../../src/store/db.js';

export interface WalletAndLedger {
  balance: number;
  held: number;
  /** The sums of the organization's ledger rows. */
  ledgerBalance: number;
  ledgerHeld: number;
}

/**
 * An organization's wallet and its ledger sums, read in one statement so
 * both come from one snapshot: a worker finishing a generation between two
 * separate reads would make them differ for no fault of the books.
 */
export async function walletAndLedger(q: Queryable, organizationId: string): Promise<WalletAndLedger> {
  const r = await q.query<{ balance_credits: number; held_credits: number; b: number; h: number }>(
    // The wallet as mmgen reads it: its row plus its pending settlements (src/domain/credits.ts).
    `SELECT w.balance_credits + (SELECT coalesce(sum(balance_delta), 0)::bigint FROM wallet_pending WHERE organization_id = w.organization_id) AS balance_credits,
       w.held_credits + (SELECT coalesce(sum(held_delta), 0)::bigint FROM wallet_pending WHERE organization_id = w.organization_id) AS held_credits,
       (SELECT coalesce(sum(balance_delta), 0)::bigint FROM ledger_entries WHERE organization_id = w.organization_id) AS b,
       (SELECT coalesce(sum(held_delta), 0)::bigint FROM ledger_entries WHERE organization_id = w.organization_id) AS h
     FROM wallets w WHERE w.organization_id = $1`,
    [organizationId],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`no wallet for ${organizationId}`);
  return { balance: Number(row.balance_credits), held: Number(row.held_credits), ledgerBalance: Number(row.b), ledgerHeld: Number(row.h) };
}

/** Asserts that an organization's wallet equals its ledger sums, read in one snapshot; returns both. */
export async function expectWalletMatchesLedger(q: Queryable, organizationId: string): Promise<WalletAndLedger> {
  const w = await walletAndLedger(q, organizationId);
  expect({ balance: w.ledgerBalance, held: w.ledgerHeld }).toEqual({ balance: w.balance, held: w.held });
  return w;
}
