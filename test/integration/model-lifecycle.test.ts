import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { loadConfig } from '../../src/config.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

/**
 * Model lifecycle as data (issue 18): a route stops being served on its
 * upstream's recorded shutdown date, and a model left with none is delisted
 * (410 model_unavailable), on that date, without a restart.
 */
describe('the catalog on a date', () => {
  it('leaves out a route past its upstream shutdown and keeps the others, in order', () => {
    // A model routed to a live upstream, then to fal's imagen4/preview, which shut down on 2026-08-17 (real records;
    // the shipped imagen-4 lost both its routes that day, so it is delisted in the catalog itself).
    const flux = CATALOG.find((m) => m.slug === 'flux-schnell')!;
    const mixed = { ...flux, slug: 'mixed', routes: [flux.routes[0], { provider: 'fal', upstream: 'fal-ai/imagen4/preview' }] as typeof flux.routes };
    const before = new Catalog([mixed], recordedLifecycle('2026-08-16', SHIPPED_RECORDS));
    const after = new Catalog([mixed], recordedLifecycle('2026-08-17', SHIPPED_RECORDS));
    expect(before.find('mixed')!.routes.map((r) => r.provider)).toEqual(['replicate', 'fal']);
    expect(after.find('mixed')!.routes.map((r) => r.provider)).toEqual(['replicate']);
    expect(after.find('mixed')!.status).toBe('active');
  });

  it('delists a model whose every route has shut down, naming the date, and keeps serving the others', () => {
    const catalog = new Catalog(CATALOG, recordedLifecycle('2026-11-24', SHIPPED_RECORDS));
    expect(() => catalog.resolve('gpt-image-1', 'image')).toThrow(/delisted .*shut it down on 2026-10-23/);
    expect(catalog.find('gpt-image-1')!.status).toBe('delisted');
    expect(catalog.view(catalog.find('gpt-image-1')!).status).toBe('delisted');
    // Shipped delisted (its shutdown, 2026-12-01, has passed), but served on a date before it.
    expect(catalog.resolve('gpt-image-1-mini', 'image').slug).toBe('gpt-image-1-mini');
    expect(new Catalog(CATALOG, recordedLifecycle('2026-12-01', SHIPPED_RECORDS)).find('gpt-image-1-mini')).toMatchObject({ status: 'delisted', retired_on: '2026-12-01' });
    // Without a lifecycle (the catalog as shipped): the 14 delisted of release 1.1.1, the nine shut down or gone
    // upstream since and delisted in the shipped data (gpt-image-1, gpt-image-1-mini, claude-sonnet-4,
    // claude-sonnet-4.5, claude-opus-4.1, imagen-4, nano-banana, sora-2, tripo-v2.5), and gpt-5 and gpt-5-mini,
    // shipped delisted ahead of their 2026-12-11 shutdown.
    expect(new Catalog().models.filter((m) => m.status === 'delisted')).toHaveLength(25);
    expect(catalog.resolve('gpt-5', 'chat').slug).toBe('gpt-5');
    expect(new Catalog(CATALOG, recordedLifecycle('2026-12-11', SHIPPED_RECORDS)).find('gpt-5')).toMatchObject({ status: 'delisted', retired_on: '2026-12-11' });
    expect(new Catalog().find('gpt-image-1')!.status).toBe('delisted');
    expect(new Catalog().find('gpt-image-1-mini')).toMatchObject({ status: 'delisted', retired_on: '2026-12-01' });
  });

  it('follows the clock: a shutdown takes effect on its date in a running process', () => {
    let today = '2026-11-29';
    const catalog = new Catalog(CATALOG, { ...recordedLifecycle(undefined, SHIPPED_RECORDS), today: () => today });
    expect(catalog.resolve('claude-sonnet-4.5', 'chat').status).toBe('active');
    today = '2026-11-30';
    expect(() => catalog.resolve('claude-sonnet-4.5', 'chat')).toThrow(/shut it down on 2026-11-30/);
    expect(catalog.list({}).some((m) => m.slug === 'claude-sonnet-4.5')).toBe(false);
  });

  it('MMGEN_CATALOG_DATE must be a date', () => {
    expect(loadConfig({ MMGEN_CATALOG_DATE: '2026-12-01' }).catalogDate).toBe('2026-12-01');
    expect(loadConfig({}).catalogDate).toBeUndefined();
    expect(() => loadConfig({ MMGEN_CATALOG_DATE: 'next week' })).toThrow(/MMGEN_CATALOG_DATE must be a date/);
    expect(() => loadConfig({ MMGEN_CATALOG_DATE: '2026-13-45' })).toThrow(/MMGEN_CATALOG_DATE must be a date/);
  });
});

describeOnBackend('model lifecycle over HTTP', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    // The day claude-sonnet-4.5 shuts down (Anthropic's deprecations page, as recorded).
    s = await startTestServer(backend, { MMGEN_CATALOG_DATE: '2026-11-30' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1000 });
  });
  afterAll(async () => s?.close());

  it('answers 410 model_unavailable for a model past its shutdown, in test mode too, with nothing reserved', async () => {
    const chat = await api('POST', '/v1/chat/completions', { key: org.test, body: { model: 'claude-sonnet-4.5', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(410);
    expect(chat.body.error).toMatchObject({ code: 'model_unavailable', param: 'model' });
    expect(chat.body.error.message).toMatch(/2026-11-30/);
    const image = await api('POST', '/v1/images', { key: org.test, body: { model: 'gpt-image-1', prompt: 'x' } });
    expect(image.status).toBe(410);
    const list = await api('GET', '/v1/generations', { key: org.test });
    expect(list.body.data).toHaveLength(0);
    // Still described, as delisted, with the end of life that delisted it.
    const one = await api('GET', '/v1/models/claude-sonnet-4.5', { key: org.test });
    expect(one.body).toMatchObject({ status: 'delisted', deprecation: { shutdown_on: '2026-11-30' } });
    const haiku = await api('POST', '/v1/chat/completions', { key: org.test, body: { model: 'claude-haiku-4.5', messages: [{ role: 'user', content: 'hi' }] } });
    expect(haiku.status).toBe(200);
  });
});
