/**
 * A CPU profile of one `mmgen serve` on PostgreSQL under chat or image load
 * (node --cpu-prof), for finding where a generation's time goes.
 * Usage: node --import tsx bench/profile.ts chat|image [outdir]
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cannon, createOrg, scratchDatabase, stop } from './harness.js';

const which = process.argv[2] === 'image' ? 'image' : 'chat';
const outDir = process.argv[3] ?? '/tmp/mmgen-profile';
mkdirSync(outDir, { recursive: true });
const db = await scratchDatabase('mmgen_prof');
const port = String(20000 + Math.floor(Math.random() * 20000));
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  DATABASE_URL: db.url, MMGEN_DATA_DIR: `${outDir}/data`, MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_TEAM: '10000000',
  LOG_LEVEL: 'warn', PORT: port, HOST: '127.0.0.1',
};
const proc = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${outDir}`, 'bin/mmgen', 'serve'], { env, stdio: 'inherit' });
const url = `http://127.0.0.1:${port}`;
for (;;) {
  try {
    if ((await fetch(`${url}/healthz`)).ok) break;
  } catch {
    // not yet
  }
  await new Promise((r) => setTimeout(r, 200));
}
const org = await createOrg(env);
const path = which === 'chat' ? '/v1/chat' : '/v1/images';
const body = which === 'chat'
  ? { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 }
  : { model: 'flux-schnell', prompt: 'a benchmark', width: 512, height: 512, seed: 7, cache: false };
await cannon(url, path, org.live, body, 32, 3);
console.log(await cannon(url, path, org.live, body, 32, 10));
await stop(proc);
await db.drop();
