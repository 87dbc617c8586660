import { createHash } from 'node:crypto';
import { holdsSecretShape } from '../secret-shapes.js';
import canonicalize from 'canonicalize';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import {
  appendAuditRow,
  lockChainHead,
  selectAuditEvent,
  selectAuditEvents,
  selectChainBatch,
  selectChains,
  type AuditActorType,
  type AuditEventRow,
  type AuditFilter,
} from '../store/audit.js';
import { inTransaction, type Queryable } from '../store/db.js';
import type { Mode, Principal } from './access.js';
import { JSON_LIMITS } from '../json-shape.js';

/**
 * Audit glossary (docs/contract-addenda.md, "The audit log")
 * - entry: one change, append-only: who (actor), when, from where (client address, request id), what (a dotted
 *   action on a target), the target's values before and after (secrets redacted), and the organization.
 * - actor: a member (usr_…), an API key (key_…, with the member it belongs to), the operator (the admin API or
 *   the CLI, by the name they give), or the system (a part of mmgen acting on its own, e.g. the anomaly detector).
 * - chain: the entries of one organization (or of the installation) in order; each stores the previous one's
 *   hash and its own, so a changed or deleted entry breaks the chain from there on.
 */
export type AuditActor =
  | { type: 'member'; id: string }
  | { type: 'api_key'; id: string; user_id: string }
  | { type: 'operator'; id: string }
  | { type: 'system'; id: string };

/** Who made a change and from where: what a route (or the CLI) knows of the request that made it. */
export interface AuditOrigin {
  actor: AuditActor;
  /** The client's address as the server sees it (behind a trusted proxy, the forwarded one); null outside HTTP. */
  address: string | null;
  /** The request's id (the error envelope's request_id); null outside HTTP. */
  requestId: string | null;
  /**
   * The mode of the key that acted: the entry is then read by keys of that mode only (as every mode's data is);
   * null or left out (operator, system): read in both modes.
   */
  mode?: Mode | null | undefined;
}

export interface AuditEntry extends AuditOrigin {
  /** null: a change of the installation, not of one organization (the operator's catalog). */
  organizationId: string | null;
  /** `<target type>.<past participle>`, e.g. `api_key.created`, `wallet.topped_up`. */
  action: string;
  target: { type: string; id: string };
  /** The target's values before and after the change (null when it did not exist / no longer exists). Redacted. */
  before?: unknown;
  after?: unknown;
}

export interface AuditEventView {
  id: string;
  object: 'audit_event';
  seq: number;
  organization_id: string | null;
  created_at: string;
  mode: Mode | null;
  actor: { type: AuditActorType; id: string; user_id: string | null };
  client_address: string | null;
  request_id: string | null;
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
}

/** The chain of the installation's own changes (organization null). */
export const INSTALLATION_CHAIN = 'installation';
/** The previous hash of a chain's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a secret is replaced with in before/after. */
export const REDACTED = '[redacted]';

/**
 * Fields whose values are secrets wherever they appear in before/after, compared without case, `_` or `-`
 * (so `client_secret`, `clientSecret`, `Client-Secret` are one name). `key` is an API key's secret in its creation
 * answer. Any name containing one of SECRET_NAME_PARTS is redacted too.
 */
export const SECRET_FIELD_NAMES: readonly string[] = ['key', 'secret', 'password', 'token', 'authorization', 'cookie', 'setcookie', 'privatekey', 'otp', 'totp', 'recoverycodes'];
export const SECRET_NAME_PARTS: readonly string[] = ['secret', 'password', 'passwd', 'passphrase', 'credential', 'apikey', 'sessionid', 'privatekey', 'sha256'];
/** Names ending so are secrets too (`access_token`, `csrf_token`), but not counts of tokens (`max_tokens`). */
export const SECRET_NAME_ENDINGS: readonly string[] = ['token', 'hash'];

function secretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[_-]/g, '');
  return SECRET_FIELD_NAMES.includes(n) || SECRET_NAME_PARTS.some((part) => n.includes(part)) || SECRET_NAME_ENDINGS.some((end) => n.endsWith(end));
}

/** Twice a body's depth: a view wraps what a client sent in a few levels of its own. */
const MAX_AUDIT_DEPTH = JSON_LIMITS.depth * 2;
const TOO_DEEP = '[too deep]';

/**
 * A value as JSON (what the column stores and the hash covers: dates become strings, undefined fields go) with
 * every secret replaced by REDACTED, by its field's name or by its shape.
 */
