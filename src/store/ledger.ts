import type { Queryable } from './db.js';

/** Credits as the database holds them: a wallet row, or the ledger's sums. */
export interface WalletRow {
  balance_credits: number;
  held_credits: number;
}

export type LedgerKind = 'topup' | 'reserve' | 'charge' | 'release' | 'adjustment';

/** What a ledger row records besides its kind and deltas; `reference` is unique per kind. */
export interface LedgerEntry {
  organizationId: string;
  reference: string;
  generationId?: string | null;
  apiKeyId?: string | null;
  model?: string | null;
  modality?: string | null;
  note?: string | null;
}

/** The wallet row plus its pending settlements, from one snapshot; undefined if the organization has no wallet row. */
export async function selectWalletWithPending(q: Queryable, organizationId: string): Promise<WalletRow | undefined> {
  const r = await q.query<WalletRow>(
    `SELECT w.balance_credits + coalesce(p.b, 0)::bigint AS balance_credits, w.held_credits + coalesce(p.h, 0)::bigint AS held_credits
     FROM wallets w,
       LATERAL (SELECT sum(balance_delta) AS b, sum(held_delta) AS h FROM wallet_pending WHERE organization_id = w.organization_id) p
     WHERE w.organization_id = $1`,
    [organizationId],
  );
  return r.rows[0];
}

/**
 * Deletes an organization's pending settlements and adds them to its wallet
 * row and usage rollups, in one statement; returns how many it applied.
 * Settlers may run concurrently on any node: each pending row is deleted,
 * hence applied, once (a second settler waits on the rows the first holds,
 * then skips them).
 */
export async function applyPendingSettlements(q: Queryable, organizationId: string): Promise<number> {
  const r = await q.query<{ n: number }>(
    // Rows are locked in id order, so two settlers of one organization can never wait on each other in a cycle.
    `WITH p AS (
       DELETE FROM wallet_pending WHERE id IN (SELECT id FROM wallet_pending WHERE organization_id = $1 ORDER BY id FOR UPDATE)
       RETURNING *),
     s AS (SELECT sum(balance_delta) AS b, sum(held_delta) AS h FROM p),
     w AS (
       UPDATE wallets SET balance_credits = balance_credits + s.b, held_credits = held_credits + s.h, updated_at = now()
       FROM s WHERE wallets.organization_id = $1 AND (s.b <> 0 OR s.h <> 0)),
     u AS (
       INSERT INTO usage_rollups AS ur (organization_id, mode, day, model, modality, api_key_id, price_version, generations, charged_credits, refunded_credits)
       SELECT organization_id, mode, day, model, max(modality), api_key_id, price_version, sum(generations), sum(charged_credits), sum(refunded_credits)
       FROM p GROUP BY organization_id, mode, day, model, api_key_id, price_version
       ON CONFLICT (organization_id, mode, day, model, api_key_id, price_version) DO UPDATE SET
         generations = ur.generations + EXCLUDED.generations,
         charged_credits = ur.charged_credits + EXCLUDED.charged_credits,
         refunded_credits = ur.refunded_credits + EXCLUDED.refunded_credits)
     SELECT count(*)::int AS n FROM p`,
    [organizationId],
  );
  return r.rows[0]?.n ?? 0;
}

/** The organizations with pending settlements (for the periodic sweep that covers a process lost before it settled). */
export async function selectOrganizationsWithPending(q: Queryable): Promise<string[]> {
  const r = await q.query<{ organization_id: string }>('SELECT DISTINCT organization_id FROM wallet_pending');
  return r.rows.map((x) => x.organization_id);
}

/** Appends a ledger row; false if one of this kind and reference already exists (the row is then left as it was). */
export async function insertLedgerEntry(
  q: Queryable,
  kind: LedgerKind,
  balanceDelta: number,
  heldDelta: number,
  e: LedgerEntry,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (kind, reference) DO NOTHING RETURNING id`,
    [e.organizationId, kind, balanceDelta, heldDelta, e.reference, e.generationId ?? null, e.apiKeyId ?? null, e.model ?? null, e.modality ?? null, e.note ?? null],
  );
  return r.rowCount === 1;
}

/** An empty wallet row for a new organization. */
export async function insertWallet(q: Queryable, organizationId: string): Promise<void> {
  await q.query('INSERT INTO wallets (organization_id) VALUES ($1)', [organizationId]);
}

/** Adds credits to the wallet row's balance, creating the row if the organization has none. */
export async function addToWalletBalance(q: Queryable, organizationId: string, credits: number): Promise<void> {
  await q.query(
    `INSERT INTO wallets (organization_id, balance_credits) VALUES ($1, $2)
     ON CONFLICT (organization_id) DO UPDATE SET balance_credits = wallets.balance_credits + $2, updated_at = now()`,
    [organizationId, credits],
  );
}

/**
 * Adds `credits` to the wallet row's held credits if they fit in its available
 * credits; false if they do not. The condition and the update are one
 * statement, atomic per row, so concurrent holds can never overdraw the wallet.
 */
export async function holdIfAvailable(q: Queryable, organizationId: string, credits: number): Promise<boolean> {
  const r = await q.query(
    `UPDATE wallets SET held_credits = held_credits + $2, updated_at = now()
     WHERE organization_id = $1 AND balance_credits - held_credits >= $2`,
    [organizationId, credits],
  );
  return r.rowCount === 1;
}

/** The wallet recomputed from the ledger; equal at all times to the wallet row plus its pending settlements. */
export async function sumLedger(q: Queryable, organizationId: string): Promise<WalletRow> {
  const r = await q.query<{ balance: string | null; held: string | null }>(
    'SELECT sum(balance_delta) AS balance, sum(held_delta) AS held FROM ledger_entries WHERE organization_id = $1',
    [organizationId],
  );
  return { balance_credits: Number(r.rows[0]?.balance ?? 0), held_credits: Number(r.rows[0]?.held ?? 0) };
}
