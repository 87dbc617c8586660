import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { settlePending, topUp } from '../../src/billing/credits.js';
import type { Db } from '../../src/store/db.js';
import { walletAndLedger } from '../helpers/money.js';
import { client, describeEachBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Money under random interleavings (issue 9): fast-check draws sequences of
 * steps (sync and async generations that succeed, fail upstream or lose their
 * answer; cancels; retries; top-ups; bursts of concurrent requests; bursts
 * of idempotent duplicates) against a real server with live keys, starting
 * from a small wallet so that 402s happen. After every step, and again once
 * everything is terminal: no wallet below zero, wallet = ledger, reserved =
 * charged + refunded on every terminal generation, no attempt charged twice,
 * and what the wallet lost is exactly what the generations were charged.
 */
vi.setConfig({ testTimeout: 240_000 });

type Outcome = 'success' | 'failure' | 'lost';
type Step =
  | { kind: 'image'; outcome: Outcome }
  | { kind: 'chat'; tokens: number }
  | { kind: 'music'; outcome: Outcome; delayMs: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'retry'; pick: number }
  | { kind: 'topup'; credits: number }
  | { kind: 'burst'; size: number; outcome: Outcome }
  | { kind: 'duplicates'; size: number; outcome: Outcome };

const outcome = fc.constantFrom<Outcome>('success', 'success', 'failure', 'lost');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('image' as const), outcome }),
  fc.record({ kind: fc.constant('chat' as const), tokens: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('music' as const), outcome, delayMs: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('topup' as const), credits: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('burst' as const), size: fc.integer({ min: 2, max: 12 }), outcome }),
  fc.record({ kind: fc.constant('duplicates' as const), size: fc.integer({ min: 2, max: 8 }), outcome }),
);

async function checkInvariants(db: Db, orgId: string): Promise<void> {
  const w = await walletAndLedger(db, orgId);
  expect(w.held).toBeGreaterThanOrEqual(0);
  expect(w.balance - w.held, 'available credits').toBeGreaterThanOrEqual(0);
  expect({ balance: w.balance, held: w.held }, 'wallet = ledger').toEqual({ balance: w.ledgerBalance, held: w.ledgerHeld });
  const bad = await db.query<{ id: string }>(
    `SELECT id FROM generations WHERE organization_id = $1 AND status IN ('succeeded', 'failed', 'canceled')
       AND reserved_credits <> charged_credits + refunded_credits`,
    [orgId],
  );
  expect(bad.rows, 'reserved = charged + refunded').toEqual([]);
  const doubles = await db.query(
    `SELECT reference FROM ledger_entries WHERE organization_id = $1 AND kind IN ('charge', 'reserve', 'release') GROUP BY kind, reference HAVING count(*) > 1`,
    [orgId],
  );
  expect(doubles.rows, 'one ledger row per kind and attempt').toEqual([]);
  const mismatch = await db.query(
    `SELECT g.id FROM generations g LEFT JOIN ledger_entries l ON l.generation_id = g.id AND l.kind = 'charge'
     WHERE g.organization_id = $1 GROUP BY g.id, g.charged_credits HAVING coalesce(-sum(l.balance_delta), 0) <> g.charged_credits`,
    [orgId],
  );
  expect(mismatch.rows, 'charged = the charge rows').toEqual([]);
}

