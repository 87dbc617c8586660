import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

// Each command is a real `mmgen` process: slow on a loaded machine, so generous limits.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin', 'mmgen');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describe('user CLI (mmgen generate, compare, models show, generations, …) against a real mmgen', () => {
  let s: TestServer;
  let org: TestOrg;
  let dir: string;

  beforeAll(async () => {
    s = await startTestServer('pglite', { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    org = await s.createOrg({ plan: 'team', credits: 10_000 });
    dir = mkdtempSync(join(tmpdir(), 'mmgen-user-cli-'));
  });
  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function mmgen(args: string[], env: Record<string, string | undefined> = {}): Promise<Result> {
    const base: Record<string, string | undefined> = { ...process.env, MMGEN_API_KEY: org.test, MMGEN_BASE_URL: s.url, ...env };
    try {
      const { stdout, stderr } = await run(BIN, args, { cwd: dir, env: base as NodeJS.ProcessEnv, timeout: 90_000 });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }

  it('generate image --out downloads the generated PNG to the file', async () => {
    const r = await mmgen(['generate', 'image', '--model', 'flux-schnell', '--prompt', 'a cat', '--width', '320', '--height', '256', '--out', 'cat.png']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^gen_\w+\s+succeeded\s+image\s+flux-schnell/m);
    expect(r.stdout).toContain('saved cat.png (image/png');
    const meta = await sharp(join(dir, 'cat.png')).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 320, height: 256 });
  });

  it('several outputs go to FILE-1, FILE-2 (with the extension of their type when FILE has none)', async () => {
    const r = await mmgen(['generate', 'image', '--model', 'flux-schnell', '--prompt', 'twins', '--num-outputs', '2', '--width', '256', '--height', '256', '--out', 'twins', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'twins-1.png')) && existsSync(join(dir, 'twins-2.png'))).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('generate video --wait --json: progress on stderr while waiting, the finished generation as JSON on stdout', async () => {
    const r = await mmgen(['generate', 'video', '--model', 'wan-2.2', '--prompt', 'waves', '--duration', '1', '--simulate', '{"delay_ms":800}', '--wait', '--json', '--out-dir', 'video']);
    expect(r.code, r.stderr).toBe(0);
    const g = JSON.parse(r.stdout) as { id: string; status: string; outputs: Array<{ type: string }> };
    expect(g.status).toBe('succeeded');
    // Not a terminal: one line per status change, each with the time waited.
    expect(r.stderr).toMatch(new RegExp(`^${g.id}: queued \\(\\d+\\.\\ds\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^${g.id}: succeeded \\(\\d+\\.\\ds\\)$`, 'm'));
    expect(readdirSync(join(dir, 'video')).sort()).toEqual([`${g.id}-1-video.mp4`, `${g.id}-2-thumbnail.jpg`]);
  });

  it('an async generation without --wait is printed queued, with how to follow it; generations wait finishes it', async () => {
    const r = await mmgen(['generate', 'music', '--model', 'ace-step', '--prompt', 'a loop', '--duration', '5', '--simulate', '{"delay_ms":500}']);
    expect(r.code, r.stderr).toBe(0);
    const id = /^(gen_\w+)\s+(queued|running)/m.exec(r.stdout)?.[1];
    expect(id, r.stdout).toBeDefined();
    expect(r.stdout).toContain(`mmgen generations wait ${id}`);
    const waited = await mmgen(['generations', 'wait', id!, '--out', 'loop']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/saved loop\.wav \(audio\/wav/);
    const got = await mmgen(['generations', 'get', id!, '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, status: 'succeeded' });
  });

  it('a failed generation exits 1 with its error; retry --wait brings it to succeeded', async () => {
    const r = await mmgen(['generate', 'video', '--model', 'wan-2.2', '--prompt', 'fails', '--duration', '1', '--simulate', '{"outcome":"failure"}', '--wait', '--json']);
    expect(r.code).toBe(1);
    const g = JSON.parse(r.stdout) as { id: string; status: string };
    expect(g.status).toBe('failed');
    expect(r.stderr).toContain(`mmgen: ${g.id} failed: The simulated provider failed the job`);
    const retried = await mmgen(['generations', 'retry', g.id, '--wait', '--quiet']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`^${g.id}\\s+succeeded`, 'm'));
  });

  it('generations list and cancel', async () => {
    const slow = await mmgen(['generate', 'video', '--model', 'wan-2.2', '--prompt', 'slow', '--duration', '1', '--simulate', '{"delay_ms":60000}', '--json']);
    const id = (JSON.parse(slow.stdout) as { id: string }).id;
    const canceled = await mmgen(['generations', 'cancel', id]);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(canceled.stdout).toMatch(new RegExp(`^${id}\\s+canceled`, 'm'));
    const list = await mmgen(['generations', 'list', '--status', 'canceled', '--json']);
    expect((JSON.parse(list.stdout) as { data: Array<{ id: string }> }).data.map((g) => g.id)).toEqual([id]);
    const again = await mmgen(['generations', 'cancel', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 generation_not_cancelable: .*\(request req_\w+\)/);
  });

  it('compare --out-dir waits for every model and saves each result', async () => {
    const r = await mmgen(['compare', '--models', 'flux-schnell,recraft-v3', '--prompt', 'a fox', '--param', 'width=256', '--param', 'height=256', '--out-dir', 'foxes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cmp_\w+\s+completed\s+image/m);
    expect(readdirSync(join(dir, 'foxes')).sort()).toEqual(['flux-schnell-1-image.png', 'recraft-v3-1-image.png']);
    expect(r.stderr).toMatch(/^flux-schnell: succeeded/m);
  });

  it('uploads create, and generate upscale --input uploads the file itself', async () => {
    writeFileSync(join(dir, 'small.png'), await sharp({ create: { width: 60, height: 40, channels: 3, background: '#123456' } }).png().toBuffer());
    const up = await mmgen(['uploads', 'create', 'small.png', '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ status: 'uploaded', width: 60, height: 40 });
    const r = await mmgen(['generate', 'upscale', '--model', 'real-esrgan', '--input', 'small.png', '--scale', '4', '--out', 'big.jpg']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/uploaded small\.png as upl_\w+ \(60×40\)/);
    expect(await sharp(join(dir, 'big.jpg')).metadata()).toMatchObject({ format: 'jpeg', width: 240, height: 160 });
  });

  it('--idempotency-key makes a repeated command charge once (live key)', async () => {
    const args = ['generate', 'image', '--model', 'flux-schnell', '--prompt', 'once', '--width', '256', '--height', '256', '--idempotency-key', 'cli-order-7', '--json'];
    const a = await mmgen(args, { MMGEN_API_KEY: org.live });
    const b = await mmgen(args, { MMGEN_API_KEY: org.live });
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(b.stdout) as { id: string }).id).toBe((JSON.parse(a.stdout) as { id: string }).id);
    const wallet = JSON.parse((await mmgen(['wallet', '--json'], { MMGEN_API_KEY: org.live })).stdout) as { balance_credits: number };
    expect(wallet.balance_credits).toBe(10_000 - 3);
  });

  it('keys, webhooks and usage', async () => {
    const made = await mmgen(['keys', 'create', '--name', 'ci', '--role', 'viewer', '--scopes', 'usage:read', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout) as { id: string; key: string };
    expect(key.key).toMatch(/^sk_test_/);
    expect((await mmgen(['keys', 'list'])).stdout).toContain(key.id);
    expect((await mmgen(['keys', 'revoke', key.id])).stdout).toBe(`revoked ${key.id}\n`);

    const hook = await mmgen(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--events', '*']);
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stdout).toMatch(/^secret: whsec_\w+/m);
    const hookId = /^(whk_\w+)/.exec(hook.stdout)![1]!;
    expect((await mmgen(['webhooks', 'test', hookId])).stdout).toMatch(/^whd_\w+\s+webhook\.test/);
    expect((await mmgen(['webhooks', 'delete', hookId, '--json'])).stdout).toContain('"deleted": true');

    const usage = await mmgen(['usage', '--group-by', 'model', '--json']);
    const direct = await fetch(`${s.url}/v1/usage?group_by=model`, { headers: { authorization: `Bearer ${org.test}` } });
    expect(JSON.parse(usage.stdout)).toEqual(await direct.json());
  });

  it('models show prints a model\'s parameters as a table (its enums, ranges, defaults, required fields, input image, speech step); --json its schema', async () => {
    const kling = await mmgen(['models', 'show', 'kling-v2.1-master']);
    expect(kling.code, kling.stderr).toBe(0);
    expect(kling.stdout).toMatch(/^kling-v2\.1-master {2}.+\(video, \$[\d.]+\/second, active\)$/m);
    expect(kling.stdout).toMatch(/^FIELD\s+TYPE\s+REQUIRED\s+DEFAULT\s+ALLOWED$/m);
    // Its own durations and aspect ratios, not the modality's 1 to 20 s and six ratios.
    expect(kling.stdout).toMatch(/^duration_s\s+integer\s+5\s+5, 10$/m);
    expect(kling.stdout).toMatch(/^aspect_ratio\s+string\s+16:9\s+16:9, 9:16, 1:1$/m);
    // Kling takes at most 2500 characters on fal, so that is what every route of it takes.
    expect(kling.stdout).toMatch(/^prompt\s+string\s+yes\s+1 to 2500 characters$/m);
    expect(kling.stdout).toMatch(/^upload_id\s+string\s+at most 100 characters$/m);
    expect(kling.stdout).not.toMatch(/^(model|cache|simulate)\s/m);
    expect(kling.stdout).toMatch(/^also taken, as by every model: cache, simulate/m);
    expect(kling.stdout).toMatch(/^input image: optional \(upload_id or image_url\)$/m);
    expect(kling.stdout).not.toMatch(/speech step/);

    const avatar = await mmgen(['models', 'show', 'omnihuman']);
    expect(avatar.code, avatar.stderr).toBe(0);
    expect(avatar.stdout).toMatch(/^input image: required \(upload_id or image_url\)$/m);
    expect(avatar.stdout).toMatch(/^speech step: text \(with voice_id\) is spoken by eleven-turbo-v2\.5 first; or give audio_url$/m);
    // A price in plain digits, an integer range as integers (hunyuan-video's 8.29 s of frames allows 8).
    expect((await mmgen(['models', 'show', 'gpt-4o-mini'])).stdout).toMatch(/^gpt-4o-mini {2}.+\(chat, \$0\.000000\d+\/output_token, active\)$/m);
    expect((await mmgen(['models', 'show', 'hunyuan-video'])).stdout).toMatch(/^duration_s\s+integer\s+5\s+1 to 8$/m);
    expect((await mmgen(['models', 'show', 'tts-1'])).stdout).toMatch(/^voice_id\s+string\s+alloy\s+alloy, ash, coral, echo, fable, nova, onyx, sage, shimmer$/m);

    // Its published prices as the server gives them: each tier's request and the credits it reserves.
    const gpt = await mmgen(['models', 'show', 'gpt-image-1-mini']);
    const published = (await (await fetch(`${s.url}/v1/models/gpt-image-1-mini`, { headers: { authorization: `Bearer ${org.test}` } })).json()) as {
      pricing: { version: string; tiers: Array<{ when: Record<string, number>; credits: number }> };
    };
    expect(published.pricing.tiers.length).toBeGreaterThan(1);
    expect(gpt.stdout).toContain(`prices (${published.pricing.version};`);
    for (const t of published.pricing.tiers) {
      const request = Object.entries(t.when).map(([k, v]) => `${k}=${v}`).join(' ') || 'default';
      expect(gpt.stdout).toMatch(new RegExp(`^${request}\\s+${t.credits}\\s+openai$`, 'm'));
    }

    const json = await mmgen(['models', 'show', 'kling-v2.1-master', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const direct = await fetch(`${s.url}/v1/models/kling-v2.1-master`, { headers: { authorization: `Bearer ${org.test}` } });
    expect(JSON.parse(json.stdout)).toEqual(((await direct.json()) as { parameters: unknown }).parameters);

    const unknown = await mmgen(['models', 'show', 'no-such-model']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^mmgen: 404 model_not_found: /);
    const misuse = await mmgen(['models', 'show']);
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toMatch(/missing the model slug/);
  });

  it('errors: no key, an API error (with --json its envelope on stdout), a misuse (exit 2), an unreachable server', async () => {
    const noKey = await mmgen(['wallet'], { MMGEN_API_KEY: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/MMGEN_API_KEY/);

    const api = await mmgen(['generate', 'image', '--model', 'dall-e-2', '--prompt', 'x', '--json']);
    expect(api.code).toBe(1);
    expect(JSON.parse(api.stdout)).toMatchObject({ error: { code: 'model_unavailable', request_id: expect.stringMatching(/^req_/) } });
    expect(api.stderr).toMatch(/^mmgen: 410 model_unavailable: /);

    const misuse = await mmgen(['generate', 'image', '--prompt', 'no model']);
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toMatch(/--model is required/);

    const down = await mmgen(['wallet'], { MMGEN_BASE_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/Could not reach mmgen at http:\/\/127\.0\.0\.1:9/);
  });
});
