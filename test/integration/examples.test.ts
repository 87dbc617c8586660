import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const ROOT = process.cwd();

/**
 * Every script in examples/ runs as a user would run it (`npm run example …`, i.e. node
 * with tsx and the SDK's source condition) against a real mmgen.
 */
describe('examples/ run against a real mmgen', () => {
  let s: TestServer;
  let org: TestOrg;
  let dir: string;

  beforeAll(async () => {
    // Loopback webhooks (the video example's receiver) need MMGEN_ALLOW_PRIVATE_NETWORK.
    s = await startTestServer('pglite', { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    org = await s.createOrg({ plan: 'team', credits: 10_000 });
    dir = mkdtempSync(join(tmpdir(), 'mmgen-examples-'));
  });
  afterAll(async () => {
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function example(name: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
    const { stdout } = await run(process.execPath, ['--conditions=mmgen-source', '--import', 'tsx', join(ROOT, 'examples', name), ...args], {
      cwd: ROOT, // where `npm run example` runs them (tsx resolves from here)
      env: { ...process.env, MMGEN_API_KEY: org.test, MMGEN_BASE_URL: s.url, ...env },
      timeout: 90_000,
    });
    return stdout;
  }

  it('image.ts saves a generated image (live key: charged)', async () => {
    const out = await example('image.ts', [join(dir, 'lighthouse.png')], { MMGEN_API_KEY: org.live });
    expect(out).toMatch(/^gen_\w+: 512×512 image\/png saved to .*lighthouse\.png; charged 3 credits$/m);
    expect(await sharp(join(dir, 'lighthouse.png')).metadata()).toMatchObject({ format: 'png', width: 512, height: 512 });
  });

  it('video-webhook.ts receives and verifies the generation.completed delivery of its video', async () => {
    const out = await example('video-webhook.ts');
    expect(out).toMatch(/^webhook whk_\w+ → http:\/\/127\.0\.0\.1:\d+\/webhooks$/m);
    const id = /^(gen_\w+) accepted/m.exec(out)?.[1];
    expect(id, out).toBeDefined();
    expect(out).toMatch(/^verified generation\.completed evt_\w+$/m);
    expect(out).toMatch(/^ {2}video video\/mp4 http/m);
    // The example deletes its webhook when done.
    const hooks = await fetch(`${s.url}/v1/webhooks`, { headers: { authorization: `Bearer ${org.test}` } });
    expect(((await hooks.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('comparison.ts waits for every model', async () => {
    const out = await example('comparison.ts');
    expect(out).toMatch(/^cmp_\w+: 3 models/m);
    for (const model of ['flux-schnell', 'recraft-v3', 'ideogram-v3-turbo']) expect(out).toMatch(new RegExp(`^${model}\\s+succeeded`, 'm'));
  });

  it('openai-chat.ts chats through the official OpenAI SDK, plain and streamed', async () => {
    const out = await example('openai-chat.ts');
    expect(out).toMatch(/^\(gen_\w+: \d+ output tokens\)$/m);
    expect(out).toMatch(/^\(streamed: \d+ output tokens\)$/m);
  });

  it("existing-clients.ts runs the README's snippets: OpenAI, the AI SDK, LangChain and Anthropic clients against mmgen", async () => {
    const out = await example('existing-clients.ts', [], { MMGEN_API_KEY: org.live });
    expect(out).toMatch(/^openai chat gen_\w+: \d+ output tokens$/m);
    expect(out).toMatch(/^openai response gen_\w+: [1-9]\d* characters, [1-9]\d* output tokens$/m);
    expect(out).toMatch(/^openai image: \d+ bytes$/m);
    expect(out).toMatch(/^openai edit: \d+ bytes$/m);
    expect(out).toMatch(/^openai speech gen_\w+: RIFF \d+ bytes$/m);
    expect(out).toMatch(/^ai text: [1-9]\d* characters, [1-9]\d* output tokens$/m);
    expect(out).toMatch(/^ai image: image\/\w+ [1-9]\d* bytes$/m);
    expect(out).toMatch(/^ai speech: audio\/\w+ [1-9]\d* bytes$/m);
    expect(out).toMatch(/^langchain: [1-9]\d* characters$/m);
    expect(out).toMatch(/^langchain stream: [1-9]\d* characters$/m);
    expect(out).toMatch(/^anthropic gen_\w+: [1-9]\d* output tokens$/m);
    expect(out).toMatch(/^anthropic stream gen_\w+: [1-9]\d* characters, [1-9]\d* output tokens$/m);
  });

  it('upscale-upload.ts uploads a local image and saves the 4× upscale', async () => {
    writeFileSync(join(dir, 'photo.png'), await sharp({ create: { width: 50, height: 30, channels: 3, background: '#884422' } }).png().toBuffer());
    const out = await example('upscale-upload.ts', [join(dir, 'photo.png'), join(dir, 'big.jpg')]);
    expect(out).toMatch(/^uploaded .*photo\.png as upl_\w+ \(50×30\)$/m);
    expect(await sharp(join(dir, 'big.jpg')).metadata()).toMatchObject({ format: 'jpeg', width: 200, height: 120 });
  });
});
