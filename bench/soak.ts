/**
 * Soak (issue 9): mixed traffic against one `mmgen serve` (API + worker) on
 * PostgreSQL for BENCH_SOAK_SECONDS (default 600), in windows of
 * BENCH_SOAK_WINDOW_SECONDS (default 30). Each window reports requests/s,
 * p50/p99 latency, non-2xx and 5xx counts, and the server's resident memory
 * at its end. The verdict: memory growth after the warm-up windows, total
 * 5xx (must be 0) and p99 drift (last windows over the first ones).
 *
 * The mix per connection, in turn: a synchronous image, a chat, an
 * asynchronous music job (run by the worker), a list of generations, the
 * wallet, usage by model. Live keys through the simulator, so every
 * generation reserves and charges.
 *
 * `node --import tsx bench/soak.ts`; figures in bench/README.md.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createOrg, scratchDatabase, startServe, stop } from './harness.js';

export interface SoakWindow {
  atS: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors5xx: number;
  rssMiB: number;
  /** Responses by status code, when any was not 2xx. */
  statuses?: Record<string, number>;
}

export interface SoakResult {
  seconds: number;
  windows: SoakWindow[];
  /** Resident memory at the end minus after the warm-up (the first two windows). */
  rssGrowthMiB: number;
  total5xx: number;
  /** Mean p99 of the last two windows over that of windows 3–4. */
  p99Drift: number;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export async function soak(seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600), windowS = Number(process.env.BENCH_SOAK_WINDOW_SECONDS ?? 30)): Promise<SoakResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-soak-'));
  const database = await scratchDatabase('mmgen_soak');
  // A soak spends far above any baseline a fresh organization has: the anomaly detector would (rightly) pause it.
  const env = { MMGEN_DATA_DIR: dataDir, DATABASE_URL: database.url, MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_TEAM: '10000000', MMGEN_ANOMALY_FLOOR_USD: '1000000000' };
  const server = await startServe(env);
  try {
    const org = await createOrg(env);
    const headers = { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' };
    const requests = [
      { method: 'POST' as const, path: '/v1/images', headers, body: JSON.stringify({ model: 'flux-schnell', prompt: 'soak', width: 512, height: 512, seed: 3, cache: false }) },
      { method: 'POST' as const, path: '/v1/chat', headers, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'soak' }], max_tokens: 64 }) },
      { method: 'POST' as const, path: '/v1/music', headers, body: JSON.stringify({ model: 'musicgen', prompt: 'soak', duration_s: 5, seed: 1, cache: false }) },
      { method: 'GET' as const, path: '/v1/generations?limit=20', headers },
      { method: 'GET' as const, path: '/v1/wallet', headers },
      { method: 'GET' as const, path: '/v1/usage?group_by=model', headers },
    ];
    const windows: SoakWindow[] = [];
    for (let at = 0; at < seconds; at += windowS) {
      const r = await autocannon({ url: server.url, connections: 16, duration: Math.min(windowS, seconds - at), requests });
      const w: SoakWindow = {
        atS: at + windowS,
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors5xx: r['5xx'],
        rssMiB: rssMiB(server.proc.pid!),
        ...(r.non2xx > 0 ? { statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v.count ?? 0])) } : {}),
      };
      windows.push(w);
      process.stderr.write(`soak ${w.atS}s: ${w.rps}/s p50 ${w.p50} ms p99 ${w.p99} ms, non-2xx ${w.non2xx}, 5xx ${w.errors5xx}, rss ${w.rssMiB} MiB${w.statuses ? ` ${JSON.stringify(w.statuses)}` : ''}\n`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
    const warm = windows[Math.min(1, windows.length - 1)]!;
    const early = windows.slice(2, 4).length > 0 ? windows.slice(2, 4) : windows.slice(0, 1);
    return {
      seconds,
      windows,
      rssGrowthMiB: windows[windows.length - 1]!.rssMiB - warm.rssMiB,
      total5xx: windows.reduce((s, w) => s + w.errors5xx, 0),
      p99Drift: Number((mean(windows.slice(-2).map((w) => w.p99)) / mean(early.map((w) => w.p99))).toFixed(2)),
    };
  } finally {
    await stop(server.proc);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await soak();
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
  console.log(`soak ${r.seconds}s: rss growth after warm-up ${r.rssGrowthMiB} MiB, 5xx ${r.total5xx}, p99 drift ×${r.p99Drift}`);
  console.log(JSON.stringify(r, null, 2));
}
