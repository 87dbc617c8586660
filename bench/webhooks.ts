/**
 * Webhook delivery throughput: N events (default 5,000) of one organization
 * with one `*` webhook whose loopback receiver answers 200; the in-process
 * dispatcher (the one `serve` and `mmgen worker` run) fans them out and
 * delivers them; the clock runs from its start until the database says every
 * delivery succeeded. The receiver is a separate process (as a real one would
 * be) and verifies every signature, so the figure includes signing and a
 * receiver that checks.
 *
 * `node --import tsx bench/webhooks.ts` runs PGlite and PostgreSQL
 * (BENCH_PG_URL, default the local `test` database); BENCH_WEBHOOK_EVENTS sets N,
 * BENCH_WEBHOOK_CONCURRENCY the deliveries in flight (default: the dispatcher's 32).
 */
import { operatorOrigin } from '../src/domain/audit.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createOrganization } from '../src/domain/organizations.js';
import { newId, randomBase62 } from '../src/ids.js';
import { WebhookDispatcher } from '../src/jobs/webhooks.js';
import { runtimeOn } from '../src/main.js';
import { openDb } from '../src/store/db.js';
import { scratchDatabase } from './harness.js';

export interface WebhookBench {
  backend: 'pglite' | 'postgres';
  events: number;
  /** Deliveries that ended succeeded per second, from dispatcher start to the last one recorded. */
  deliveriesPerSec: number;
  /** Wall time of the whole run (fan-out included). */
  totalMs: number;
  /** When the last event had been fanned out, from the start. */
  fanOutMs: number;
  /** Requests the receiver saw (more than `events` would mean duplicates). */
  received: number;
  /** Requests whose signature the receiver could not verify (must be 0). */
  badSignatures: number;
  /** Attempts recorded per delivery on average (1 when nothing failed). */
  attemptsPerDelivery: number;
  /** Median and 99th percentile of one attempt's HTTP exchange, as recorded. */
  attemptP50Ms: number;
  attemptP99Ms: number;
}

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);

// Kept in plain JavaScript so the receiver starts in a bare node process.
const RECEIVER = `
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
const secret = process.env.SECRET;
let received = 0, bad = 0;
const server = createServer((req, res) => {
  if (req.url === '/stats') return res.end(JSON.stringify({ received, bad }));
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received++;
    const m = /^t=(\\d+),v1=([0-9a-f]{64})$/.exec(req.headers['x-service-signature'] || '');
    const expected = m && createHmac('sha256', secret).update(m[1] + '.').update(Buffer.concat(chunks)).digest();
    if (!m || !timingSafeEqual(Buffer.from(m[2], 'hex'), expected)) bad++;
    res.end('ok');
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startReceiver(secret: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER], { env: { ...process.env, SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    proc.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    proc.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  return { proc, url: `http://127.0.0.1:${port}` };
}