export function redact(value: unknown): unknown {
  if (value === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(value) ?? 'null');
  } catch (err) {
    // JSON.stringify recurses natively: a value too deep for it is not kept, and the entry is still written.
    if (err instanceof RangeError) return TOO_DEEP;
    throw err;
  }
  // Entries hold views mmgen builds of its own rows, whose client-sent parts kept the body's depth limit; the bound
  // makes that an invariant of this walk rather than of every caller (what lies deeper is not kept).
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return holdsSecretShape(v) ? REDACTED : v.replace(/\u0000/g, '');
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_AUDIT_DEPTH) return TOO_DEEP;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    // A yes/no under a secret's name (`has_client_secret`) says whether one is set, never what it is: kept.
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, secretName(k) && x !== null && typeof x !== 'boolean' ? REDACTED : walk(x, depth + 1)]));
  };
  return walk(json, 0);
}

/** The fields an entry's hash covers, all but `hash` itself. */
export type HashedFields = Omit<AuditEventRow, 'hash'>;

/**
 * SHA-256 (hex) of the entry's canonical serialization: RFC 8785 (JSON Canonicalization Scheme, the `canonicalize`
 * package) of an object holding every column but `hash`, `at` as an ISO 8601 string with milliseconds. The previous
 * entry's hash is one of the fields, which makes the chain.
 */
export function auditHash(e: HashedFields): string {
  const doc = {
    v: 1,
    id: e.id,
    chain: e.chain,
    seq: e.seq,
    organization_id: e.organization_id,
    at: e.at.toISOString(),
    mode: e.mode,
    actor_type: e.actor_type,
    actor_id: e.actor_id,
    actor_user_id: e.actor_user_id,
    client_address: e.client_address,
    request_id: e.request_id,
    action: e.action,
    target_type: e.target_type,
    target_id: e.target_id,
    before: e.before,
    after: e.after,
    prev_hash: e.prev_hash,
  };
  return createHash('sha256').update(canonicalize(doc)!).digest('hex');
}

