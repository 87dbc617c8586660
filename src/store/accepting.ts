import type { Modality } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import { keyUnchangedSql } from './api-keys.js';
import { errorCode, type Queryable } from './db.js';
import { claimHeldSql, claimStillHeld, linkClaimSql, type IdempotencyClaim } from './idempotency.js';

/** What the accepting statement writes: a priced generation, its job and, when it costs credits, its hold. */
export interface Acceptance {
  id: string;
  organizationId: string;
  apiKeyId: string;
  mode: Mode;
  modality: Modality;
  model: string;
  sync: boolean;
  prompt: string | null;
  paramsJson: string;
  price: number;
  /** The version of the model's prices that priced it (billing/pricing.ts, priceVersion). */
  priceVersion: string;
  cacheKey: string | null;
  provider: string;
  resultJson: string | null;
  comparisonId: string | null;
  /** The node that runs a synchronous generation, holding its job's lease. */
  nodeId: string;
  leaseSeconds: number;
  /** A key from a node's cache: nothing is written unless the key still has this fingerprint. */
  keyFingerprint?: string | undefined;
  /** The request's Idempotency-Key claim: the generation is written with it, and only while the request still holds it. */
  claim?: IdempotencyClaim | undefined;
}

export type AcceptOutcome =
  | { written: true; createdAt: Date; walletFree: number | null }
  | { written: false; reason: 'insufficient_credits' | 'key_changed' | 'claim_lost' | 'not_written' };

/** What the accepting statement's text depends on: sixteen texts at most, each built once. */
interface AcceptShape {
  confirmKey: boolean;
  claim: boolean;
  sync: boolean;
  charged: boolean;
}

const acceptTexts = new Map<string, string>();

/** The accepting statement for a shape; its parameters are $1–$17, then the fingerprint, then the claim's three. */
function acceptSql(shape: AcceptShape): string {
  const cacheKey = `${+shape.confirmKey}${+shape.claim}${+shape.sync}${+shape.charged}`;
  const known = acceptTexts.get(cacheKey);
  if (known) return known;
  let next = 17;
  const param = (): string => `$${++next}`;
  const checks: string[] = [];
  const gates: string[] = [];
  if (shape.confirmKey) {
    checks.push(`k AS (${keyUnchangedSql('$3', param())}),`);
    gates.push('EXISTS (SELECT 1 FROM k)');
  }
  // The Idempotency-Key and the generation are one fact: the claim names the generation in this statement, and a
  // request whose claim was taken over (its node was judged dead) accepts nothing.
  let link = '';
  if (shape.claim) {
    const claim = [param(), param(), param()] as const;
    checks.push(`ic AS (${claimHeldSql(...claim)}),`);
    gates.push('EXISTS (SELECT 1 FROM ic)');
    link = `, ik AS (${linkClaimSql('$1', ...claim, 'EXISTS (SELECT 1 FROM g)')})`;
  }
  const keyCheck = checks.join('\n       ');
  // A synchronous generation's acceptance does not wait for its WAL flush: an image or voice answer follows the
  // finishing statement, a synchronous commit that makes it durable too; a chat answer follows the provider's. A
  // PostgreSQL crash in that window loses the acceptance with its uncharged hold (for chat, an answer the caller is
  // never charged for); docs/contract-addenda.md ("Durability of a synchronous acceptance").
  if (shape.sync) gates.push(`set_config('synchronous_commit', 'off', true) IS NOT NULL`);
  const keyGate = gates.length > 0 ? `WHERE ${gates.join(' AND ')}` : '';
  // Every accept of an organization takes its wallet row, which stays locked until the commit: so it is taken last,
  // once the generation, job and ledger rows are written (the conditions on j and l make them run first). If the
  // wallet cannot cover the hold, mmgen_require fails the statement (SQLSTATE MM402) and everything is rolled back.
  const reserve = shape.charged
    ? `, l AS (INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
             SELECT $2, 'reserve', 0, $11, $1 || '#1', $1, $3, $6, $5 FROM g RETURNING id),
       w AS (UPDATE wallets SET held_credits = held_credits + $11, updated_at = now()
             WHERE organization_id = $2 AND balance_credits - held_credits >= $11
               AND EXISTS (SELECT 1 FROM j) AND EXISTS (SELECT 1 FROM l) RETURNING balance_credits - held_credits AS free)`
    : '';
  const covered = shape.charged ? `WHERE mmgen_require(EXISTS (SELECT 1 FROM w), 'insufficient credits')` : '';
  const sql = `WITH ${keyCheck}
       g AS (INSERT INTO generations (id, organization_id, api_key_id, mode, modality, model, status, sync, prompt, params,
               price_credits, reserved_credits, cache_key, provider, result, comparison_id, started_at, runner_node, price_version)
             SELECT $1, $2, $3, $4, $5, $6, CASE WHEN $7 THEN 'running' ELSE 'queued' END, $7, $8, $9,
               $11, $11, $12, $13, $14, $15, CASE WHEN $7 THEN now() END, CASE WHEN $7 THEN $10 END, $17 ${keyGate}
             RETURNING created_at),
       j AS (INSERT INTO jobs (generation_id, lease_owner, lease_expires_at, run_at)
             SELECT $1, CASE WHEN $7 THEN $10 END, CASE WHEN $7 THEN now() + make_interval(secs => $16) END,
               CASE WHEN $7 THEN now() + make_interval(secs => $16) ELSE now() END FROM g
             RETURNING generation_id)
       ${link}
       ${reserve}
       SELECT g.created_at${shape.charged ? ', (SELECT free FROM w) AS wallet_free' : ''} FROM g ${covered}`;
  acceptTexts.set(cacheKey, sql);
  return sql;
}

