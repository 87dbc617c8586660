import { describe, expect, it } from 'vitest';
import { auditHash, GENESIS_HASH, operatorOrigin, recordAudit, redact, REDACTED, type HashedFields } from '../../src/domain/audit.js';

describe('audit redaction: secrets never reach the log', () => {
  it('redacts every field named as a secret, at any depth, whatever the spelling', () => {
    const input = {
      name: 'ci',
      key: 'sk_live_whatever',
      secret: 'whsec_x',
      password: 'hunter2',
      password_hash: '$argon2id$…',
      newPassword: 'x',
      token: 't',
      access_token: 'a',
      refreshToken: 'r',
      id_token: 'i',
      csrf_token: 'c',
      client_secret: 's',
      'Client-Secret': 's',
      secret_sha256: 'abc',
      signing_secret: 'x',
      authorization: 'Bearer x',
      cookie: 'session=x',
      api_key: 'x',
      private_key: '-----BEGIN',
      credentials: { user: 'u' },
      recovery_codes: ['a', 'b'],
      nested: { list: [{ webhook_secret: 'whsec_y', url: 'https://x' }] },
    };
    const out = redact(input) as Record<string, unknown>;
    for (const k of Object.keys(input).filter((k) => k !== 'name' && k !== 'nested')) expect(out[k], k).toBe(REDACTED);
    expect(out.name).toBe('ci');
    expect(out.nested).toEqual({ list: [{ webhook_secret: REDACTED, url: 'https://x' }] });
  });

  it('redacts secrets by their shape under any name, and keeps what only looks close', () => {
    const live = `sk_live_${'A1'.repeat(20)}`;
    const hook = `whsec_${'b2'.repeat(20)}`;
    expect(redact({ note: live, list: [hook], prefix: live.slice(0, 12) })).toEqual({ note: REDACTED, list: [REDACTED], prefix: live.slice(0, 12) });
    // Counts of tokens, a hash chain's own fields elsewhere, and null secrets are not secrets.
    expect(redact({ max_tokens: 100, budget_tokens: 5, max_completion_tokens: 9, secret: null })).toEqual({ max_tokens: 100, budget_tokens: 5, max_completion_tokens: 9, secret: null });
    // Whether a secret is set is not the secret: a yes/no under its name is kept, any other value is not.
    expect(redact({ has_client_secret: true, client_secret: 'x', password: 12345 })).toEqual({ has_client_secret: true, client_secret: REDACTED, password: REDACTED });
  });

  it('stores JSON: dates become strings, undefined fields go, NUL characters are dropped', () => {
    expect(redact({ at: new Date('2026-01-02T03:04:05.678Z'), gone: undefined, s: 'a\u0000b' })).toEqual({ at: '2026-01-02T03:04:05.678Z', s: 'ab' });
    expect(redact(undefined)).toBeNull();
  });
});

describe('audit hash: RFC 8785 over every field', () => {
  const base: HashedFields = {
    id: 'aud_x', chain: 'org_x', seq: 1, organization_id: 'org_x', at: new Date('2026-01-02T03:04:05.678Z'), mode: 'live',
    actor_type: 'api_key', actor_id: 'key_x', actor_user_id: 'usr_x', client_address: '127.0.0.1', request_id: 'req_x',
    action: 'api_key.created', target_type: 'api_key', target_id: 'key_y', before: null, after: { b: 1, a: [1, 'x'] }, prev_hash: GENESIS_HASH,
  };

  it('is the same whatever the order of keys (as jsonb hands them back), and SHA-256 hex', () => {
    const h = auditHash(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(auditHash({ ...base, after: { a: [1, 'x'], b: 1 } })).toBe(h);
  });

  it('changes with every field, the previous hash included', () => {
    const h = auditHash(base);
    const changes: Partial<HashedFields>[] = [
      { id: 'aud_y' }, { chain: 'org_y' }, { seq: 2 }, { organization_id: null }, { at: new Date(base.at.getTime() + 1) }, { mode: null },
      { actor_type: 'member' }, { actor_id: 'key_z' }, { actor_user_id: null }, { client_address: '::1' }, { request_id: null },
      { action: 'api_key.revoked' }, { target_type: 'webhook' }, { target_id: 'key_z' }, { before: {} }, { after: { b: 2, a: [1, 'x'] } },
      { prev_hash: 'f'.repeat(64) },
    ];
    for (const c of changes) expect(auditHash({ ...base, ...c }), JSON.stringify(c)).not.toBe(h);
  });

  it('refuses an action that is not a dotted lower-case name before anything is written', async () => {
    const q = { query: async () => { throw new Error('no statement expected'); } };
    await expect(recordAudit(q, { ...operatorOrigin('x'), organizationId: null, action: 'Not-Dotted', target: { type: 't', id: 'i' } })).rejects.toThrow(/dotted/);
  });
});

describe('audit redaction of deep values', () => {
  it('keeps 64 levels of a value 100,000 deep and writes the entry (a recursive walk, or JSON.stringify, overflowed)', () => {
    let deep: unknown = 'sk_live_' + 'a'.repeat(30);
    for (let i = 0; i < 100; i++) deep = { a: [deep] };
    let kept = redact(deep) as Record<string, unknown>;
    let levels = 0;
    while (typeof kept === 'object' && kept !== null) {
      kept = (Array.isArray(kept) ? kept[0] : kept.a) as Record<string, unknown>;
      levels++;
    }
    expect(levels).toBe(64);
    expect(kept).toBe('[too deep]');
    let deeper: unknown = 1;
    for (let i = 0; i < 100_000; i++) deeper = [deeper];
    expect(redact({ before: deeper })).toBe('[too deep]');
  });
});