const ACTION = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Records one entry. Pass the transaction of the change it records (`q` of `db.tx`), so the entry commits with
 * the change or not at all (a wallet top-up and its entry, for one); given a Db, it opens a transaction of its own.
 * Call it last in the transaction: it locks the chain's head until the commit, so one organization's audited
 * changes take turns from there on (and a lock always taken last cannot deadlock with the change's own).
 */
export async function recordAudit(q: Queryable, entry: AuditEntry): Promise<AuditEventView> {
  return inTransaction(q, (t) => append(t, entry));
}

async function append(q: Queryable, entry: AuditEntry): Promise<AuditEventView> {
  if (!ACTION.test(entry.action)) throw new Error(`audit action '${entry.action}' is not a dotted lower-case name`);
  const chain = entry.organizationId ?? INSTALLATION_CHAIN;
  const head = await lockChainHead(q, chain, GENESIS_HASH);
  const fields: HashedFields = {
    id: newId('aud'),
    chain,
    seq: head.last_seq + 1,
    organization_id: entry.organizationId,
    at: new Date(),
    mode: entry.mode ?? null,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_user_id: entry.actor.type === 'api_key' ? entry.actor.user_id : entry.actor.type === 'member' ? entry.actor.id : null,
    client_address: entry.address,
    request_id: entry.requestId,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    before: redact(entry.before),
    after: redact(entry.after),
    prev_hash: head.last_hash,
  };
  const row: AuditEventRow = { ...fields, hash: auditHash(fields) };
  await appendAuditRow(q, row);
  return toAuditEventView(row);
}

/** The actor of a request authenticated by an API key. */
export function keyActor(principal: Pick<Principal, 'keyId' | 'userId'>): AuditActor {
  return { type: 'api_key', id: principal.keyId, user_id: principal.userId };
}

/** The origin of an operator's command outside HTTP (the CLI, the admin socket). */
export function operatorOrigin(name: string): AuditOrigin {
  return { actor: { type: 'operator', id: name }, address: null, requestId: null };
}

/** The origin of what a part of mmgen does on its own. */
export function systemOrigin(part: string): AuditOrigin {
  return { actor: { type: 'system', id: part }, address: null, requestId: null };
}

export function toAuditEventView(r: AuditEventRow): AuditEventView {
  return {
    id: r.id,
    object: 'audit_event',
    seq: r.seq,
    organization_id: r.organization_id,
    created_at: r.at.toISOString(),
    mode: r.mode,
    actor: { type: r.actor_type, id: r.actor_id, user_id: r.actor_user_id },
    client_address: r.client_address,
    request_id: r.request_id,
    action: r.action,
    target: { type: r.target_type, id: r.target_id },
    before: r.before,
    after: r.after,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

export interface AuditQuery {
  action?: string | undefined;
  actor?: string | undefined;
  actor_type?: AuditActorType | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

function filterOf(caller: Pick<Principal, 'organizationId' | 'mode'>, query: AuditQuery): AuditFilter {
  const date = (v: string | undefined, param: string): Date | undefined => {
    if (v === undefined) return undefined;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new ApiError('parameter_invalid', `${param} must be an ISO 8601 date-time.`, param);
    return d;
  };
  const since = date(query.since, 'since');
  const until = date(query.until, 'until');
  if (since && until && since >= until) throw new ApiError('parameter_invalid', 'since must be before until.', 'since');
  return {
    organizationId: caller.organizationId,
    mode: caller.mode,
    action: query.action,
    actor: query.actor,
    actorType: query.actor_type,
    targetType: query.target_type,
    targetId: query.target_id,
    since,
    until,
  };
}

/** A page of the organization's entries visible in the caller's mode, newest first. */
export async function listAuditEvents(
  q: Queryable,
  caller: Pick<Principal, 'organizationId' | 'mode'>,
  query: AuditQuery & { limit: number; starting_after?: string | undefined },
): Promise<{ object: 'list'; data: AuditEventView[]; has_more: boolean }> {
  const filter = filterOf(caller, query);
  if (query.starting_after !== undefined) {
    const after = await selectAuditEvent(q, caller.organizationId, caller.mode, query.starting_after);
    if (!after) throw new ApiError('resource_not_found', `No such audit event: '${query.starting_after}'`, 'starting_after');
    filter.beforeSeq = after.seq;
  }
  const rows = await selectAuditEvents(q, filter, query.limit + 1);
  return { object: 'list', data: rows.slice(0, query.limit).map(toAuditEventView), has_more: rows.length > query.limit };
}

const EXPORT_BATCH = 500;

/**
 * Every entry the filters match, newest first, read in batches as the consumer asks (an export streams it). The
 * filters are checked now, so a bad one is an error answer rather than a broken stream.
 */
export function exportAuditEvents(q: Queryable, caller: Pick<Principal, 'organizationId' | 'mode'>, query: AuditQuery): AsyncGenerator<AuditEventView> {
  return batches(q, filterOf(caller, query));
}

async function* batches(q: Queryable, filter: AuditFilter): AsyncGenerator<AuditEventView> {
  for (;;) {
    const rows = await selectAuditEvents(q, filter, EXPORT_BATCH);
    for (const r of rows) yield toAuditEventView(r);
    if (rows.length < EXPORT_BATCH) return;
    filter.beforeSeq = rows[rows.length - 1]!.seq;
  }
}

export interface ChainReport {
  chain: string;
  /** null for the installation's chain. */
  organization_id: string | null;
  entries: number;
  last_hash: string | null;
  ok: boolean;
  /** The first entry found changed or deleted. */
  problem: { kind: 'changed' | 'deleted'; seq: number; id: string | null; detail: string } | null;
}

const VERIFY_BATCH = 1000;

/**
 * Walks every chain from its first entry: each entry's seq follows the previous one's, its prev_hash is the
 * previous entry's hash, its hash is that of its fields; the head names the last entry. Stops each chain at its
 * first problem. An attacker who can write the database can rewrite a whole chain: the head hashes this reports
 * are what to keep elsewhere to notice even that.
 */
export async function verifyAuditChains(q: Queryable): Promise<ChainReport[]> {
  const reports: ChainReport[] = [];
  for (const { chain, head } of await selectChains(q)) {
    const report: ChainReport = { chain, organization_id: chain === INSTALLATION_CHAIN ? null : chain, entries: 0, last_hash: null, ok: true, problem: null };
    const fail = (kind: 'changed' | 'deleted', seq: number, id: string | null, detail: string) => {
      report.ok = false;
      report.problem = { kind, seq, id, detail };
    };
    let seq = 0;
    let prev = GENESIS_HASH;
    walk: for (;;) {
      const rows = await selectChainBatch(q, chain, seq, VERIFY_BATCH);
      for (const r of rows) {
        if (r.seq !== seq + 1) {
          fail('deleted', seq + 1, null, `entries ${seq + 1}${r.seq - 1 > seq + 1 ? `–${r.seq - 1}` : ''} are missing (deleted); the next is ${r.id} (seq ${r.seq})`);
          break walk;
        }
        const { hash, ...fields } = r;
        if (auditHash(fields) !== hash) {
          fail('changed', r.seq, r.id, `entry ${r.id} (seq ${r.seq}, ${r.action}) does not match its hash: it was changed`);
          break walk;
        }
        if (r.prev_hash !== prev) {
          fail('changed', seq, null, `entry seq ${seq} was changed (its successor ${r.id} names another hash for it)`);
          break walk;
        }
        seq = r.seq;
        prev = hash;
        report.entries++;
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    report.last_hash = report.entries > 0 ? prev : null;
    if (report.ok) {
      if (head === null) fail('deleted', seq, null, 'the chain\'s head is missing (deleted)');
      else if (head.last_seq > seq) fail('deleted', seq + 1, null, `entries ${seq + 1}${head.last_seq > seq + 1 ? `–${head.last_seq}` : ''} at the end are missing (deleted)`);
      else if (head.last_seq !== seq || head.last_hash !== prev) fail('changed', seq, null, 'the chain\'s head does not name its last entry');
    }
    reports.push(report);
  }
  return reports;
}