/**
 * Accepts a generation in ONE statement (one round trip, one commit): the
 * wallet is debited for the hold only if it covers the price, and the
 * generation, its ledger row and its job are written only if the hold was
 * taken. A synchronous generation starts `running`, its job leased to the
 * given node; should the process die, the lease runs out and a worker
 * finishes it.
 */
export async function reserveAndAccept(q: Queryable, a: Acceptance): Promise<AcceptOutcome> {
  const charged = a.price > 0;
  // A principal from the key cache is confirmed here, in the same snapshot that reserves: nothing is written unless the key is unchanged.
  const fingerprint = a.keyFingerprint;
  const params: unknown[] = [
    a.id, a.organizationId, a.apiKeyId, a.mode, a.modality, a.model, a.sync, a.prompt,
    a.paramsJson, a.nodeId, a.price, a.cacheKey, a.provider, a.resultJson,
    a.comparisonId, a.leaseSeconds, a.priceVersion,
  ];
  if (fingerprint !== undefined) params.push(fingerprint);
  if (a.claim) params.push(a.claim.apiKeyId, a.claim.key, a.claim.requestId);
  const shape: AcceptShape = { confirmKey: fingerprint !== undefined, claim: a.claim !== undefined, sync: a.sync, charged };
  let r: { rows: Array<{ created_at: Date; wallet_free?: number | null }> };
  try {
    r = await q.query(acceptSql(shape), params);
  } catch (err) {
    if (errorCode(err) === 'MM402') return { written: false, reason: 'insufficient_credits' };
    throw err;
  }
  const written = r.rows[0];
  if (written) {
    const free = written.wallet_free === undefined || written.wallet_free === null ? null : Number(written.wallet_free);
    return { written: true, createdAt: written.created_at, walletFree: free };
  }
  // Nothing written and no refusal: the cached key changed or the claim was taken over (a request that still holds
  // both always writes, or fails with MM402). Which one is told apart by a read, on this rare path only.
  if (a.claim && !(await claimStillHeld(q, a.claim))) return { written: false, reason: 'claim_lost' };
  return { written: false, reason: fingerprint !== undefined ? 'key_changed' : 'not_written' };
}