export async function benchWebhooks(backend: 'pglite' | 'postgres', pgAdminUrl: string, events = EVENTS): Promise<WebhookBench> {
  const dir = mkdtempSync(join(tmpdir(), 'mmgen-webhooks-'));
  const scratch = backend === 'postgres' ? await scratchDatabase('mmgen_webhooks', pgAdminUrl) : null;
  const databaseUrl = scratch?.url;
  const config = loadConfig({
    MMGEN_DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    MMGEN_ALLOW_PRIVATE_NETWORK: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const db = await openDb({ databaseUrl, dataDir: join(dir, 'pgdata') });
  const runtime = await runtimeOn(config, db, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }));
  const secret = `whsec_${randomBase62(40)}`;
  const receiver = await startReceiver(secret);
  let dispatcher: WebhookDispatcher | undefined;
  try {
    const org = await createOrganization(db, { name: 'webhook-bench', plan: 'team', enterprise: false, credits: 0 }, operatorOrigin('bench'));
    const orgId = org.organization.id;
    const webhookId = newId('whk');
    await db.query(`INSERT INTO webhooks (id, organization_id, mode, url, events, secret) VALUES ($1, $2, 'live', $3, '{*}', $4)`, [
      webhookId, orgId, `${receiver.url}/hook`, secret,
    ]);
    const ids = Array.from({ length: events }, () => newId('evt'));
    const genIds = Array.from({ length: events }, () => newId('gen'));
    // The shape generation.completed has, so bodies are the size real ones are.
    await db.query(
      `INSERT INTO events (id, organization_id, mode, type, data)
       SELECT x.id, $2, 'live', 'generation.completed',
         jsonb_build_object('generation_id', x.gen, 'modality', 'image', 'status', 'succeeded', 'charged_credits', 4)
       FROM unnest($1::text[], $3::text[]) AS x(id, gen)`,
      [ids, orgId, genIds],
    );

    const t0 = performance.now();
    const startedAt = Date.now();
    dispatcher = new WebhookDispatcher(runtime.deps, process.env.BENCH_WEBHOOK_CONCURRENCY ? { concurrency: Number(process.env.BENCH_WEBHOOK_CONCURRENCY) } : {});
    dispatcher.start();
    // The receiver (another process) is polled while deliveries run, so that
    // measuring costs the database nothing; the database is asked at the end.
    for (;;) {
      const { received } = (await (await fetch(`${receiver.url}/stats`)).json()) as { received: number };
      if (received >= events) break;
      if (performance.now() - t0 > 300_000) throw new Error(`only ${received} of ${events} deliveries arrived in 5 minutes`);
      await new Promise((res) => setTimeout(res, 20));
    }
    for (;;) {
      const r = await db.query<{ succeeded: number }>(
        `SELECT count(*)::int AS succeeded FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'`,
        [webhookId],
      );
      if (r.rows[0]!.succeeded >= events) break;
      if (performance.now() - t0 > 300_000) throw new Error(`only ${r.rows[0]!.succeeded} of ${events} deliveries recorded in 5 minutes`);
      await new Promise((res) => setTimeout(res, 5));
    }
    const totalMs = performance.now() - t0;
    await dispatcher.stop(5000);
    dispatcher = undefined;
    const stats = (await (await fetch(`${receiver.url}/stats`)).json()) as { received: number; bad: number };
    const fan = await db.query<{ last: Date }>('SELECT max(fanned_out_at) AS last FROM events WHERE organization_id = $1', [orgId]);
    const fanOutMs = fan.rows[0]!.last.getTime() - startedAt;
    const attempts = await db.query<{ n: number; p50: number; p99: number }>(
      `SELECT count(*)::int AS n, percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99 FROM webhook_attempts`,
    );
    return {
      backend,
      events,
      deliveriesPerSec: Math.round(events / (totalMs / 1000)),
      totalMs: Math.round(totalMs),
      fanOutMs: Math.round(fanOutMs),
      received: stats.received,
      badSignatures: stats.bad,
      attemptsPerDelivery: Number((attempts.rows[0]!.n / events).toFixed(3)),
      attemptP50Ms: attempts.rows[0]!.p50,
      attemptP99Ms: attempts.rows[0]!.p99,
    };
  } finally {
    await dispatcher?.stop(1000);
    receiver.proc.kill();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pgUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const results: WebhookBench[] = [];
  for (const backend of ['pglite', 'postgres'] as const) {
    process.stderr.write(`bench webhooks: ${backend}…\n`);
    results.push(await benchWebhooks(backend, pgUrl));
  }
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
  for (const r of results) {
    console.log(
      `${r.backend.padEnd(8)} ${r.deliveriesPerSec} deliveries/s (${r.events} events in ${r.totalMs} ms, fanned out by ${r.fanOutMs} ms; ` +
        `received ${r.received}, bad signatures ${r.badSignatures}, attempts/delivery ${r.attemptsPerDelivery}, attempt p50 ${r.attemptP50Ms} ms p99 ${r.attemptP99Ms} ms)`,
    );
  }
  console.log(JSON.stringify(results, null, 2));
}