describeEachBackend('money under random interleavings', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_WORKER_POLL_MS: '20' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  it('keeps every invariant after every step and once all is terminal', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 120 }), fc.array(step, { minLength: 3, maxLength: 9 }), async (initial, steps) => {
        run++;
        const org = await s.createOrg({ plan: 'team', credits: initial });
        const key = org.live;
        const ids: string[] = [];
        let toppedUp = 0;
        const gen = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
          api('POST', path, { key, body, headers }).then((res) => {
            // A failed or lost upstream answer is a 502 upstream_error naming the (refunded) generation; nothing else is 5xx.
            if (res.status === 502) {
              expect(res.body.error.code).toBe('upstream_error');
              const named = /gen_[0-9A-Za-z]+/.exec(res.body.error.message)?.[0];
              if (named) ids.push(named);
            } else {
              expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
            }
            if ((res.status === 200 || res.status === 202) && typeof res.body?.id === 'string') ids.push(res.body.id);
            return res;
          });
        const image = (o: Outcome, headers?: Record<string, string>) =>
          gen('/v1/images', { model: 'flux-schnell', prompt: 'money', width: 256, height: 256, seed: 1, cache: false, simulate: { outcome: o } }, headers);

        for (const st of steps) {
          switch (st.kind) {
            case 'image':
              await image(st.outcome);
              break;
            case 'chat':
              await gen('/v1/chat', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'money' }], max_tokens: 64, simulate: { output_tokens: st.tokens } });
              break;
            case 'music':
              await gen('/v1/music', { model: 'musicgen', prompt: 'money', duration_s: 5, cache: false, simulate: { outcome: st.outcome, delay_ms: st.delayMs } });
              break;
            case 'cancel': {
              const id = ids[st.pick % Math.max(ids.length, 1)];
              if (id) expect([200, 409]).toContain((await api('POST', `/v1/generations/${id}/cancel`, { key })).status);
              break;
            }
            case 'retry': {
              const id = ids[st.pick % Math.max(ids.length, 1)];
              if (id) {
                const res = await api('POST', `/v1/generations/${id}/retry`, { key });
                expect([200, 202, 402, 409]).toContain(res.status);
              }
              break;
            }
            case 'topup':
              await topUp(s.db, { organizationId: org.id, reference: `prop-${run}-${toppedUp}-${st.credits}`, credits: st.credits });
              toppedUp += st.credits;
              break;
            case 'burst':
              await Promise.all(Array.from({ length: st.size }, () => image(st.outcome)));
              break;
            case 'duplicates': {
              const idem = `dup-${run}-${ids.length}-${Math.random()}`;
              const answers = await Promise.all(Array.from({ length: st.size }, () => image(st.outcome, { 'idempotency-key': idem })));
              // One request ran; the others replayed it or were told it is in flight.
              const ran = new Set(answers.filter((a) => a.status === 200 || a.status === 502).map((a) => a.body.id));
              expect(ran.size).toBeLessThanOrEqual(1);
              for (const a of answers) expect([200, 402, 409, 502]).toContain(a.status);
              break;
            }
          }
          await checkInvariants(s.db, org.id);
        }

        // Let every async generation end, then the books must close exactly.
        const deadline = Date.now() + 60_000;
        for (;;) {
          const open = await s.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM generations WHERE organization_id = $1 AND status NOT IN ('succeeded', 'failed', 'canceled')",
            [org.id],
          );
          if (open.rows[0]!.n === 0) break;
          if (Date.now() > deadline) throw new Error('generations never ended');
          await new Promise((r) => setTimeout(r, 50));
        }
        await checkInvariants(s.db, org.id);
        // Once its pending settlements are applied, the wallet row alone is the settled wallet.
        await settlePending(s.db, org.id);
        expect((await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet_pending WHERE organization_id = $1', [org.id])).rows[0]!.n).toBe(0);
        const w = (await s.db.query<{ balance_credits: number; held_credits: number }>('SELECT balance_credits, held_credits FROM wallets WHERE organization_id = $1', [org.id])).rows[0]!;
        const charged = (await s.db.query<{ c: number }>('SELECT coalesce(sum(charged_credits), 0)::bigint AS c FROM generations WHERE organization_id = $1', [org.id])).rows[0]!;
        expect(w.held_credits).toBe(0);
        expect(w.balance_credits).toBe(initial + toppedUp - Number(charged.c));
      }),
      { numRuns: backend === 'pglite' ? 20 : 25, seed: 20261121, endOnFailure: true },
    );
  });
});
