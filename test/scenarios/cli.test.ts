import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Real processes, each opening a database: slow under a loaded machine, so generous limits.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
import { mmgen, serve } from '../helpers/processes.js';
import { freshDb } from '../helpers/server.js';

describe('operator CLI on the embedded database', () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mmgen-cli-'));
    env = { MMGEN_DATA_DIR: dataDir };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('org create, wallet topup, set-plan, unpause and models list', async () => {
    const created = await mmgen(['org', 'create', '--name', 'Acme', '--plan', 'pro', '--credits', '500', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.organization).toMatchObject({ name: 'Acme', plan: 'pro', enterprise: false });
    expect(out.organization.id).toMatch(/^org_/);
    expect(out.user).toMatchObject({ role: 'owner' });
    expect(out.user.id).toMatch(/^usr_/);
    expect(out.keys.live).toMatch(/^sk_live_/);
    expect(out.keys.test).toMatch(/^sk_test_/);

    const topup = await mmgen(['wallet', 'topup', '--org', out.organization.id, '--credits', '250', '--json'], env);
    expect(topup.code, topup.stderr).toBe(0);
    expect(JSON.parse(topup.stdout)).toEqual({ object: 'wallet', balance_credits: 750, held_credits: 0, available_credits: 750 });

    const plan = await mmgen(['org', 'set-plan', '--org', out.organization.id, '--plan', 'studio', '--enterprise', '--json'], env);
    expect(JSON.parse(plan.stdout)).toMatchObject({ plan: 'studio', enterprise: true });
    const unpause = await mmgen(['org', 'unpause', '--org', out.organization.id, '--json'], env);
    expect(JSON.parse(unpause.stdout)).toMatchObject({ paused: false });

    const models = await mmgen(['models', 'list', '--modality', 'voice', '--json'], env);
    const list = JSON.parse(models.stdout) as Array<{ modality: string }>;
    expect(list.length).toBeGreaterThanOrEqual(3);
    expect(list.every((m) => m.modality === 'voice')).toBe(true);
    const table = await mmgen(['models', 'list'], env);
    expect(table.stdout.split('\n').length).toBeGreaterThan(48);
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const badPlan = await mmgen(['org', 'create', '--name', 'x', '--plan', 'gold'], env);
    expect(badPlan.code).not.toBe(0);
    expect(badPlan.stderr).toMatch(/--plan must be one of free, pro, studio, team/);
    const badCredits = await mmgen(['wallet', 'topup', '--org', 'org_x', '--credits', '-5'], env);
    expect(badCredits.code).not.toBe(0);
    const unknownOrg = await mmgen(['wallet', 'topup', '--org', 'org_missing', '--credits', '5'], env);
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr).toMatch(/No such organization/);
    // An import naming no registered provider: the admin API's 400, in words, not a stack (issue 42).
    const importFile = join(dataDir, 'import.json');
    writeFileSync(importFile, JSON.stringify({ provider: 'no-such-provider', upstream: 'acme/x', model: { slug: 'acme-x', display_name: 'X', modality: 'image', capabilities: [], unit_cost_usd: '0.01' }, record: { map: { prompt: 'prompt' } } }));
    const unregistered = await mmgen(['catalog', 'add', '--import', '--file', importFile], env);
    expect(unregistered.code).toBe(1);
    expect(unregistered.stderr).toMatch(/^mmgen: No provider 'no-such-provider' is registered; the registered ones are .*replicate/);
    expect(unregistered.stderr).not.toMatch(/\n\s+at /);
    const unknownCmd = await mmgen(['frobnicate'], env);
    expect(unknownCmd.code).toBe(2);
    expect(unknownCmd.stderr).toMatch(/unknown command/);
  });

  it('serve: bootstraps the default org once, takes CLI commands over its socket, locks the directory, stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-serve-'));
    const e = { MMGEN_DATA_DIR: dir };
    try {
      const server = await serve(e);
      const keys = /live key: (sk_live_\w+)/.exec(server.stdout());
      expect(keys, server.stdout()).not.toBeNull();
      const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${keys![1]}` } });
      expect(models.status).toBe(200);
      expect(((await models.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(48);

      // The CLI goes through the running server (PGlite allows one process).
      const created = await mmgen(['org', 'create', '--name', 'Via socket', '--plan', 'free', '--json'], e);
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout).keys.live as string;
      const org = await fetch(`${server.url}/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await org.json()) as { name: string }).name).toBe('Via socket');

      // A second server on the same directory refuses to start.
      const second = await mmgen(['serve'], { ...e, PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/in use by mmgen process \d+/);

      server.proc.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(existsSync(join(dir, 'mmgen.lock'))).toBe(false);

      // Restarted: no second default org, no keys printed again.
      const again = await serve(e);
      expect(again.stdout()).not.toMatch(/live key:/);
      again.proc.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a lock left by a killed server is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-kill-'));
    try {
      const server = await serve({ MMGEN_DATA_DIR: dir });
      server.proc.kill('SIGKILL');
      await server.exited;
      expect(existsSync(join(dir, 'mmgen.lock'))).toBe(true);
      const models = await mmgen(['org', 'create', '--name', 'after kill', '--plan', 'team', '--json'], { MMGEN_DATA_DIR: dir });
      expect(models.code, models.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('operator CLI on PostgreSQL', () => {
  it('org create and topup with DATABASE_URL', { tags: ['postgres'] }, async () => {
    const { db, drop, url } = await freshDb('postgres');
    await db.close();
    try {
      const env = { DATABASE_URL: url!, MMGEN_DATA_DIR: join(tmpdir(), 'unused') };
      const created = await mmgen(['org', 'create', '--name', 'PG', '--plan', 'team', '--credits', '10', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const id = JSON.parse(created.stdout).organization.id as string;
      const topup = await mmgen(['wallet', 'topup', '--org', id, '--credits', '5', '--json'], env);
      expect(JSON.parse(topup.stdout).balance_credits).toBe(15);
    } finally {
      await drop();
    }
  });
});
